// While nothing answers for the park, the push looks at its liveness every SYNC_PARK_PROBE_MS:
// a park coming back (or starting after its enterprise) is fed at once, not after the backoff; a
// park that answers but refuses the pushes is knocked on at the backoff's pace only.
import pg from 'pg'
import t from 'tap'
import { chaosProxy } from '../helpers/chaos-proxy.ts'
import { record } from '../helpers/fixtures.ts'
import {
  allSynced,
  eventually,
  holdBackoffAndSweep,
  holdSweep,
  loginTo,
  post,
  pushingTo,
  startEdition,
  startParkProcess,
} from '../helpers/park.ts'
import { startService } from '../helpers/service.ts'

const park = await startParkProcess(t)

async function pushJobs(db: pg.Pool): Promise<{ state: string; retry_count: number }[]> {
  return (await db.query(`SELECT state, retry_count FROM pgboss.job WHERE name = 'park-push' ORDER BY created_on`)).rows
}

/** How often the push's jobs have run, at most: each job that started, once plus once per retry. */
async function pushJobRuns(db: pg.Pool): Promise<number> {
  const { rows } = await db.query(
    `SELECT coalesce(sum(retry_count + 1), 0)::int AS runs FROM pgboss.job WHERE name = 'park-push' AND started_on IS NOT NULL`,
  )
  return rows[0].runs
}

t.test('a park back after an outage is fed at once, long before the backoff would retry', async (t) => {
  await park.stop()
  const enterprise = await startService(t, {
    env: pushingTo(park.url, { SYNC_RETRY_DELAY_MAX_SECONDS: '3600' }),
  })
  const push = enterprise.app.push!
  const db = enterprise.database.pool
  const token = await enterprise.login()
  for (let batch = 0; batch < 4; batch++) {
    const list = Array.from({ length: 500 }, (_, i) => record('riskUnit', `RU-PROBE-${batch * 500 + i}`))
    t.equal((await enterprise.call('/prevent/riskUnit/add-batch', { list }, { token })).body.code, 0)
  }
  await eventually(async () => (await pushJobs(db)).some((job) => job.state === 'retry'), { what: 'the failed drain queued for a retry' })
  await holdBackoffAndSweep(db)
  await eventually(() => push.probe.looks.failed > 0, { what: 'the probe finding the park unreachable' })
  t.equal(push.stats.probeDrains, 0, 'no drain started by the probe while the park is down')
  t.notOk(await allSynced(enterprise.url, token), 'the records pending')

  const starting = park.start()
  const listening = await eventually(async () => (await fetch(`${park.url}/health/live`).catch(() => undefined))?.ok && Date.now(), {
    everyMs: 10,
    timeoutMs: 120_000,
    what: 'the park listening',
  })
  const drained = await eventually(() => push.stats.probeDrains > 0 && Date.now(), { everyMs: 10, what: 'the probe starting a drain' })
  await starting
  await eventually(() => allSynced(enterprise.url, token), { everyMs: 20, timeoutMs: 30_000, what: 'the backlog synced' })
  t.comment(`drain started ${drained - listening} ms after the park listened; all synced ${Date.now() - listening} ms after`)
  t.equal(push.stats.probeDrains, 1, 'one drain started by the probe')
  t.ok(push.stats.acknowledged >= 2000, `${push.stats.acknowledged} records acknowledged`)
  // The records are synced before their drain ends (it pushes the other kinds after them).
  t.ok(await eventually(() => !push.probe.running, { what: 'the probe stopped' }), 'the probe stops once a drain succeeded')
  t.same(
    (await pushJobs(db)).map((job) => job.state),
    ['cancelled'],
    'the backoff’s retry never ran: the probe fed the park, and its drain going through ended the retry job',
  )
})

