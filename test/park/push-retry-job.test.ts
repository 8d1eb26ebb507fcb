// The push has one backoff: pg-boss's retries of one `park-push` job at a time. A drain that fails
// while that job waits (one the probe started on the park's return, an operator's) leaves the next
// attempt to the job; a drain that goes through ends the wait, and the job with it, so the next
// outage starts one job again.
import t from 'tap'
import { chaosProxy } from '../helpers/chaos-proxy.ts'
import { record } from '../helpers/fixtures.ts'
import { allSynced, eventually, holdBackoffAndSweep, pushingTo, startParkProcess, unendedPushJobs } from '../helpers/park.ts'
import { startService } from '../helpers/service.ts'

const park = await startParkProcess(t)

/**
 * An enterprise pushing through a proxy that is down (a gateway's 502): its one write failed, the
 * retry job's first run failed too (it waits out its backoff, in pg-boss's `retry` state), and is
 * held an hour, the sweep with it.
 */
async function failedBehindProxy(t: Parameters<typeof startService>[0], id: string, settings: Record<string, string>) {
  const proxy = await chaosProxy(park.url)
  t.after(() => proxy.close())
  proxy.down = true
  const enterprise = await startService(t, {
    env: pushingTo(proxy.url, { SYNC_RETRY_DELAY_MAX_SECONDS: '3600', SYNC_PARK_PROBE_MS: '100', ...settings }),
  })
  const push = enterprise.app.push!
  const db = enterprise.database.pool
  const token = await enterprise.login()
  const written = (await enterprise.call('/prevent/riskUnit/add', record('riskUnit', id), { token })).body.code
  if (written !== 0) throw new Error(`the write of ${id} answered ${written}`)
  await eventually(async () => (await unendedPushJobs(db)).retry === 1 && push.probe.looks.failed > 0, {
    what: 'the retry job’s first run failed, the probe watching',
  })
  await holdBackoffAndSweep(db)
  return { proxy, enterprise, push, db, token }
}

t.test('a drain the probe started, refused while the retry job waits, queues no second job; nor does an operator’s', async (t) => {
  const { proxy, push, db } = await failedBehindProxy(t, 'RU-ONE-JOB', { PARK_PASSWORD: 'not-the-password' })

  // The park answers its liveness again but refuses the login: the probe's drain fails.
  proxy.down = false
  await eventually(() => push.stats.probeDrains === 1 && !push.probe.running, { what: 'the probe’s drain refused' })
  // Joins the wake loop of that drain if it still runs: once this settles, its failure was dealt with.
  await push.wake()
  t.equal((await unendedPushJobs(db)).total, 1, 'the job already waiting, and no other')

  const failedCalls = push.stats.failedCalls
  push.retryNow()
  await push.wake()
  t.ok(push.stats.failedCalls > failedCalls, 'the operator’s drain was refused too')
  t.equal((await unendedPushJobs(db)).total, 1, 'still the one job')
})

t.test('a drain that goes through ends the waiting retry job: the next outage queues one job, not a second', async (t) => {
  const { proxy, enterprise, push, db, token } = await failedBehindProxy(t, 'RU-ENDED-1', {})

  proxy.down = false
  await eventually(() => allSynced(enterprise.url, token), { what: 'the probe’s drain delivering the record' })
  // A drain after the probe's: once this settles, the probe's has ended.
  await push.wake()
  t.equal((await unendedPushJobs(db)).total, 0, 'the retry job ended with the outage')

  proxy.down = true
  t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-ENDED-2'), { token })).body.code, 0)
  // Joins the write's drain if it still runs: once this settles, its failure was dealt with.
  await push.wake()
  t.equal((await unendedPushJobs(db)).total, 1, 'one retry job for the new outage')
})

t.end()
