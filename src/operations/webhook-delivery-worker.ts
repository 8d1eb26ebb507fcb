// The delivery thread's entry (webhook-delivery-thread.ts starts it): the deliveries of the jobs it
// is handed, on a pg pool of its own, with the modules they need and nothing else of the service
// (no contract, no Prisma, no HTTP server), so that it starts quickly and holds little memory.
import { parentPort, workerData } from 'node:worker_threads'
import { Background } from '../store/background.ts'
import { instantFormatter } from '../store/instant-format.ts'
import { openPool } from '../store/pg-pool.ts'
import { WebhookStore } from '../store/webhook-store.ts'
import { eventWire } from './event-wire.ts'
import type { ThreadData, ToThread, FromThread } from './webhook-delivery-thread.ts'
import { type DeliveryLog, WebhookDelivery } from './webhook-delivery.ts'
import { WebhookSecrets } from './webhook-secrets.ts'

const port = parentPort
if (!port) throw new Error('webhook-delivery-worker.ts runs as a worker thread')
const data = workerData as ThreadData
const tell = (message: FromThread) => port.postMessage(message)

/** A line for the process's log; one whose details cannot be sent goes without them. */
const logged = (level: 'info' | 'warn') => (details: object, text: string) => {
  try {
    tell({ kind: 'log', level, details, text })
  } catch {
    tell({ kind: 'log', level, details: {}, text })
  }
}
const log: DeliveryLog = { info: logged('info'), warn: logged('warn') }
const pool = openPool(data.databaseUrl, data.pool)
const background = new Background({ databaseUrl: data.databaseUrl, log, superviseSeconds: 60, queueOnly: true })
const delivery = new WebhookDelivery({
  pool,
  store: new WebhookStore({ pool }),
  secrets: new WebhookSecrets(async () => data.secret),
  background,
  wire: eventWire(data.wireFields, instantFormatter(data.timeZone)),
  allowPrivate: data.allowPrivate,
  log,
})
const idle = setInterval(() => delivery.closeIdle(), 5000)

port.on('message', (message: ToThread) => {
  if (message.kind === 'jobs') {
    delivery.work(message.jobs).then(
      () => tell({ kind: 'done', id: message.id }),
      (error: unknown) => tell({ kind: 'done', id: message.id, error: error instanceof Error ? error.message : String(error) }),
    )
  } else {
    clearInterval(idle)
    void (async () => {
      await delivery.stop()
      await background.stop()
      await pool.end()
      port.close()
    })()
  }
})
