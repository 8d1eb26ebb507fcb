// Delivery of events to webhook endpoints (docs/events.md), by pg-boss jobs: one job per attempt,
// queued in the transaction that made the attempt due (the sequencer's, or the end of the attempt
// before). An endpoint has a bounded number of attempts in flight per process, fewer once they go
// unanswered: a slow endpoint's next attempts wait, holding no worker another endpoint needs. Each attempt is a Standard Webhooks 1.0 POST signed by
// the `standardwebhooks` package (with both secrets during a rotation), within 15 s; then the
// retry schedule, `failed`, and the endpoint disabled on a 410 or after 5 days of failures.
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { FastifyBaseLogger } from 'fastify'
import type pg from 'pg'
import { Webhook } from 'standardwebhooks'
import type { Background } from '../store/background.ts'
import { inTransaction, type Queryable } from '../store/database.ts'
import { type DeliveryRow, type EndpointRow, type Queued, type WebhookStore } from '../store/webhook-store.ts'
import { guardedLookup, refusedLiteral } from './webhook-address.ts'
import type { WebhookSecrets } from './webhook-secrets.ts'

export const DELIVERY_QUEUE = 'webhook-delivery'
/** Seconds before each retry (±20 %); after the last, the delivery is failed. */
export const RETRY_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]
const TIMEOUT_MS = 15_000
const FAILING_DISABLES_AFTER_MS = 5 * 24 * 3600_000
/**
 * Attempts to one endpoint that have gone unanswered over SLOW_MS, at most, in this process: a
 * slow endpoint's next attempts wait (their jobs queued again a little later) instead of holding
 * the workers that other endpoints' deliveries need.
 */
const SLOW_PER_ENDPOINT = 2
const SLOW_MS = 1000
/** Attempts to one endpoint in flight in this process, at most, however fast it answers. */
const MOST_PER_ENDPOINT = 16
const SLOW_WAIT_MS = 2000

interface Answer {
  status: number | null
  error: string | null
}

export class WebhookDelivery {
  private readonly pool: pg.Pool
  private readonly store: WebhookStore
  private readonly secrets: WebhookSecrets
  private readonly background: Background
  /** The body of the feed's event at `seq` (undefined once pruned). */
  private readonly eventBody: (seq: number) => Promise<Record<string, unknown> | undefined>
  private readonly allowPrivate: boolean
  private readonly log: FastifyBaseLogger
  private readonly clock: () => number
  /** When each attempt in flight in this process started, by endpoint. */
  private readonly inFlight = new Map<string, Set<number>>()
  private repairs: NodeJS.Timeout | undefined

  constructor(options: {
    pool: pg.Pool
    store: WebhookStore
    secrets: WebhookSecrets
    background: Background
    eventBody: (seq: number) => Promise<Record<string, unknown> | undefined>
    allowPrivate: boolean
    log: FastifyBaseLogger
    clock?: () => number
  }) {
    this.pool = options.pool
    this.store = options.store
    this.secrets = options.secrets
    this.background = options.background
    this.eventBody = options.eventBody
    this.allowPrivate = options.allowPrivate
    this.log = options.log
    this.clock = options.clock ?? Date.now
  }

  async start(): Promise<void> {
    this.repairs = setInterval(
      () => void this.repair().catch((error: unknown) => this.log.warn({ err: error }, 'webhook repair failed')),
      5000,
    )
    this.repairs.unref()
    await this.background.queue<{ delivery: string; attempt: number }>(
      DELIVERY_QUEUE,
      // A process that died mid-attempt: its job is taken again once expired. Jobs come in batches
      // (fetched again at once while they come full), attempted together.
      { expireInSeconds: 30, retryLimit: 20, retryDelay: 5, work: { localConcurrency: 8, batchSize: 20, pollingIntervalSeconds: 0.5 } },
      async (jobs) => {
        await Promise.all(jobs.map((job) => this.attempt(job.data.delivery, job.data.attempt)))
      },
    )
  }

  async stop(): Promise<void> {
    clearInterval(this.repairs)
    await this.background.release(DELIVERY_QUEUE)
  }

  /**
   * Queues the first waiting delivery of a record whose deliveries have none under way: one planned
   * behind a delivery that ended while the sequencer was planning it (each saw the other's
   * snapshot). Every few seconds, in every instance.
   */
  private async repair(): Promise<void> {
    await inTransaction(this.pool, async (client) => this.queue(client, await this.store.stranded(client)))
  }

  /** Queues the jobs of these attempts in the transaction of `db` (they go once it commits). */
  async queue(db: Queryable, due: Queued[]): Promise<void> {
    if (due.length === 0) return
    const boss = await this.background.start()
    await boss.insert(
      DELIVERY_QUEUE,
      due.map((item) => ({
        data: { delivery: item.id, attempt: item.attempt },
        startAfter: new Date(item.due),
      })),
      { db: { executeSql: async (text, values) => db.query(text, values) } },
    )
  }