t.test('a park that answers but refuses the login is knocked on at the backoff’s pace, not the probe’s', async (t) => {
  const proxy = await chaosProxy(park.url)
  t.after(() => proxy.close())
  proxy.down = true
  const enterprise = await startService(t, {
    // Looks ten times a second: a probe knocking at its own pace would be plain against the backoff's.
    env: {
      PARK_URL: proxy.url,
      PARK_USER: 'admin',
      PARK_PASSWORD: 'not-the-password',
      SYNC_RETRY_DELAY_MAX_SECONDS: '3600',
      SYNC_PARK_PROBE_MS: '100',
    },
  })
  const push = enterprise.app.push!
  const db = enterprise.database.pool
  // The sweep's schedule drains what is pending each minute: a knock at its own pace, not counted here.
  await holdSweep(db)
  const token = await enterprise.login()
  t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-REFUSED'), { token })).body.code, 0)
  await eventually(() => push.probe.looks.failed > 0, { what: 'the probe finding the park unreachable (a gateway’s 502)' })
  const logins = () => proxy.requests.get('/system/login') ?? 0
  const loginsWhileDown = logins()

  proxy.down = false
  await eventually(() => push.stats.probeDrains === 1 && !push.probe.running, { what: 'the probe’s drain refused, the probe stopped' })
  const looksAtRefusal = push.probe.looks.answered
  // The backoff's retries: 1 s, 2 s, 4 s after the first failure; the probe would have looked dozens of times meanwhile.
  await eventually(async () => (await pushJobs(db)).some((job) => job.retry_count >= 3), {
    timeoutMs: 60_000,
    what: 'three retries of the backoff',
  })
  // Read before the retries: a retry is counted as it starts, before it logs in.
  const knocks = logins() - loginsWhileDown
  // The probe's drain failing left the next attempt to the job retrying: its runs count.
  const runs = await pushJobRuns(db)
  // What the backoff allows since the park answers: the jobs' runs, and one drain on its return.
  t.ok(knocks >= 1, `the park's refusal was met (${knocks} logins once it answered)`)
  t.ok(knocks <= runs + 1, `${knocks} logins once the park answered: the probe's drain and the jobs' ${runs} runs at most`)
  t.equal(push.stats.probeDrains, 1, 'the probe started one drain, on the park coming back')
  t.equal(push.probe.looks.answered, looksAtRefusal, 'no look at the park since it answered')
  const { rows } = await db.query(`SELECT sync_status, sync_error FROM risk_unit WHERE id = 'RU-REFUSED'`)
  t.equal(rows[0].sync_status, 'pending', 'still pending: attempts counted at the backoff’s pace')
  t.match(rows[0].sync_error, /login refused/)
})

t.test('an enterprise started before its park: the start-up push fails, and the backlog drains once the park listens', async (t) => {
  await park.stop()
  const env = pushingTo(park.url, { SYNC_RETRY_DELAY_MAX_SECONDS: '3600' })
  const enterprise = await startEdition(t, { edition: 'enterprise', env })
  const token = await loginTo(enterprise.url)
  for (let batch = 0; batch < 2; batch++) {
    const list = Array.from({ length: 500 }, (_, i) => record('riskUnit', `RU-START-${batch * 500 + i}`))
    t.equal((await post(`${enterprise.url}/prevent/riskUnit/add-batch`, { list }, token)).code, 0)
  }
  t.equal(await enterprise.stop(), 0, 'stopped gracefully')
  const db = new pg.Pool({ connectionString: enterprise.databaseUrl, max: 1 })
  t.after(() => db.end())
  await db.query(`UPDATE pgboss.job SET start_after = now() + interval '1 hour' WHERE name = 'park-push' AND state IN ('created', 'retry')`)

  // Started again with its park still down: the start-up sweep fails.
  await enterprise.start()
  await holdBackoffAndSweep(db)
  const again = await loginTo(enterprise.url)
  const metric = async (name: string) => {
    const text = await (await fetch(`${enterprise.url}/metrics`)).text()
    return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1])
  }
  await eventually(async () => (await metric('park_push_call_failures_total')) > 0, { what: 'the start-up push failing' })
  t.equal(await metric('park_push_probe_drains_total'), 0)

  const starting = park.start()
  const listening = await eventually(async () => (await fetch(`${park.url}/health/live`).catch(() => undefined))?.ok && Date.now(), {
    everyMs: 10,
    timeoutMs: 120_000,
    what: 'the park listening',
  })
  await starting
  const synced = await eventually(async () => (await allSynced(enterprise.url, again)) && Date.now(), {
    everyMs: 20,
    timeoutMs: 30_000,
    what: 'the backlog synced',
  })
  t.comment(`all synced ${synced - listening} ms after the park listened`)
  t.equal(await metric('park_push_probe_drains_total'), 1, 'fed by the probe')
  t.equal(await metric('park_push_records_acknowledged_total'), 1001, 'the records and the enterprise zone')
  t.equal(await enterprise.stop(), 0, 'stops cleanly with the probe ended')
})

