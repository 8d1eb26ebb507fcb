// Housekeeping on a schedule (pg-boss): expired Idempotency-Keys, revoked sessions and
// rate-limit counters are pruned, not only when a key is reused; what is still in force stays.
import { once } from 'node:events'
import { PgBoss } from 'pg-boss'
import t from 'tap'
import { HOUSEKEEPING_CRON, HOUSEKEEPING_QUEUE } from '../../src/store/housekeeping.ts'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const { pool } = service.database
const token = await service.login()

/** Keys, sessions and counters: some expired (aged by SQL, as time would), some still in force. */
async function seed(prefix: string): Promise<void> {
  for (const [i, age] of [
    [1, 'expired'],
    [2, 'live'],
  ] as const) {
    const reply = await service.call('/prevent/riskUnit/add', record('riskUnit', `${prefix}-${i}`), {
      token,
      headers: { 'Idempotency-Key': `${prefix}-key-${age}` },
    })
    t.equal(reply.body.code, 0)
  }
  const session = (await service.call('/system/login', { userName: 'admin', password: 'admin-password-for-tests' })).body.data.token
  t.equal((await service.call('/system/logout', undefined, { token: session })).body.code, 0)
  await pool.query(`UPDATE idempotency_key SET "expiresAt" = now() - interval '1 hour' WHERE key LIKE $1`, [`${prefix}-key-expired`])
  await pool.query(`INSERT INTO revoked_session (sid, "expiresAt") VALUES ($1, now() - interval '1 day'), ($2, now() + interval '1 day')`, [
    `${prefix}-old`,
    `${prefix}-new`,
  ])
  // More expired counters than one delete takes (5000): pruned in batches.
  await pool.query(
    `INSERT INTO rate_limit (key, count, "resetAt") SELECT $1 || n, 1, now() - interval '1 minute' FROM generate_series(1, 12000) AS n`,
    [`${prefix}-old-`],
  )
  await pool.query(`INSERT INTO rate_limit (key, count, "resetAt") VALUES ($1, 1, now() + interval '1 minute')`, [`${prefix}-new`])
}

const count = async (sql: string, value: string) => (await pool.query(sql, [value])).rows[0].n as number
const remaining = async (prefix: string) => ({
  keys: await count(`SELECT count(*)::int AS n FROM idempotency_key WHERE key LIKE $1 || '%'`, prefix),
  sessions: await count(`SELECT count(*)::int AS n FROM revoked_session WHERE sid LIKE $1 || '%'`, prefix),
  counters: await count(`SELECT count(*)::int AS n FROM rate_limit WHERE key LIKE $1 || '%'`, prefix),
})

t.test('a run prunes what expired and keeps what is in force', async (t) => {
  await seed('HK')
  t.same(await remaining('HK'), { keys: 2, sessions: 2, counters: 12001 })
  const pruned = await service.app.housekeeping.run()
  t.ok(pruned.idempotencyKeys >= 1 && pruned.revokedSessions >= 1 && pruned.rateLimits >= 12000, JSON.stringify(pruned))
  t.same(await remaining('HK'), { keys: 1, sessions: 1, counters: 1 })
  const replay = await service.call('/prevent/riskUnit/add', record('riskUnit', 'HK-2'), {
    token,
    headers: { 'Idempotency-Key': 'HK-key-live' },
  })
  t.equal(replay.body.code, 0, 'the live key still replays')
  t.same(await service.app.housekeeping.run(), { idempotencyKeys: 0, revokedSessions: 0, rateLimits: 0 }, 'a second run finds nothing')
})

t.test('the job is scheduled with pg-boss, and the queued job prunes', async (t) => {
  const { rows } = await pool.query(`SELECT cron FROM pgboss.schedule WHERE name = $1`, [HOUSEKEEPING_QUEUE])
  t.same(rows, [{ cron: HOUSEKEEPING_CRON }], 'every ten minutes')
  await seed('HJ')
  // Another process's pg-boss queues a run, as the schedule does; the service's worker takes it.
  const sender = new PgBoss({ connectionString: service.databaseUrl, schema: 'pgboss', max: 1, supervise: false, schedule: false })
  await sender.start()
  t.teardown(() => sender.stop({ graceful: false }))
  const ran = once(service.app.housekeeping, 'ran')
  await sender.send(HOUSEKEEPING_QUEUE, {})
  await ran
  t.same(await remaining('HJ'), { keys: 1, sessions: 1, counters: 1 })
})

t.end()
