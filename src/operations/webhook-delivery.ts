// Delivery of events to webhook endpoints (docs/events.md), by pg-boss jobs queued in the
// transaction that made their attempts due (the sequencer's, or the end of the attempts before):
// a job carries many deliveries of one endpoint, taken together (their rows and events read in one
// statement), sent over the endpoint's keep-alive connections, and settled in one statement.
// Each attempt is a Standard Webhooks 1.0 POST (signed by webhook-signature.ts, with both
// secrets during a rotation), within 15 s; then the retry schedule, `failed`, and the endpoint
// disabled on a 410 or after 5 days of failures. An endpoint has a bounded number of attempts in
// flight per process, fewer once they go unanswered, and an attempt unanswered for a second no
// longer holds its job: a slow endpoint holds no worker that other endpoints' deliveries need.
// This runs in the delivery thread (webhook-delivery-thread.ts), which the jobs are handed to.
import type pg from 'pg'
import { Pool } from 'undici'
import type { Background } from '../store/background.ts'
import { inTransaction, type Queryable } from '../store/pg-pool.ts'
import type { StoredEvent } from '../store/event-store.ts'
import type { Attempted, DeliveryRow, DueDelivery, EndpointRow, Ended, Queued, WebhookStore } from '../store/webhook-store.ts'
import { guardedLookup, refusedLiteral } from './webhook-address.ts'
import type { WebhookSecrets } from './webhook-secrets.ts'
import { webhookSigner } from './webhook-signature.ts'

export const DELIVERY_QUEUE = 'webhook-delivery'
/** Seconds before each retry (±20 %); after the last, the delivery is failed. */
export const RETRY_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]
const TIMEOUT_MS = 15_000
/** undici's codes for an endpoint that did not connect, or answer, within TIMEOUT_MS. */
const ANSWER_TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
const FAILING_DISABLES_AFTER_MS = 5 * 24 * 3600_000
/**
 * Attempts to one endpoint that have gone unanswered over SLOW_MS, at most, in this process: a
 * slow endpoint's next attempts wait (queued again SLOW_WAIT_MS later).
 */
const SLOW_PER_ENDPOINT = 2
const SLOW_MS = 1000
const SLOW_WAIT_MS = 2000
/** Attempts to one endpoint in flight in this process, at most, however fast it answers. */
const MOST_PER_ENDPOINT = 32
/** Deliveries one job carries, at most. */
const DELIVERIES_PER_JOB = 500
/** A job starts no attempt after this long (the rest are queued again at once): it ends well before it expires. */
const JOB_BUDGET_MS = 10_000
/**
 * An attempt still unanswered after SLOW_MS goes on without its job, which ends; a job of its own
 * takes the delivery again this much later, should this process die before the attempt settles.
 */
const FALLBACK_MS = TIMEOUT_MS + 10_000
/** An endpoint's connections are closed once it has had no attempt for this long. */
const IDLE_CONNECTIONS_MS = 60_000

/** Where delivery reports what went wrong: the process's logger, or the delivery thread's messages to it. */
export interface DeliveryLog {
  info(details: object, text: string): void
  warn(details: object, text: string): void
}

/** A job's deliveries: (delivery id, its attempt count when queued); a job queued before jobs carried several names one. */
export type DeliveryJob = { endpoint: string; deliveries: [string, number][] } | { delivery: string; attempt: number }

/** An endpoint's answer: its status, or why none came. */
interface Answer {
  status: number | null
  error: string | null
}

/** What became of a delivery taken: an answer (or none), or not attempted at all. */
interface Outcome {
  delivery: DeliveryRow
  status: number | null
  error: string | null
  time: Date
  durationMs: number
  unattempted?: true
}

/** The attempts to one endpoint in flight in this process, and the attempts waiting for a place among them. */
class Lane {
  private readonly started = new Map<number, number>()
  private readonly waiting = new Set<() => void>()
  private nextToken = 0

  /** A place for one more attempt (its token), once one is free; undefined while the endpoint is slow. */
  async enter(): Promise<number | undefined> {
    for (;;) {
      const now = performance.now()
      let slow = 0
      for (const started of this.started.values()) if (now - started > SLOW_MS) slow++
      if (slow >= SLOW_PER_ENDPOINT) return undefined
      if (this.started.size < MOST_PER_ENDPOINT) {
        const token = this.nextToken++
        this.started.set(token, now)
        return token
      }
      // Woken when a place frees, or after SLOW_MS to look again whether the endpoint is slow.
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer)
          this.waiting.delete(wake)
          resolve()
        }
        const timer = setTimeout(wake, SLOW_MS)
        this.waiting.add(wake)
      })
    }
  }

  leave(token: number): void {
    this.started.delete(token)
    const [first] = this.waiting
    first?.()
  }
}