/**
 * With the park away: an enterprise allowed one attempt per record (and these other settings), 30
 * records `<prefix>-<i>` written in one batch and failed, the backoff's retries and the sweep held.
 */
async function failedWhileAway(t: Parameters<typeof startService>[0], prefix: string, settings: Record<string, string>) {
  await park.stop()
  const enterprise = await startService(t, {
    env: pushingTo(park.url, { SYNC_RETRY_LIMIT: '0', SYNC_RETRY_DELAY_MAX_SECONDS: '3600', ...settings }),
  })
  const db = enterprise.database.pool
  const token = await enterprise.login()
  const list = Array.from({ length: 30 }, (_, i) => record('riskUnit', `${prefix}-${i}`))
  const written = (await enterprise.call('/prevent/riskUnit/add-batch', { list }, { token })).body.code
  if (written !== 0) throw new Error(`the batch of ${prefix} answered ${written}`)
  const failed = async () =>
    (await db.query(`SELECT count(*)::int AS n FROM risk_unit WHERE id LIKE $1 AND sync_status = 'failed'`, [`${prefix}-%`])).rows[0].n
  await eventually(async () => (await failed()) === 30, { what: 'every record failed, its one attempt spent' })
  await holdBackoffAndSweep(db)
  return { written, enterprise, push: enterprise.app.push!, db, token, allFailed: async () => (await failed()) === 30 }
}

t.test(
  'records whose retries ran out while the park was away: never given up on by the sweep, and pushed at once when it is back',
  async (t) => {
    // One round: any refusal would be final after a single sweep.
    const { written, enterprise, push, db, token, allFailed } = await failedWhileAway(t, 'RU-AWAY', { SYNC_FAILED_REQUEUE_ROUNDS: '1' })
    t.equal(written, 0)
    const states = async () =>
      (await db.query(`SELECT sync_rounds, sync_error FROM risk_unit WHERE id LIKE 'RU-AWAY-%'`)).rows as {
        sync_rounds: number
        sync_error: string
      }[]
    for (const row of await states()) t.match(row.sync_error, /^not delivered: park unreachable/)

    // Three sweeps while the park is away, each after the records rested: queued again every time, no round counted.
    for (let sweep = 0; sweep < 3; sweep++) {
      await db.query(`UPDATE risk_unit SET sync_time = now() - interval '1 hour' WHERE id LIKE 'RU-AWAY-%'`)
      await push.sweep()
      const { rows } = await db.query(
        `SELECT bool_and(sync_time > now() - interval '1 minute') AS again FROM risk_unit WHERE id LIKE 'RU-AWAY-%'`,
      )
      t.ok(rows[0].again && (await allFailed()), `sweep ${sweep + 1}: every record pushed again, and failed again`)
    }
    t.same([...new Set((await states()).map((row) => row.sync_rounds))], [0], 'no round counted: they are not given up on')
    t.equal((await enterprise.call('/system/sync/status', {}, { token })).body.data.failedExhausted, 0)

    // Neither the backoff's retries nor the sweep run now: only the park's return explains them going.
    await park.start()
    await eventually(() => allSynced(enterprise.url, token), { timeoutMs: 30_000, what: 'every record synced' })
    t.equal(push.stats.probeDrains, 1, 'fed by the probe')
  },
)

t.test(
  'any drain whose calls succeed after failed ones (here the sweep’s, the probe slow) pushes the records whose retries ran out, unrested',
  async (t) => {
    const { written, enterprise, push, token } = await failedWhileAway(t, 'RU-BACK', {
      SYNC_FAILED_RETRY_SECONDS: '3600',
      SYNC_PARK_PROBE_MS: '60000',
    })
    t.equal(written, 0)

    await park.start()
    // A write while the park is known down waits (writes do not knock); the sweep pushes it. Its own
    // re-queue takes none of the failed records (they rest an hour): its drain's success does.
    t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-BACK-NEW'), { token })).body.code, 0)
    await push.sweep()
    await eventually(() => allSynced(enterprise.url, token), { timeoutMs: 30_000, what: 'every record synced' })
    t.equal(push.stats.probeDrains, 0, 'not the probe’s doing')
  },
)

t.end()
