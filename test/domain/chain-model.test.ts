// Property: random sequences of add / update / delete across riskUnit ← riskEvents ← riskMeasures ←
// troubleshootInfo never produce an orphan or an illegal state, and every answer and the database
// agree with a small in-memory model of the rules.

import fc from 'fast-check'
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { type Reply, startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()

type Kind = 'riskUnit' | 'riskEvents' | 'riskMeasures' | 'troubleshootInfo'
const PATH: Record<Kind, string> = {
  riskUnit: '/prevent/riskUnit',
  riskEvents: '/prevent/riskEvents',
  riskMeasures: '/prevent/riskMeasures',
  troubleshootInfo: '/prevent/troubleshootInfo',
}
const PARENT: Record<Kind, [string, Kind] | undefined> = {
  riskUnit: undefined,
  riskEvents: ['riskUnitId', 'riskUnit'],
  riskMeasures: ['riskEventId', 'riskEvents'],
  troubleshootInfo: ['riskMeasureId', 'riskMeasures'],
}
const MOVES: Record<string, string[]> = { '0': ['1'], '1': ['9', '0'], '9': [] }

interface ModelRecord {
  live: boolean
  parent?: string
  state?: string
}

type Command =
  | { op: 'add'; kind: Kind; n: number; parent: number; state: string }
  | { op: 'delete'; kind: Kind; n: number }
  | { op: 'reparent'; kind: Kind; n: number; parent: number }
  | { op: 'move'; n: number; state: string }

const kinds: Kind[] = ['riskUnit', 'riskEvents', 'riskMeasures', 'troubleshootInfo']
const small = fc.integer({ min: 0, max: 3 })
const state = fc.constantFrom('0', '1', '9')
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), kind: fc.constantFrom(...kinds), n: small, parent: small, state }),
  fc.record({ op: fc.constant('delete' as const), kind: fc.constantFrom(...kinds), n: small }),
  fc.record({ op: fc.constant('reparent' as const), kind: fc.constantFrom<Kind>('riskEvents', 'riskMeasures'), n: small, parent: small }),
  fc.record({ op: fc.constant('move' as const), n: small, state }),
)

let run = 0

t.test('the database follows the model of the rules', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 40 }), async (commands) => {
      run++
      const model = new Map<string, ModelRecord>() // key `${kind}:${id}`
      const id = (kind: Kind, n: number) => `r${run}-${kind}-${n}`
      const get = (kind: Kind, n: number) => model.get(`${kind}:${id(kind, n)}`)
      const childrenOf = (kind: Kind, recordId: string) =>
        [...model.entries()].filter(
          ([key, value]) => value.live && value.parent === recordId && PARENT[key.split(':')[0] as Kind]?.[1] === kind,
        )

      for (const c of commands) {
        let expected: number
        let reply: Reply
        if (c.op === 'add') {
          const parent = PARENT[c.kind]
          const parentId = parent ? id(parent[1], c.parent) : undefined
          const body = record(c.kind, id(c.kind, c.n), {
            ...(parent ? { [parent[0]]: parentId } : {}),
            ...(c.kind === 'troubleshootInfo' ? { dangerState: c.state, checkAcceptPerson: 'Li Wei', checkAcceptTime: '2026-11-21' } : {}),
          })
          if (get(c.kind, c.n)) expected = 1003
          else if (parent && !get(parent[1], c.parent)?.live) expected = 1006
          else expected = 0
          reply = await service.call(`${PATH[c.kind]}/add`, body, { token })
          if (expected === 0)
            model.set(`${c.kind}:${id(c.kind, c.n)}`, {
              live: true,
              parent: parentId,
              state: c.kind === 'troubleshootInfo' ? c.state : undefined,
            })
        } else if (c.op === 'delete') {
          const current = get(c.kind, c.n)
          expected = current?.live && childrenOf(c.kind, id(c.kind, c.n)).length > 0 ? 1012 : 0
          reply = await service.call(`${PATH[c.kind]}/delete`, { id: id(c.kind, c.n) }, { token })
          if (expected === 0 && current) current.live = false
        } else if (c.op === 'reparent') {
          const current = get(c.kind, c.n)
          const [field, parentKind] = PARENT[c.kind]!
          const parentId = id(parentKind, c.parent)
          expected = !current?.live ? 1004 : get(parentKind, c.parent)?.live ? 0 : 1006
          reply = await service.call(`${PATH[c.kind]}/update`, { id: id(c.kind, c.n), [field]: parentId }, { token })
          if (expected === 0) current!.parent = parentId
        } else {
          const current = get('troubleshootInfo', c.n)
          expected = !current?.live ? 1004 : current.state === c.state || MOVES[current.state!].includes(c.state) ? 0 : 1011
          reply = await service.call(
            `${PATH.troubleshootInfo}/update`,
            { id: id('troubleshootInfo', c.n), dangerState: c.state },
            { token },
          )
          if (expected === 0) current!.state = c.state
        }
        if (reply.body.code !== expected) {
          throw new Error(`${JSON.stringify(c)}: expected ${expected}, got ${reply.body.code} (${reply.body.msg})`)
        }
      }

      // The database holds exactly the model's live records, with the model's parents and states.
      for (const kind of kinds) {
        const { rows } = await service.database.pool.query(
          `SELECT id, ${PARENT[kind] ? `"${PARENT[kind]![0]}" AS parent` : 'NULL AS parent'}, ${kind === 'troubleshootInfo' ? '"dangerState"' : 'NULL'} AS state
           FROM ${{ riskUnit: 'risk_unit', riskEvents: 'risk_events', riskMeasures: 'risk_measures', troubleshootInfo: 'troubleshoot_info' }[kind]}
           WHERE live AND id LIKE $1 ORDER BY id`,
          [`r${run}-%`],
        )
        const expectedRows = [...model.entries()]
          .filter(([key, value]) => key.startsWith(`${kind}:`) && value.live)
          .map(([key, value]) => ({ id: key.split(':')[1], parent: value.parent ?? null, state: value.state ?? null }))
          .sort((a, b) => (a.id < b.id ? -1 : 1))
        if (JSON.stringify(rows) !== JSON.stringify(expectedRows)) {
          throw new Error(`${kind}: database ${JSON.stringify(rows)} but model ${JSON.stringify(expectedRows)}`)
        }
      }
    }),
    { numRuns: 25 },
  )
  // And no live child anywhere names a parent that is not live.
  const orphans = await service.database.pool.query(`
    SELECT 'riskEvents' AS kind, c.id FROM risk_events c LEFT JOIN risk_unit p ON p.id = c."riskUnitId" AND p.live WHERE c.live AND p.id IS NULL
    UNION ALL SELECT 'riskMeasures', c.id FROM risk_measures c LEFT JOIN risk_events p ON p.id = c."riskEventId" AND p.live WHERE c.live AND p.id IS NULL
    UNION ALL SELECT 'troubleshootInfo', c.id FROM troubleshoot_info c LEFT JOIN risk_measures p ON p.id = c."riskMeasureId" AND p.live
      WHERE c.live AND c."riskMeasureId" IS NOT NULL AND p.id IS NULL`)
  t.same(orphans.rows, [])
  t.ok(run >= 25, `${run} random sequences checked`)
})

t.end()
