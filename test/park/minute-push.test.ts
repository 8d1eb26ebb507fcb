// The push of readings' minutes ends even while readings keep noting minutes again: it takes the
// minutes noted before it started, and leaves the others for the next drain.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'
import { MinutePush } from '../../src/park/minute-push.ts'
import { ChangedMinutes } from '../../src/store/minute-store.ts'

const enterprise = await startService(t)
const token = await enterprise.login()
const pool = enterprise.database.pool
const call = async (path: string, body: unknown) => {
  const answer = (await enterprise.call(path, body, { token })).body
  if (answer.code !== 0) throw new Error(`${path} answered ${answer.code}: ${answer.msg}`)
  return answer.data
}

// 1 500 minutes of readings (more than a call carries), each minute noted for the push.
await call(
  '/hazard/monitorEquip/add',
  record('monitorEquip', 'MP-1', { oneLevelHigh: '', twoLevelHigh: '', oneLevelLow: '', twoLevelLow: '' }),
)
const start = Math.floor(Date.now() / 60_000) * 60_000 - 1500 * 60_000
const list = Array.from({ length: 1500 }, (_, minute) => ({
  monitorEquipId: 'MP-1',
  time: new Date(start + minute * 60_000).toISOString(),
  value: String(minute),
}))
t.equal((await call('/hazard/monitorData/add-batch', { list })).accepted, 1500)
await pool.query(`INSERT INTO monitor_minute_changed (point, minute) SELECT DISTINCT point, time - time % 60 FROM monitor_reading`)
const waiting = async () => (await pool.query(`SELECT count(*)::int AS n FROM monitor_minute_changed`)).rows[0].n
t.equal(await waiting(), 1500)

t.test('every minute noted again while its call is on the way: the drain ends after the minutes it began with', async (t) => {
  const pushed: number[] = []
  const client = {
    async pushReadings(items: unknown[]) {
      pushed.push(items.length)
      // Readings arriving meanwhile note every minute again.
      await pool.query(`UPDATE monitor_minute_changed SET change = nextval('monitor_minute_change')`)
      return { applied: items.length, failed: [] }
    },
  }
  const push = new MinutePush({ minutes: new ChangedMinutes({ pool, companyCode: '000000000' }), client, log: enterprise.app.fastify.log })
  await push.drain()
  t.same(pushed, [1000], 'one call: the other 500 were noted again by then, after the drain began')
  t.equal(await waiting(), 1500, 'every minute noted again waits for the next drain')
})

t.test('a drain with nothing noted meanwhile forgets every minute it pushed', async (t) => {
  const pushed: number[] = []
  const client = {
    async pushReadings(items: unknown[]) {
      pushed.push(items.length)
      return { applied: items.length, failed: [] }
    },
  }
  const push = new MinutePush({ minutes: new ChangedMinutes({ pool, companyCode: '000000000' }), client, log: enterprise.app.fastify.log })
  await push.drain()
  t.same(pushed, [1000, 500])
  t.equal(await waiting(), 0)
})

t.end()
