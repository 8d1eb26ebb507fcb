// The floor of a webhook delivery, in its own process: signed POSTs of one event's body to the
// `events` group's receiver, as the service sends them (Standard Webhooks headers, undici keep-alive
// connections, as many in flight as the service allows an endpoint) but with no database, no queue
// and no bookkeeping. Over IPC: {url, body, seconds} runs for that long and answers {count}; 'stop'
// exits. Once started it sends 'ready'.
import { randomBytes, randomUUID } from 'node:crypto'
import { Pool } from 'undici'
import { webhookSigner } from '../../src/operations/webhook-signature.ts'

/** The service's attempts in flight to one endpoint, at most. */
const IN_FLIGHT = 32

interface Run {
  url: string
  body: string
  seconds: number
}

const sign = webhookSigner(`whsec_${randomBytes(24).toString('base64')}`)

async function run({ url, body, seconds }: Run): Promise<number> {
  const target = new URL(url)
  const pool = new Pool(target.origin, { connections: IN_FLIGHT })
  const until = Date.now() + seconds * 1000
  let count = 0
  const poster = async () => {
    while (Date.now() < until) {
      const id = `msg_${randomUUID()}`
      const now = new Date()
      const response = await pool.request({
        method: 'POST',
        path: target.pathname,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': sign(id, now, body),
        },
        body,
      })
      await response.body.dump()
      if (response.statusCode >= 200 && response.statusCode < 300) count++
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, poster))
  await pool.close()
  return count
}

if (!process.send) throw new Error('usage: started by scripts/bench/events.ts over IPC')
process.on('message', (message) => {
  if (message === 'stop') process.exit(0)
  else
    void run(message as Run).then(
      (count) => process.send!({ count }),
      (error: unknown) => process.send!({ error: String(error) }),
    )
})
process.on('disconnect', () => process.exit(0))
process.on('SIGINT', () => {}) // a terminal Ctrl+C: the parent decides when this stops
process.send('ready')