  /** One attempt of a delivery (a job whose attempt is no longer the due one is done already). */
  private async attempt(id: string, attempt: number): Promise<void> {
    const delivery = await this.store.due(id, attempt)
    if (!delivery) return
    const endpoint = await this.store.get(delivery.endpoint).catch(() => undefined)
    if (!endpoint) return
    const body = delivery.body ?? (delivery.seq === null ? undefined : await this.eventBody(Number(delivery.seq)))
    if (!endpoint.enabled || !body) {
      await this.settle(
        delivery,
        { status: null, error: endpoint.enabled ? 'the event is no longer kept' : 'the endpoint is disabled' },
        0,
        true,
      )
      return
    }
    const flying = this.inFlight.get(endpoint.id) ?? new Set<number>()
    this.inFlight.set(endpoint.id, flying)
    const startedAt = performance.now()
    const slow = [...flying].filter((started) => startedAt - started > SLOW_MS).length
    if (slow >= SLOW_PER_ENDPOINT || flying.size >= MOST_PER_ENDPOINT) {
      await inTransaction(this.pool, (client) =>
        this.queue(client, [{ id: delivery.id, endpoint: endpoint.id, attempt, due: new Date(Date.now() + SLOW_WAIT_MS) }]),
      )
      return
    }
    flying.add(startedAt)
    try {
      await this.send(delivery, endpoint, body)
    } finally {
      flying.delete(startedAt)
    }
  }

  /** Signs and POSTs the delivery's body, then settles the attempt. */
  private async send(delivery: DeliveryRow, endpoint: EndpointRow, body: Record<string, unknown>): Promise<void> {
    const payload = JSON.stringify(body)
    const now = new Date(this.clock())
    const keys = [
      endpoint.secret,
      ...(endpoint.previousSecret && endpoint.previousUntil && endpoint.previousUntil.getTime() > now.getTime()
        ? [endpoint.previousSecret]
        : []),
    ]
    const secrets = await Promise.all(keys.map((sealed) => this.secrets.open(sealed, endpoint.id)))
    const signature = secrets.map((secret) => new Webhook(secret).sign(delivery.eventId, now, payload)).join(' ')
    const started = performance.now()
    const answer = await this.post(new URL(endpoint.url), payload, {
      'content-type': 'application/json',
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    })
    await this.settle(delivery, answer, Math.round(performance.now() - started), false)
  }

  /** The attempt's outcome recorded, and what it makes due queued, in one transaction. */
  private async settle(delivery: DeliveryRow, answer: Answer, durationMs: number, unattempted: boolean): Promise<void> {
    const attempts = delivery.attempts + (unattempted ? 0 : 1)
    const delivered = answer.status !== null && answer.status >= 200 && answer.status < 300
    await inTransaction(this.pool, async (client) => {
      const record = async (outcome: 'delivered' | 'pending' | 'failed') => {
        if (unattempted) return
        await this.store.recordAttempt(client, delivery, {
          attempt: attempts,
          time: new Date(this.clock()),
          ...answer,
          durationMs,
          outcome,
        })
      }
      if (delivered || unattempted) {
        await record('delivered')
        await this.queue(client, await this.store.end(client, delivery, delivered ? 'delivered' : 'failed', attempts))
        return
      }
      if (answer.status === 410) {
        await record('failed')
        await this.store.disable(client, delivery.endpoint, 'the endpoint answered 410 Gone')
        return
      }
      const failingSince = await this.store.failing(client, delivery.endpoint)
      if (this.clock() - failingSince.getTime() >= FAILING_DISABLES_AFTER_MS) {
        await record('failed')
        await this.store.disable(client, delivery.endpoint, 'every attempt failed for 5 days')
        return
      }
      if (attempts > RETRY_SECONDS.length) {
        await record('failed')
        await this.queue(client, await this.store.end(client, delivery, 'failed', attempts))
        return
      }
      await record('pending')
      const delay = RETRY_SECONDS[attempts - 1] * 1000 * (0.8 + 0.4 * Math.random())
      const { queued } = await this.store.retry(client, delivery, attempts, new Date(this.clock() + delay))
      await this.queue(client, [queued])
    })
    if (!delivered && !unattempted)
      this.log.info({ endpoint: delivery.endpoint, event: delivery.eventId, ...answer }, 'webhook attempt failed')
  }

  /** POSTs the payload; a 2xx status within 15 s delivers it. Refused networks are never connected to. */
  private post(url: URL, payload: string, headers: Record<string, string>): Promise<Answer> {
    if (refusedLiteral(url, this.allowPrivate)) return Promise.resolve({ status: null, error: 'the address is on a refused network' })
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest
    return new Promise((resolve) => {
      let done = false
      const finish = (answer: Answer) => {
        if (done) return
        done = true
        resolve(answer)
      }
      const outgoing = request(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': Buffer.byteLength(payload) },
          lookup: guardedLookup(this.allowPrivate),
          signal: AbortSignal.timeout(TIMEOUT_MS),
          agent: false,
        },
        (response: IncomingMessage) => {
          finish({ status: response.statusCode ?? null, error: null })
          response.destroy()
        },
      )
      outgoing.on('error', (error: Error & { code?: string }) =>
        finish({
          status: null,
          error:
            error.name === 'AbortError' || error.name === 'TimeoutError'
              ? 'no answer within 15 s'
              : `${error.code ?? error.name}: ${error.message}`,
        }),
      )
      outgoing.end(payload)
    })
  }
}