/** An endpoint's connections and the path its attempts are POSTed to. */
interface Target {
  pool: Pool
  path: string
}

/** An endpoint's keep-alive connections (at most MOST_PER_ENDPOINT), each to an address checked when it connected. */
interface Connections {
  origin: string
  pool: Pool
  used: number
}

export class WebhookDelivery {
  private readonly pool: pg.Pool
  private readonly store: WebhookStore
  private readonly secrets: WebhookSecrets
  private readonly background: Background
  /** A feed event in the wire form, as delivered. */
  private readonly wire: (event: StoredEvent) => object
  private readonly allowPrivate: boolean
  private readonly log: DeliveryLog
  private readonly lanes = new Map<string, Lane>()
  private readonly connections = new Map<string, Connections>()

  constructor(options: {
    pool: pg.Pool
    store: WebhookStore
    secrets: WebhookSecrets
    background: Background
    wire: (event: StoredEvent) => object
    allowPrivate: boolean
    log: DeliveryLog
  }) {
    this.pool = options.pool
    this.store = options.store
    this.secrets = options.secrets
    this.background = options.background
    this.wire = options.wire
    this.allowPrivate = options.allowPrivate
    this.log = options.log
  }

  /** Closes the connections of the endpoints that have had no attempt for a while. */
  closeIdle(): void {
    const now = performance.now()
    for (const [endpoint, { pool, used }] of this.connections)
      if (now - used > IDLE_CONNECTIONS_MS) {
        void pool.destroy()
        this.connections.delete(endpoint)
      }
  }

  /** Closes every endpoint's connections (the attempts under way end unanswered). */
  async stop(): Promise<void> {
    await Promise.all([...this.connections.values()].map(({ pool }) => pool.destroy()))
    this.connections.clear()
  }

  /** Queues the jobs of these attempts in the transaction of `db` (they go once it commits). */
  private queue(db: Queryable, due: Queued[]): Promise<void> {
    return queueDeliveries(this.background, db, due)
  }

  /** The deliveries of a batch of jobs whose attempt is still the due one (the others are done already), endpoint by endpoint. */
  async work(jobs: readonly DeliveryJob[]): Promise<void> {
    const due = await this.store.dueMany(
      jobs.flatMap((data): [string, number][] => ('deliveries' in data ? data.deliveries : [[data.delivery, data.attempt]])),
    )
    const byEndpoint = new Map<string, DueDelivery[]>()
    for (const delivery of due) {
      const deliveries = byEndpoint.get(delivery.endpoint)
      if (deliveries) deliveries.push(delivery)
      else byEndpoint.set(delivery.endpoint, [delivery])
    }
    await Promise.all([...byEndpoint].map(([endpoint, deliveries]) => this.deliverTo(endpoint, deliveries)))
  }

  /** Attempts these deliveries of one endpoint, then settles those answered in one transaction. */
  private async deliverTo(endpointId: string, deliveries: DueDelivery[]): Promise<void> {
    const began = performance.now()
    const endpoint = await this.store.get(endpointId).catch(() => undefined)
    if (!endpoint) return
    const settled: Outcome[] = []
    const sendable: { delivery: DeliveryRow; payload: string }[] = []
    for (const due of deliveries) {
      const { delivery, payload } = this.payloadOf(due)
      if (endpoint.enabled && payload !== undefined) sendable.push({ delivery, payload })
      else
        settled.push({
          delivery,
          status: null,
          error: endpoint.enabled ? 'the event is no longer kept' : 'the endpoint is disabled',
          time: new Date(Date.now()),
          durationMs: 0,
          unattempted: true,
        })
    }
    const sign = await this.signer(endpoint)
    const target = sendable.length > 0 ? this.target(endpoint) : undefined
    const lane = this.lanes.get(endpoint.id) ?? new Lane()
    this.lanes.set(endpoint.id, lane)
    const waiting: Queued[] = []
    const goingOn: Promise<Outcome>[] = []
    let next = 0
    let stopped = false
    const runner = async () => {
      while (!stopped && next < sendable.length) {
        const { delivery, payload } = sendable[next++]
        const token = performance.now() - began > JOB_BUDGET_MS ? undefined : await lane.enter()
        if (token === undefined) {
          // The endpoint is slow (or the job has run long): this one and the rest wait for a job of their own.
          stopped = true
          const later = new Date(Date.now() + (performance.now() - began > JOB_BUDGET_MS ? 0 : SLOW_WAIT_MS))
          waiting.push(...[delivery, ...sendable.slice(next).map((item) => item.delivery)].map((item) => queuedAt(item, later)))
          next = sendable.length
          return
        }
        const attempt = this.send(delivery, target, payload, sign).finally(() => lane.leave(token))
        const answer = await within(attempt, SLOW_MS)
        if (answer) settled.push(answer)
        else {
          waiting.push(queuedAt(delivery, new Date(Date.now() + FALLBACK_MS)))
          goingOn.push(attempt)
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(MOST_PER_ENDPOINT, sendable.length) }, runner))
    await this.settle(endpoint, settled, waiting)
    for (const attempt of goingOn)
      void attempt
        .then((outcome) => this.settle(endpoint, [outcome], []))
        .catch((error: unknown) => this.log.warn({ err: error, endpoint: endpoint.id }, 'webhook attempt not settled'))
  }

