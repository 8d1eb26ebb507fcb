// The park answering errors, dropping connections and timing out at random for a while: writes
// answer as usual meanwhile, and afterwards the park converges to the enterprise's records.
import t from 'tap'
import { chaosProxy } from '../helpers/chaos-proxy.ts'
import { assertConverged, eventually, loginTo, startParkProcess, writeLoad } from '../helpers/park.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const park = await startParkProcess(t)
const proxy = await chaosProxy(park.url)
t.after(() => proxy.close())
const enterprise = await startService(t, {
  env: {
    PARK_URL: proxy.url,
    PARK_USER: 'admin',
    PARK_PASSWORD: ADMIN_PASSWORD,
    // A hung call is given up after this long; long enough that a page pushed on a machine busy
    // with other tests still gets through once the chaos stops (at 300 ms every call then timed out).
    PARK_TIMEOUT_MS: '2000',
    SYNC_RETRY_DELAY_MAX_SECONDS: '1',
    SYNC_BATCH_SIZE: '50',
    SYNC_FAILED_RETRY_SECONDS: '0',
  },
})
const token = await enterprise.login()

t.test('random errors and timeouts, then calm: every acknowledged write reaches the park', async (t) => {
  proxy.chaos = true
  let writes = 0
  const load = await writeLoad(() => enterprise.url, token, { prefix: 'CHAOS', concurrency: 6, until: () => writes++ >= 600 })
  t.ok(load.added.size > 300, `${load.added.size} writes acknowledged while the park misbehaved`)
  // Chaos goes on for a while after the load: the retries (with backoff) keep meeting it.
  const seen = proxy.counts
  await eventually(async () => seen.forwarded + seen.failed + seen.hung + seen.dropped >= 10, {
    timeoutMs: 60_000,
    what: 'ten pushes through the chaos',
  })
  t.ok(seen.failed + seen.hung + seen.dropped > 0, `the park failed pushes: ${JSON.stringify(seen)}`)
  proxy.chaos = false
  // The minute's sweep, now: failed records are queued again (no rest in this test) and drained.
  await enterprise.app.push!.sweep()
  await assertConverged(t, { url: enterprise.url, token }, { url: park.url, token: await loginTo(park.url) }, load)
})

t.end()
