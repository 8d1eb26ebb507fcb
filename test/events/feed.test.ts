// The event feed (docs/events.md): every business write that adds a history entry is an event of
// the same shape, numbered by seq without gaps in the order events become readable, rolled-back
// transactions and concurrent writers of two instances included; `next`, `types` and `gap` as the
// document describes them.
import t from 'tap'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'
import { ResourceRegistry } from '../../src/resources/resource-registry.ts'
import { EventStore, recordEvent } from '../../src/store/event-store.ts'
import { SyncStore } from '../../src/store/sync-store.ts'
import { eventually } from '../helpers/eventually.ts'
import { pushedRecord, record } from '../helpers/fixtures.ts'
import { startService, type TestService } from '../helpers/service.ts'

const service = await startService(t, { env: { TZ: '+08:00' } })
const token = await service.login()
const viewer = await service.userToken('viewer')

async function feed(body: Record<string, unknown>, as = token, on: TestService = service) {
  const answer = (await on.call('/system/event/list', body, { token: as })).body
  if (answer.code !== 0) throw new Error(`event/list: ${answer.msg}`)
  return answer.data as { list: any[]; next: number; gap?: true }
}

/** Every event kept, following `next` page by page. */
async function wholeFeed(on: TestService = service): Promise<any[]> {
  const events: any[] = []
  let after = 0
  for (;;) {
    const page = await feed({ after, pageSize: 1000 }, token, on)
    events.push(...page.list)
    if (page.list.length === 0) return events
    after = page.next
  }
}

const write = async (path: string, body: unknown) => t.equal((await service.call(path, body, { token })).body.code, 0, path)

t.test('an add, an update and a delete are record events shaped as their history entries; a no-op update is none', async (t) => {
  await write('/prevent/riskUnit/add', record('riskUnit', 'RU-E1'))
  await write('/prevent/riskUnit/update', { id: 'RU-E1', riskUnitName: 'Renamed' })
  await write('/prevent/riskUnit/update', { id: 'RU-E1', riskUnitName: 'Renamed' })
  await write('/prevent/riskUnit/delete', { id: 'RU-E1' })
  // Read at once after the writes: every event committed before the read is in the feed.
  const { list, next } = await feed({})
  t.same(
    list.map((event) => [event.seq, event.type]),
    [
      [1, 'record.added'],
      [2, 'record.updated'],
      [3, 'record.deleted'],
    ],
  )
  t.equal(next, 3, 'next: the last event looked at')
  const history = (await service.call('/prevent/riskUnit/history', { id: 'RU-E1' }, { token })).body.data.list.reverse()
  for (const [n, event] of list.entries()) {
    t.same(event.data, { resource: 'prevent/riskUnit', id: 'RU-E1', version: history[n].version, changes: history[n].changes })
    t.equal(event.time, history[n].time, 'the event happened when its entry did')
    t.equal(event.companyCode, service.config.companyCode)
    t.match(event.id, /^[0-9a-f-]{36}$/)
  }
})

t.test('next is the after sent when nothing newer exists; a viewer reads the feed', async (t) => {
  const { list, next } = await feed({ after: 3 }, viewer)
  t.same(list, [])
  t.equal(next, 3)
  t.equal((await feed({ after: 1000 })).next, 1000, 'an after beyond the newest comes back')
  t.equal((await service.call('/system/event/list', { pageSize: 0 }, { token })).body.code, 1002)
  t.equal((await service.call('/system/event/list', { types: ['record.nothing'] }, { token })).body.code, 1002)
})

t.test('with types, events of other types are passed over and next moves past them', async (t) => {
  await write('/prevent/riskUnit/add', record('riskUnit', 'RU-E2'))
  await write('/prevent/riskUnit/update', { id: 'RU-E2', riskUnitName: 'Again' })
  const deleted = await feed({ after: 0, types: ['record.deleted'] })
  t.same(
    deleted.list.map((event) => event.seq),
    [3],
  )
  t.equal(deleted.next, 5, 'the newest event was looked at')
  const paged = await feed({ after: 0, types: ['record.added', 'record.updated'], pageSize: 2 })
  t.same(
    paged.list.map((event) => event.seq),
    [1, 2],
  )
  t.equal(paged.next, 2, 'a full page: its last event')
})

t.test('an add-batch and a write in a rolled-back transaction leave no gap', async (t) => {
  const batch = [record('riskUnit', 'RU-B1'), record('riskUnit', 'RU-B2'), { ...record('riskUnit', 'RU-B3'), riskLevel: 'bad' }]
  t.equal((await service.call('/prevent/riskUnit/add-batch', { list: batch }, { token })).body.code, 0)
  const client = await service.database.pool.connect()
  await client.query('BEGIN')
  await recordEvent(client, { type: 'sync.failed', companyCode: '000000000', data: {} })
  await client.query('ROLLBACK')
  client.release()
  await write('/prevent/riskUnit/update', { id: 'RU-B1', riskUnitName: 'After the rollback' })
  const events = await wholeFeed()
  t.same(
    events.map((event) => event.seq),
    events.map((_, n) => n + 1),
    'seq rises by one',
  )
  t.same(
    events.slice(-3).map((event) => [event.type, event.data.id]),
    [
      ['record.added', 'RU-B1'],
      ['record.added', 'RU-B2'],
      ['record.updated', 'RU-B1'],
    ],
    'the refused item adds nothing, the rolled-back event is not numbered',
  )
})