  /** The delivery's row and the JSON it sends: its ping's body, or its event in the wire form (none once the feed no longer keeps it). */
  private payloadOf({ eventTime, eventCompany, eventData, ...delivery }: DueDelivery): { delivery: DeliveryRow; payload?: string } {
    if (delivery.body) return { delivery, payload: JSON.stringify(delivery.body) }
    if (!eventData || !eventTime || eventCompany === null) return { delivery }
    const { seq, eventId: id, type } = delivery
    const event = { seq: Number(seq), id, type, time: eventTime, companyCode: eventCompany, data: eventData }
    return { delivery, payload: JSON.stringify(this.wire(event)) }
  }

  /** Signs a payload with the endpoint's secret (and the previous one during its grace). */
  private async signer(endpoint: EndpointRow): Promise<(id: string, at: Date, payload: string) => string> {
    const now = Date.now()
    const sealed = [
      endpoint.secret,
      ...(endpoint.previousSecret && endpoint.previousUntil && endpoint.previousUntil.getTime() > now ? [endpoint.previousSecret] : []),
    ]
    const signers = (await Promise.all(sealed.map((secret) => this.secrets.open(secret, endpoint.id)))).map(webhookSigner)
    return (id, at, payload) => signers.map((sign) => sign(id, at, payload)).join(' ')
  }

  /** Signs and POSTs the delivery's payload; answers what came of it. */
  private async send(
    delivery: DeliveryRow,
    target: Target | undefined,
    payload: string,
    sign: (id: string, at: Date, payload: string) => string,
  ): Promise<Outcome> {
    const now = new Date(Date.now())
    const started = performance.now()
    const answer = await this.post(target, payload, {
      'content-type': 'application/json',
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': sign(delivery.eventId, now, payload),
    })
    return { delivery, ...answer, time: new Date(Date.now()), durationMs: Math.round(performance.now() - started) }
  }

  /**
   * The outcomes of an endpoint's attempts recorded, what they make due queued (and the deliveries
   * in `waiting` queued again), in one transaction.
   */
  private async settle(endpoint: EndpointRow, outcomes: readonly Outcome[], waiting: Queued[]): Promise<void> {
    if (outcomes.length === 0 && waiting.length === 0) return
    const now = Date.now()
    const attempted = outcomes.filter((outcome) => !outcome.unattempted)
    const failed = attempted.filter((outcome) => !delivered(outcome))
    await inTransaction(this.pool, async (client) => {
      let disabled: string | undefined
      if (failed.some((outcome) => outcome.status === 410)) disabled = 'the endpoint answered 410 Gone'
      else if (failed.length > 0 && failed.length === attempted.length) {
        const failingSince = await this.store.failing(client, endpoint.id)
        if (now - failingSince.getTime() >= FAILING_DISABLES_AFTER_MS) disabled = 'every attempt failed for 5 days'
      }
      const attempts: Attempted[] = []
      const ended: Ended[] = []
      const retries: { delivery: DeliveryRow; attempts: number; due: Date }[] = []
      for (const outcome of outcomes) {
        const { delivery, unattempted, ...answer } = outcome
        const count = delivery.attempts + (unattempted ? 0 : 1)
        const record = (result: Attempted['outcome']) =>
          !unattempted && attempts.push({ delivery, attempt: count, ...answer, outcome: result })
        if (delivered(outcome) || unattempted) {
          record('delivered')
          ended.push({ delivery, state: unattempted ? 'failed' : 'delivered', attempts: count })
        } else if (disabled || count > RETRY_SECONDS.length) {
          record('failed')
          ended.push({ delivery, state: 'failed', attempts: count })
        } else {
          record('pending')
          retries.push({ delivery, attempts: count, due: new Date(now + RETRY_SECONDS[count - 1] * 1000 * (0.8 + 0.4 * Math.random())) })
        }
      }
      const next = await this.store.settle(client, endpoint.id, attempts, ended)
      if (disabled) {
        await this.store.disable(client, endpoint.id, disabled)
        return
      }
      await this.queue(client, [...next, ...(await this.store.retry(client, retries)), ...waiting])
    })
    for (const { delivery, status, error } of failed)
      this.log.info({ endpoint: endpoint.id, event: delivery.eventId, status, error }, 'webhook attempt failed')
  }

