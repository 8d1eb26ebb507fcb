// Database connections terminated (pg_terminate_backend) again and again during writes and pushes:
// refused writes are not acknowledged, acknowledged ones all reach the park.

import pg from 'pg'
import t from 'tap'
import { eventually, pace } from '../helpers/eventually.ts'
import { record } from '../helpers/fixtures.ts'
import { assertConverged, loginTo, startParkProcess, writeLoad } from '../helpers/park.ts'
import { ADMIN_PASSWORD, adminDatabaseUrl, startService } from '../helpers/service.ts'

const park = await startParkProcess(t)
const enterprise = await startService(t, {
  env: { PARK_URL: park.url, PARK_USER: 'admin', PARK_PASSWORD: ADMIN_PASSWORD, SYNC_RETRY_DELAY_MAX_SECONDS: '1' },
})
const token = await enterprise.login()
const databaseName = new URL(enterprise.databaseUrl).pathname.slice(1)

/** Every connection of the enterprise's database is cut this often while the writes run. */
const CUT_EVERY_MS = 150

t.test('connections cut during pushes: the park still converges', async (t) => {
  const killer = new pg.Client({ connectionString: adminDatabaseUrl() })
  await killer.connect()
  t.teardown(() => killer.end())
  let stop = false
  let terminated = 0
  const cutting = (async () => {
    while (!stop) {
      const { rowCount } = await killer.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [databaseName],
      )
      terminated += rowCount ?? 0
      // The fault's rhythm: connections made again live a moment, so that writes get through between cuts.
      await pace(CUT_EVERY_MS)
    }
  })()
  let writes = 0
  // 800 writes, or 30 s of them: on a machine busy with other tests, each write cut again and again
  // can take seconds, and the 800 would outlast the file's time limit.
  const loadEnds = Date.now() + 30_000
  const load = await writeLoad(() => enterprise.url, token, {
    prefix: 'CUT',
    concurrency: 6,
    until: () => writes++ >= 800 || Date.now() > loadEnds,
  })
  stop = true
  await cutting
  t.ok(terminated > 0, `${terminated} connections terminated`)
  t.ok(load.added.size > 0, `${load.added.size} writes acknowledged`)
  await enterprise.app.push!.sweep()
  await assertConverged(t, { url: enterprise.url, token }, { url: park.url, token: await loginTo(park.url) }, load)
})

t.test('the database closed to connections: writes answer 503/4001; reopened, the next write is pushed at once', async (t) => {
  const admin = new pg.Client({ connectionString: adminDatabaseUrl() })
  await admin.connect()
  t.teardown(() => admin.end())
  const push = enterprise.app.push!
  await push.sweep()
  await admin.query(`ALTER DATABASE "${databaseName}" ALLOW_CONNECTIONS false`)
  try {
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [databaseName])
    const refused = await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-CLOSED'), { token })
    t.same([refused.status, refused.body.code], [503, 4001], refused.body.msg)
    // A drain now fails on the database, and its retry job cannot be queued either.
    await push.wake()
  } finally {
    await admin.query(`ALTER DATABASE "${databaseName}" ALLOW_CONNECTIONS true`)
  }
  // Asked again while the pool reconnects (its first answers may still be 4001).
  const added = await eventually(
    async () => {
      const reply = await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-REOPENED'), { token })
      return reply.body.code !== 4001 && reply
    },
    { what: 'the database open again' },
  )
  t.equal(added.body.code, 0, added.body.msg)
  // The write woke a drain (not left to the next minute's sweep): it has ended once this settles.
  await push.wake()
  const pushed = await enterprise.call('/prevent/riskUnit/getById', { id: 'RU-REOPENED' }, { token })
  t.equal(pushed.body.data.sync_status, 'synced')
})

t.end()
