// The event feed (docs/events.md): `/system/event/list`, the sequencer that makes committed events
// readable (woken after each write and every second, in every instance: they take turns), and
// retention (EVENT_RETENTION_DAYS) by a daily pg-boss schedule, of the events and then of the
// webhooks' finished deliveries of the events gone.
import type { FastifyBaseLogger } from 'fastify'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import type { Background } from '../store/background.ts'
import type { EventStore, StoredEvent } from '../store/event-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import type { WebhookStore } from '../store/webhook-store.ts'
import { eventWire, type WireEvent, wireFields } from './event-wire.ts'

export type { WireEvent } from './event-wire.ts'

export const EVENT_PRUNE_QUEUE = 'event-prune'
/** How often each instance looks for events to number when no write of its own woke it. */
const SEQUENCE_EVERY_MS = 1000

export interface FeedRequest {
  after?: number
  types?: string[]
  pageSize?: number
}

export interface FeedAnswer {
  list: WireEvent[]
  next: number
  gap?: true
}

export class EventOperations {
  private readonly store: EventStore
  /** An event in the wire form: a record event's changes as its history entry answers them. */
  readonly toWire: (event: StoredEvent) => WireEvent
  private readonly background: Background
  private readonly retentionDays: number
  /** The webhooks' deliveries, pruned with the events. */
  private readonly deliveries: Pick<WebhookStore, 'prune'>
  private readonly log: FastifyBaseLogger
  /** Called with how many events were numbered (the webhooks' deliveries start). */
  private readonly onSequenced: (() => void) | undefined
  private timer: NodeJS.Timeout | undefined
  private soon: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  /** The background runs under way (numbering, then the inbox's vacuum when due). */
  private readonly ticks = new Set<Promise<void>>()
  private stopped = false

  constructor(options: {
    store: EventStore
    registry: Pick<ResourceRegistry, 'all'>
    format: InstantFormatter
    background: Background
    retentionDays: number
    deliveries: Pick<WebhookStore, 'prune'>
    log: FastifyBaseLogger
    onSequenced?: () => void
  }) {
    this.store = options.store
    this.toWire = eventWire(wireFields(options.registry), options.format)
    this.background = options.background
    this.retentionDays = options.retentionDays
    this.deliveries = options.deliveries
    this.log = options.log
    this.onSequenced = options.onSequenced
  }

  /** A page of the feed; `companyCode`: one enterprise's events only (an enterprise account on the park). */
  async list(request: FeedRequest, companyCode: string | undefined): Promise<FeedAnswer> {
    // Every event committed before this request is numbered first: a caller reads its own writes.
    await this.sequence()
    const pageSize = request.pageSize ?? 100
    // No types, or none listed: every type.
    const types = request.types?.length ? request.types : undefined
    const page = await this.store.page({ after: request.after, types, pageSize, companyCode })
    const list = page.list.map(this.toWire)
    const after = request.after ?? Math.max((page.oldest ?? page.last + 1) - 1, 0)
    // The last event looked at: the page's last when it is full, else every event up to the newest.
    const next = list.length === pageSize ? list[list.length - 1].seq : Math.max(after, page.last)
    const oldest = page.oldest ?? page.last + 1
    const gap = request.after !== undefined && request.after < oldest - 1
    return gap ? { list, next, gap: true } : { list, next }
  }

  /** Numbers the committed events soon (after a write). */
  wake(): void {
    if (this.stopped || this.soon) return
    this.soon = setTimeout(() => {
      this.soon = undefined
      const tick = (async () => {
        await this.sequence()
        // Outside `running`: a feed read never waits for the vacuum.
        if (!this.stopped) await this.store.vacuumInbox()
      })()
        .catch((error: unknown) => this.log.warn({ err: error }, 'event sequencing or the inbox vacuum failed'))
        .finally(() => this.ticks.delete(tick))
      this.ticks.add(tick)
    }, 10)
  }

  /** Numbers the committed events now (one run at a time in this process; instances take turns in the database). */
  async sequence(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined)
    this.running = (async () => {
      const numbered = await this.store.sequence()
      if (numbered > 0) this.onSequenced?.()
    })()
    try {
      await this.running
    } finally {
      this.running = undefined
    }
  }

  async start(): Promise<void> {
    this.timer = setInterval(() => this.wake(), SEQUENCE_EVERY_MS)
    this.timer.unref()
    this.wake()
    await this.background.queue(EVENT_PRUNE_QUEUE, { policy: 'stately', cron: '23 3 * * *' }, async () => void (await this.prune()))
    await this.background.boss.send(EVENT_PRUNE_QUEUE, {})
  }

  /**
   * Deletes the events older than the retention, then the webhooks' finished deliveries of the
   * events gone (and of pings as old); answers how many of each.
   */
  async prune(): Promise<{ events: number; deliveries: number }> {
    const days = this.retentionDays
    const events = await this.store.prune(days)
    const deliveries = await this.deliveries.prune(days)
    if (events + deliveries > 0) this.log.info({ pruned: events, deliveries, days }, 'events pruned')
    return { events, deliveries }
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    clearTimeout(this.soon)
    await this.running?.catch(() => undefined)
    await Promise.all(this.ticks)
    await this.background.release(EVENT_PRUNE_QUEUE)
  }
}