  /** Where the endpoint's attempts go: its connections and path; none when its address is on a refused network. */
  private target(endpoint: EndpointRow): Target | undefined {
    const url = new URL(endpoint.url)
    if (refusedLiteral(url, this.allowPrivate)) return undefined
    return { pool: this.connectionsTo(endpoint, url), path: `${url.pathname}${url.search}` }
  }

  /** POSTs the payload; a 2xx status within 15 s delivers it. Refused networks are never connected to. */
  private async post(target: Target | undefined, payload: string, headers: Record<string, string>): Promise<Answer> {
    if (!target) return { status: null, error: 'the address is on a refused network' }
    try {
      const response = await target.pool.request({ method: 'POST', path: target.path, headers, body: payload })
      // Read to its end, so that the connection serves the next attempt.
      await response.body.dump()
      return { status: response.statusCode, error: null }
    } catch (caught) {
      const error = caught as Error & { code?: string }
      return {
        status: null,
        error: ANSWER_TIMEOUTS.has(error.code ?? '') ? 'no answer within 15 s' : `${error.code ?? error.name}: ${error.message}`,
      }
    }
  }

  /** The endpoint's keep-alive connections (new ones when its origin changed); each connection resolves the name again. */
  private connectionsTo(endpoint: EndpointRow, url: URL): Pool {
    const kept = this.connections.get(endpoint.id)
    if (kept && kept.origin === url.origin) {
      kept.used = performance.now()
      return kept.pool
    }
    void kept?.pool.destroy()
    // The pool's own timeouts bound each attempt's wait for its answer: a timer of
    // undici's per request, instead of an abort signal made and listened to per attempt.
    const pool = new Pool(url.origin, {
      connections: MOST_PER_ENDPOINT,
      connect: { lookup: guardedLookup(this.allowPrivate), timeout: TIMEOUT_MS },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    })
    this.connections.set(endpoint.id, { origin: url.origin, pool, used: performance.now() })
    return pool
  }
}

const delivered = (outcome: Outcome) => !outcome.unattempted && outcome.status !== null && outcome.status >= 200 && outcome.status < 300

const queuedAt = (delivery: DeliveryRow, due: Date): Queued => ({
  id: delivery.id,
  endpoint: delivery.endpoint,
  attempt: delivery.attempts,
  due,
})

/** The promise's value if it settles within `ms`, else undefined (it goes on). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Queues the jobs of these attempts in the transaction of `db` (they go once it commits): an endpoint's due at one time share jobs. */
export async function queueDeliveries(background: Background, db: Queryable, due: readonly Queued[]): Promise<void> {
  if (due.length === 0) return
  const groups = new Map<string, Queued[]>()
  for (const item of due) {
    const key = `${new Date(item.due).getTime()} ${item.endpoint}`
    const group = groups.get(key)
    if (group) group.push(item)
    else groups.set(key, [item])
  }
  const jobs = [...groups.values()].flatMap((group) =>
    Array.from({ length: Math.ceil(group.length / DELIVERIES_PER_JOB) }, (_, n) => {
      const part = group.slice(n * DELIVERIES_PER_JOB, (n + 1) * DELIVERIES_PER_JOB)
      const data: DeliveryJob = { endpoint: part[0].endpoint, deliveries: part.map((item) => [String(item.id), item.attempt]) }
      return { data, startAfter: new Date(part[0].due) }
    }),
  )
  const boss = await background.start()
  await boss.insert(DELIVERY_QUEUE, jobs, { db: { executeSql: async (text, values) => db.query(text, values) } })
}
