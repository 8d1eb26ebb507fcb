// The enterprise killed with SIGKILL in the middle of a write load, then restarted: every write it
// acknowledged reaches the park (the pending state was committed with the write).

import pg from 'pg'
import t from 'tap'
import { assertConverged, eventually, loginTo, startEdition, startParkProcess, writeLoad } from '../helpers/park.ts'
import { ADMIN_PASSWORD } from '../helpers/service.ts'

const park = await startParkProcess(t)
const enterprise = await startEdition(t, {
  edition: 'enterprise',
  env: { PARK_URL: park.url, PARK_USER: 'admin', PARK_PASSWORD: ADMIN_PASSWORD, SYNC_RETRY_DELAY_MAX_SECONDS: '1' },
})
const token = await loginTo(enterprise.url)

t.test('SIGKILL mid-load, restart: nothing acknowledged is lost', async (t) => {
  const database = new pg.Client({ connectionString: enterprise.databaseUrl })
  await database.connect()
  t.teardown(() => database.end())
  let restarted = false
  let writesAfterRestart = 0
  const loading = writeLoad(() => enterprise.url, token, {
    prefix: 'KILL',
    concurrency: 8,
    until: () => restarted && writesAfterRestart++ >= 300,
  })
  // Kill once a few hundred writes are stored, while writes and pushes are in flight.
  await eventually(async () => (await database.query('SELECT count(*)::int AS n FROM risk_unit')).rows[0].n >= 300, {
    everyMs: 10,
    what: 'load under way',
  })
  await enterprise.stop('SIGKILL')
  await enterprise.start()
  restarted = true
  const load = await loading
  t.ok(load.added.size >= 300, `${load.added.size} writes acknowledged around the kill`)
  await assertConverged(t, { url: enterprise.url, token }, { url: park.url, token: await loginTo(park.url) }, load)
})

t.end()
