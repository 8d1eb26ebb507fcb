// Time in the push, driven deterministically (no waiting out delays): a failed drain is retried
// after a backoff, released here by backdating it; a drain whose process died is reclaimed by the
// supervisor once its expiry passed, here by backdating its start and running the supervisor.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually, startParkProcess } from '../helpers/park.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const park = await startParkProcess(t)
await park.stop()
// A long backoff: the test must not wait for it, it moves the job's time instead.
const enterprise = await startService(t, {
  env: {
    PARK_URL: park.url,
    PARK_USER: 'admin',
    PARK_PASSWORD: ADMIN_PASSWORD,
    SYNC_RETRY_DELAY_MAX_SECONDS: '3600',
    SYNC_JOB_EXPIRE_SECONDS: '30',
  },
})
const token = await enterprise.login()
const db = enterprise.database.pool
const pushJobs = async (state: string) =>
  (
    await db.query(
      `SELECT id, retry_count, start_after > now() AS deferred, retry_backoff FROM pgboss.job WHERE name = 'park-push' AND state = $1`,
      [state],
    )
  ).rows

t.test('a drain that failed is retried after a backoff, not at once', async (t) => {
  t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-T1'), { token })).body.code, 0)
  const [retry] = await eventually(
    async () => {
      const jobs = await pushJobs('retry')
      return jobs.length > 0 && jobs
    },
    { what: 'the failed drain queued for a retry' },
  )
  t.equal(retry.retry_backoff, true, 'exponential backoff')
  t.equal(retry.deferred, true, 'not before its backoff has passed')
  // The park is back; instead of waiting out the backoff, the retry's time is moved to now.
  await park.start()
  await db.query(`UPDATE pgboss.job SET start_after = now() WHERE id = $1`, [retry.id])
  await eventually(async () => (await db.query(`SELECT sync_status FROM risk_unit WHERE id = 'RU-T1'`)).rows[0].sync_status === 'synced', {
    what: 'the retried drain delivering the record',
  })
  t.pass('delivered by the retried drain')
})

t.test('a drain whose process died is reclaimed by the supervisor when its expiry has passed', async (t) => {
  // A drain claimed by a process that died: active, started long ago, never finished. (Its own
  // singleton key: the stately queue allows one active job per key, and a live drain may be running.)
  const { rows } = await db.query(
    `INSERT INTO pgboss.job (name, data, state, started_on, expire_seconds, retry_limit, retry_backoff, policy, singleton_key)
     VALUES ('park-push', '{}', 'active', now() - interval '1 hour', 30, 10, true, 'stately', 'dead-drain') RETURNING id`,
  )
  // pg-boss monitors a queue at most once per interval, whichever instance sharing the database did
  // it last (housekeeping's too): the queue is made due now, as pg-boss's own tests backdate times.
  await db.query(`UPDATE pgboss.queue SET monitor_on = now() - interval '1 week', monitor_claim_on = NULL WHERE name = 'park-push'`)
  await enterprise.app.push!.supervise()
  const [reclaimed] = (await db.query(`SELECT state, output FROM pgboss.job WHERE id = $1`, [rows[0].id])).rows
  t.not(reclaimed.state, 'active', `no longer held by the dead process (${reclaimed.state})`)
  t.match(JSON.stringify(reclaimed.output), /timed out/)
})

t.end()