t.test('two instances on one database writing at once: one feed, without gaps, each record in its order', async (t) => {
  const second = await startService(t, { databaseUrl: service.databaseUrl, env: { TZ: '+08:00' } })
  const secondToken = await second.login()
  const writes: Promise<unknown>[] = []
  for (let n = 0; n < 40; n++) {
    const [on, as] = n % 2 === 0 ? [service, token] : [second, secondToken]
    const id = `RU-C${n}`
    writes.push(
      (async () => {
        await on.call('/prevent/riskUnit/add', record('riskUnit', id), { token: as })
        await on.call('/prevent/riskUnit/update', { id, riskUnitName: `first ${n}` }, { token: as })
        await on.call('/prevent/riskUnit/update', { id, riskUnitName: `second ${n}` }, { token: as })
      })(),
    )
  }
  await Promise.all(writes)
  const [one, other] = [await wholeFeed(), await wholeFeed(second)]
  t.same(
    one.map((event) => event.seq),
    one.map((_, n) => n + 1),
    'seq rises by one',
  )
  t.same(other, one, 'both instances read the same feed')
  for (let n = 0; n < 40; n++) {
    const versions = one.filter((event) => event.data.id === `RU-C${n}`).map((event) => event.data.version)
    t.same(versions, [1, 2, 3], `RU-C${n} in its order`)
  }
})

t.test('the sequencer vacuums the inbox it numbers events out of', async (t) => {
  const vacuums = async () =>
    Number(
      (await service.database.pool.query(`SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'event_inbox'`)).rows[0]
        .vacuum_count,
    )
  const before = await vacuums()
  let n = 0
  // At most once a second: each round writes and reads (which numbers the write) until one does.
  await eventually(
    async () => {
      await write('/prevent/riskUnit/add', record('riskUnit', `RU-V${++n}`))
      await feed({ pageSize: 1 })
      return (await vacuums()) > before
    },
    { what: 'a vacuum of the inbox' },
  )
  t.equal(Number((await service.database.pool.query('SELECT count(*) AS n FROM event_inbox')).rows[0].n), 0, 'every event numbered')
})

t.test('an after below the oldest kept minus one answers from the oldest with gap', async (t) => {
  await service.database.pool.query(`UPDATE event SET time = now() - interval '40 days' WHERE seq <= 3`)
  t.equal(await new EventStore({ pool: service.database.pool }).prune(30), 3)
  const gap = await feed({ after: 1, pageSize: 1 })
  t.equal(gap.gap, true)
  t.equal(gap.list[0].seq, 4, 'from the oldest kept')
  t.notOk('gap' in (await feed({ after: 3, pageSize: 1 })), 'the oldest kept minus one: no gap')
  t.notOk('gap' in (await feed({ pageSize: 1 })), 'no after: from the oldest kept')
  t.equal((await feed({ pageSize: 1 })).list[0].seq, 4)
})

t.test('a record whose push ends failed is a sync.failed event', async (t) => {
  await write('/prevent/riskUnit/add', record('riskUnit', 'RU-F1'))
  const { document } = loadOpenApi()
  const registry = new ResourceRegistry(document)
  const sync = new SyncStore({ pool: service.database.pool, registry })
  await sync.settle(registry.get('riskUnit'), [{ id: 'RU-F1', version: 1, held: null, error: 'refused by the park' }])
  const { list } = await feed({ types: ['sync.failed'] })
  t.same(
    list.map((event) => event.data),
    [{ resource: 'prevent/riskUnit', id: 'RU-F1', version: 1, error: 'refused by the park' }],
  )
})

t.test('the park: applied pushes are events, and an enterprise account reads its own only', async (t) => {
  const park = await startService(t, { env: { EDITION: 'park', TZ: '+08:00' } })
  const parkToken = await park.login()
  for (const companyCode of ['111111111', '222222222']) {
    const added = await park.call(
      '/system/user/add',
      { userName: `ent-${companyCode}`, password: `password-${companyCode}`, role: 'enterprise', companyCode },
      { token: parkToken },
    )
    t.equal(added.body.code, 0)
  }
  const push = async (item: Record<string, unknown>) => {
    const reply = await park.call('/system/push/records', { resource: 'riskUnit', list: [item] }, { token: parkToken })
    t.equal(reply.body.code, 0)
  }
  await push(pushedRecord('riskUnit', 'RU-P1', { companyCode: '111111111', version: 3 }))
  await push(pushedRecord('riskUnit', 'RU-P1', { companyCode: '111111111', version: 5, fields: { riskUnitName: 'Pushed again' } }))
  await push(pushedRecord('riskUnit', 'RU-P1', { companyCode: '111111111', version: 4 }))
  await push(pushedRecord('riskUnit', 'RU-P2', { companyCode: '222222222', version: 2, deleted: true }))
  const all = (await feed({}, parkToken, park)).list
  t.same(
    all.map((event) => [event.seq, event.type, event.companyCode, event.data.id, event.data.version]),
    [
      [1, 'record.added', '111111111', 'RU-P1', 3],
      [2, 'record.updated', '111111111', 'RU-P1', 5],
      [3, 'record.deleted', '222222222', 'RU-P2', 2],
    ],
    'the first hold is an add, a late older version is none, a first-arriving tombstone is a delete alone',
  )
  t.same(all[1].data.changes, { riskUnitName: [record('riskUnit', 'x').riskUnitName, 'Pushed again'] })
  const own = await park.login('ent-222222222', 'password-222222222')
  const mine = await feed({}, own, park)
  t.same(
    mine.list.map((event) => event.seq),
    [3],
  )
  t.equal(mine.next, 3)
})

t.end()
