// The push of readings' minutes: pages of at most a call's worth, every minute of a long backlog
// pushed once, a drain ending even while readings keep noting minutes, and a reading stored while
// its minute's aggregate is on the way pushed again by the next drain.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'
import { INTERVAL_MS, MinutePush } from '../../src/park/minute-push.ts'
import { ChangedMinutes } from '../../src/store/minute-store.ts'
import { readingSecond } from '../../src/store/reading-store.ts'

const enterprise = await startService(t)
const token = await enterprise.login()
const pool = enterprise.database.pool
const call = async (path: string, body: unknown) => {
  const answer = (await enterprise.call(path, body, { token })).body
  if (answer.code !== 0) throw new Error(`${path} answered ${answer.code}: ${answer.msg}`)
  return answer.data
}

for (const id of ['MP-1', 'MP-2'])
  await call(
    '/hazard/monitorEquip/add',
    record('monitorEquip', id, { oneLevelHigh: '', twoLevelHigh: '', oneLevelLow: '', twoLevelLow: '' }),
  )
const start = Math.floor(Date.now() / 60_000) * 60_000 - 1500 * 60_000
const reading = (monitorEquipId: string, minute: number, value: string) => ({
  monitorEquipId,
  time: new Date(start + minute * 60_000).toISOString(),
  value,
})
// 1 500 minutes of MP-1 (more than a call carries) and three of MP-2.
t.equal(
  (
    await call('/hazard/monitorData/add-batch', {
      list: Array.from({ length: 1500 }, (_, minute) => reading('MP-1', minute, String(minute))),
    })
  ).accepted,
  1500,
)
t.equal((await call('/hazard/monitorData/add-batch', { list: [0, 700, 1499].map((minute) => reading('MP-2', minute, '5')) })).accepted, 3)
// This service has no park: the test notes the minutes as an ingest with a park would.
await pool.query(`UPDATE monitor_point p SET "pushFrom" = (SELECT min(time - time % 60) FROM monitor_reading r WHERE r.point = p.point)`)
const waiting = async () =>
  (await pool.query(`SELECT count(*)::int AS n FROM monitor_point WHERE "pushFrom" IS NOT NULL OR "pushTaken" IS NOT NULL`)).rows[0].n
t.equal(await waiting(), 2)

type Item = { monitorEquipId: string; minute: string; count: number; last: string }
const recording = (during?: (items: Item[]) => Promise<void>) => {
  const calls: Item[][] = []
  return {
    calls,
    client: {
      async pushReadings(items: unknown[]) {
        calls.push(items as Item[])
        await during?.(items as Item[])
        return { applied: items.length, failed: [] }
      },
    },
  }
}
const minutePush = (client: ConstructorParameters<typeof MinutePush>[0]['client'], clock?: () => number) =>
  new MinutePush({ minutes: new ChangedMinutes({ pool, companyCode: '000000000' }), client, log: enterprise.app.fastify.log, clock })

t.test('a backlog goes in calls of at most 1 000 minutes, every minute once, in point and minute order', async (t) => {
  const { calls, client } = recording()
  await minutePush(client).drain()
  t.ok(
    calls.every((items) => items.length <= 1000),
    'no call above 1 000',
  )
  const pushed = calls.flat()
  t.equal(pushed.length, 1503)
  t.same(
    pushed.filter((item) => item.monitorEquipId === 'MP-1').map((item) => Date.parse(item.minute)),
    Array.from({ length: 1500 }, (_, minute) => start + minute * 60_000),
  )
  t.same(
    pushed.filter((item) => item.monitorEquipId === 'MP-2').map((item) => [Date.parse(item.minute), item.count, item.last]),
    [0, 700, 1499].map((minute) => [start + minute * 60_000, 1, '5']),
  )
  t.equal(await waiting(), 0, 'nothing waits once the park answered')
})

t.test('readings stored while a drain runs: it ends, and the next drain pushes their minutes', async (t) => {
  await pool.query(`UPDATE monitor_point SET "pushFrom" = (SELECT min(time - time % 60) FROM monitor_reading)`)
  let added = false
  const { calls, client } = recording(async () => {
    if (added) return
    added = true
    // A late reading of an early minute of MP-1, stored while the first call is on the way.
    await call('/hazard/monitorData/add-batch', { list: [{ ...reading('MP-1', 0, '9'), time: new Date(start + 30_000).toISOString() }] })
    await pool.query(`UPDATE monitor_point SET "pushFrom" = least("pushFrom", $1) WHERE "monitorEquipId" = 'MP-1'`, [readingSecond(start)])
  })
  await minutePush(client).drain()
  t.equal(calls.flat().length, 1503, 'the drain pushed what it claimed, and ended')
  t.equal(await waiting(), 1, 'the minute changed meanwhile waits')
  const next = recording()
  await minutePush(next.client).drain()
  const first = next.calls.flat().find((item) => Date.parse(item.minute) === start)
  t.match(first, { monitorEquipId: 'MP-1', count: 2, last: '9' }, 'its aggregate counts the late reading')
  t.equal(await waiting(), 0)
})

t.test('a call the park did not judge releases nothing', async (t) => {
  await pool.query(`UPDATE monitor_point SET "pushFrom" = (SELECT min(time - time % 60) FROM monitor_reading)`)
  const failing = {
    async pushReadings(): Promise<never> {
      throw new Error('park unreachable')
    },
  }
  await t.rejects(minutePush(failing).drain(), /park unreachable/)
  t.equal(await waiting(), 2)
  const { calls, client } = recording()
  await minutePush(client).drain()
  t.equal(calls.flat().length, 1503)
  t.equal(await waiting(), 0)
})

t.test('drains start at most every interval: one held back answers when to come again, and pushes nothing', async (t) => {
  let now = 1_000_000
  const { calls, client } = recording()
  const push = minutePush(client, () => now)
  await pool.query(`UPDATE monitor_point SET "pushFrom" = (SELECT min(time - time % 60) FROM monitor_reading)`)
  t.equal(await push.drain(), undefined)
  t.equal(calls.flat().length, 1503)
  await pool.query(`UPDATE monitor_point SET "pushFrom" = (SELECT max(time - time % 60) FROM monitor_reading)`)
  now += 2_000
  t.equal(await push.drain(), INTERVAL_MS - 2_000, 'held back')
  t.equal(calls.flat().length, 1503, 'nothing pushed')
  t.equal(await waiting(), 2)
  now += INTERVAL_MS - 2_000
  t.equal(await push.drain(), undefined)
  t.equal(calls.flat().length, 1505, 'the last minute of each point')
  t.equal(await waiting(), 0)
})

t.end()
