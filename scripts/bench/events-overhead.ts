// `node scripts/bench/events-overhead.ts`: what one subscribed webhook endpoint costs the writes
// (docs/events.md). One enterprise edition (src/main.ts) on a fresh database is loaded with
// `monitorEquip/add` bodies, rounds alternating without an endpoint and with one (a receiver on
// loopback answering 204 to every `record.added`), so that a drift of the machine's load hits both
// alike; prints the median add rate and p99 of each and their ratio. Settings: BENCH_SECONDS
// (per run, default 10), BENCH_ROUNDS (default 3); DATABASE_URL as `npm run bench`.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { median, note } from './common.ts'
import { Bodies } from './bodies.ts'
import { Databases } from './database.ts'
import { login, ok } from './http.ts'
import { runLoad } from './load.ts'
import { EDITION_PASSWORD, startEdition, stop } from './processes.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

let delivered = 0
const receiver = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    delivered++
    response.statusCode = 204
    response.end()
  })
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

const databases = await Databases.open()
const proc = await startEdition('events', 'enterprise', await databases.create('events'), {
  raisedLimits: true,
  extra: { WEBHOOK_ALLOW_PRIVATE: 'true' },
})
try {
  const token = await login(proc.url, 'admin', EDITION_PASSWORD)
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` }
  const bodies = new Bodies('e-')
  const load = async (name: string) =>
    (await runLoad({ name, url: proc.url, path: '/hazard/monitorEquip/add', headers, body: () => bodies.next() }, seconds)).result
  await load('warm-up')
  const results: Record<'none' | 'one', { rate: number[]; p99: number[] }> = { none: { rate: [], p99: [] }, one: { rate: [], p99: [] } }
  const catchUp: number[] = []
  for (let round = 1; round <= rounds; round++) {
    for (const kind of ['none', 'one'] as const) {
      const before = delivered
      if (kind === 'one')
        await ok(`${proc.url}/system/webhook/add`, { id: 'bench', url: receiverUrl, types: ['record.added'] }, token, 'webhook/add')
      const result = await load(`${kind} endpoint, round ${round}`)
      note(`${kind}: ${result.requests.average.toFixed(0)} adds/s, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx`)
      results[kind].rate.push(result.requests.average)
      results[kind].p99.push(result.latency.p99)
      if (kind === 'one') {
        // The deliveries still queued when the load stopped, delivered with the machine to themselves.
        const stopped = performance.now()
        const atStop = delivered
        const target = before + result.requests.sent * 0.99
        while (delivered < target && performance.now() - stopped < 120_000) await new Promise((resolve) => setTimeout(resolve, 200))
        const rate = (delivered - atStop) / ((performance.now() - stopped) / 1000)
        note(
          `one: ${atStop - before} delivered during the load, then ${rate.toFixed(0)} a second (${delivered - before} of ${result.requests.sent})`,
        )
        catchUp.push(rate)
        await ok(`${proc.url}/system/webhook/delete`, { id: 'bench' }, token, 'webhook/delete')
      }
    }
  }
  const none = median(results.none.rate)
  const one = median(results.one.rate)
  console.log(`no endpoint:  ${none.toFixed(0)} adds/s, p99 ${median(results.none.p99)} ms`)
  console.log(
    `one endpoint: ${one.toFixed(0)} adds/s, p99 ${median(results.one.p99)} ms (${((one / none) * 100).toFixed(1)} % of the rate)`,
  )
  console.log(`deliveries once the load stopped: ${median(catchUp).toFixed(0)} a second`)
} finally {
  await stop(proc)
  await databases.close()
  receiver.close()
}
