// Adds outside a transaction are gathered under load (src/store/gathered-writes.ts): while four adds
// of a table run, the adds arriving meanwhile wait and go together in one statement. On a real
// database: what goes together is written exactly as alone, and every add has its own answer when
// the database refuses one of them (a taken unique value, an id ever used, a missing parent).
// Adds started in one synchronous loop gather deterministically: the first four run alone at once,
// the others wait for the first of them to end and then go together. Rows inserted by one statement
// share its transaction id (xmin), which tells what went together.
import t from 'tap'
import type { ApiRecord } from '../../src/store/resource-store.ts'
import { PARENT_FIELD, record } from '../helpers/fixtures.ts'
import { answersOf, statementSizes, storeOnService } from '../helpers/gathering.ts'

const { pool, registry, store } = await storeOnService(t)
const monitorEquip = registry.get('monitorEquip')

/** Each add's answer: 'ok' or its business code. */
function addAll(resource: string, records: ApiRecord[], userName = (i: number) => `author-${i}`): Promise<(string | number)[]> {
  const definition = registry.get(resource)
  return answersOf(
    records.map((each, i) => store.add(definition, each, { userName: userName(i) })),
    () => 'ok',
  )
}

/** A row as stored but for what differs between two adds of the same values (id, unique value, times). */
async function stored(id: string): Promise<Record<string, unknown>> {
  const { rows } = await pool.query(
    `SELECT to_jsonb(t) - 'id' - 'monitorCode' - 'createTime' - 'updateTime' - 'createBy' - 'updateBy' AS rest, "createBy", "updateBy" FROM monitor_equip t WHERE id = $1`,
    [id],
  )
  return rows[0]
}

t.test('adds arriving while four run go together, written exactly as each alone', async (t) => {
  // A fraction of a second in an instant: stored to the second, alone as together.
  const values = { checkTime: '2026-03-01T08:30:15.750+08:00' }
  t.same(await addAll('monitorEquip', [record('monitorEquip', 'G-ALONE', values)], () => 'author-alone'), ['ok'])
  const ids = Array.from({ length: 20 }, (_, i) => `G-${i}`)
  t.same(
    await addAll(
      'monitorEquip',
      ids.map((id) => record('monitorEquip', id, values)),
    ),
    ids.map(() => 'ok'),
  )
  t.same(await statementSizes(pool, 'monitor_equip', ids), [1, 1, 1, 1, 16], 'four alone, then sixteen in one statement')
  const alone = await stored('G-ALONE')
  t.equal(alone.createBy, 'author-alone')
  for (const [i, id] of ids.entries()) {
    const row = await stored(id)
    t.same(row.rest, alone.rest, `${id}: the same row as an add alone`)
    t.same([row.createBy, row.updateBy], [`author-${i}`, `author-${i}`], `${id}: its own author`)
  }
  const read = await store.get(monitorEquip, 'G-19')
  t.equal(read?.version, 1)
  t.match(read?.record.checkTime, /T08:30:15(\.000)?\+08:00$/, 'the instant kept to the second')
})

t.test('a unique value taken or an id ever used among gathered adds: that add alone is refused', async (t) => {
  t.same(await addAll('monitorEquip', [record('monitorEquip', 'U-OLD', { monitorCode: 'TAKEN' })]), ['ok'])
  const blockers = Array.from({ length: 4 }, (_, i) => record('monitorEquip', `U-B${i}`))
  const gathered = [
    record('monitorEquip', 'U-1'),
    record('monitorEquip', 'U-2', { monitorCode: 'TAKEN' }),
    record('monitorEquip', 'U-3', { monitorCode: 'TWICE' }),
    record('monitorEquip', 'U-4'),
    record('monitorEquip', 'U-5', { monitorCode: 'TWICE' }),
    record('monitorEquip', 'U-OLD', { monitorCode: 'NEW-CODE' }),
    record('monitorEquip', 'U-6'),
  ]
  const answers = await addAll('monitorEquip', [...blockers, ...gathered])
  t.same(
    answers,
    ['ok', 'ok', 'ok', 'ok', 'ok', 1001, 'ok', 'ok', 1001, 1003, 'ok'],
    'the first of two adds of one value wins, in arrival order',
  )
  const { rows } = await pool.query(`SELECT id, "monitorCode" FROM monitor_equip WHERE id LIKE 'U-%' ORDER BY id`)
  t.same(
    rows.map((row) => `${row.id}:${row.monitorCode}`),
    [
      `U-1:${gathered[0].monitorCode}`,
      `U-3:TWICE`,
      `U-4:${gathered[3].monitorCode}`,
      `U-6:${gathered[6].monitorCode}`,
      ...blockers.map((each) => `${each.id}:${each.monitorCode}`),
      'U-OLD:TAKEN',
    ],
    'nothing else was written',
  )
})

t.test('a missing parent among gathered adds: that add alone is refused (1006)', async (t) => {
  const [field, parent] = PARENT_FIELD.riskEvents!
  t.same(await addAll(parent, [record(parent, 'P-1')]), ['ok'])
  const child = (id: string, parentId: string) => record('riskEvents', id, { [field]: parentId })
  const answers = await addAll('riskEvents', [
    ...Array.from({ length: 4 }, (_, i) => child(`C-B${i}`, 'P-1')),
    child('C-1', 'P-1'),
    child('C-2', 'P-MISSING'),
    child('C-3', 'P-1'),
  ])
  t.same(answers, ['ok', 'ok', 'ok', 'ok', 'ok', 1006, 'ok'])
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM risk_events WHERE id LIKE 'C-%'`)
  t.equal(rows[0].n, 6)
})

t.end()
