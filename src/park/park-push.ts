// The park push (SPEC rule 4, CONTRACT §7). A write's need to be pushed is its own
// sync_status = 'pending', committed with it; pg-boss does the job machinery:
// - `park-push` (stately: at most one queued and one running drain, across all instances) drains
//   every pending record: live ones parents first, deleted ones children first, in batches. A
//   failed drain is retried with exponential backoff up to a ceiling, then dead-lettered; a drain
//   that died with its process is reclaimed by pg-boss's supervisor after its expiry (seconds);
//   a failed drain is retried with exponential backoff up to a ceiling, then dead-lettered;
// - each write wakes it (coalesced, after commit, never awaited by the write);
// - `park-sweep`, scheduled every minute (and run by each instance as it starts), queues failed
//   records again once they have rested a while and drains anything pending itself, so jobs lost
//   with a killed process strand nothing.
// While the park is known to be down, a drain woken by a write does not knock: only pg-boss's
// scheduled retries (with backoff) and the sweep do, so attempts are counted at the backoff's pace.
// Drains are idempotent (pushed and acknowledged by version): two at once do no harm.
// A record becomes synced only for the version the park acknowledged (at-least-once delivery,
// exactly-once effect: the park applies by id and version).

import type { FastifyBaseLogger } from 'fastify'
import type { PgBoss } from 'pg-boss'
import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import { type AttachmentStore, attachmentTarget, withAttachments } from '../store/attachment-store.ts'
import type { PushItem, SyncStore } from '../store/sync-store.ts'
import { type ParkClient, ParkUnavailable } from './park-client.ts'

export const PUSH_QUEUE = 'park-push'
export const DEAD_QUEUE = 'park-push-dead'
export const SWEEP_QUEUE = 'park-sweep'

export interface PushSettings {
  retryLimit: number
  retryDelayMaxSeconds: number
  batchSize: number
  /** Attachment bytes per page read for the push (one attachment at least). */
  batchBytes: number
  /** A drain that died with its process is retried after this long (pg-boss expiry). */
  expireInSeconds: number
  /** Failed records are queued again by the sweep after resting this long. */
  failedRetrySeconds: number
}

export class ParkPush {
  private readonly boss: PgBoss
  private readonly sync: SyncStore
  private readonly attachments: AttachmentStore
  private readonly registry: ResourceRegistry
  private readonly client: ParkClient
  private readonly settings: PushSettings
  private readonly log: FastifyBaseLogger
  private waking: Promise<void> | undefined
  private wakeAgain = false
  private stopped = false
  /** Until when the park is taken to be down (after a failed push), and the backoff that set it. */
  private parkDownUntil = 0
  private backoffMs = 0
  /** Since start: calls to the park, failed calls, records acknowledged, records refused. */
  readonly stats = { calls: 0, failedCalls: 0, acknowledged: 0, refused: 0 }

  constructor(options: {
    boss: PgBoss
    sync: SyncStore
    attachments: AttachmentStore
    registry: ResourceRegistry
    client: ParkClient
    settings: PushSettings
    log: FastifyBaseLogger
  }) {
    this.boss = options.boss
    this.sync = options.sync
    this.attachments = options.attachments
    this.registry = options.registry
    this.client = options.client
    this.settings = options.settings
    this.log = options.log
  }

  async start(): Promise<void> {
    await this.boss.start()
    await this.boss.createQueue(DEAD_QUEUE).catch(ignoreExisting)
    await this.boss
      .createQueue(PUSH_QUEUE, {
        policy: 'stately',
        retryLimit: this.settings.retryLimit,
        retryDelay: 1,
        retryBackoff: true,
        retryDelayMax: this.settings.retryDelayMaxSeconds,
        expireInSeconds: this.settings.expireInSeconds,
        deadLetter: DEAD_QUEUE,
        notify: true,
      })
      .catch(ignoreExisting)
    await this.boss.createQueue(SWEEP_QUEUE, { policy: 'stately' }).catch(ignoreExisting)
    await this.boss.schedule(SWEEP_QUEUE, '* * * * *')
    // New jobs arrive by NOTIFY at once; a retry coming due is not notified, so polling stays brisk.
    await this.boss.work(PUSH_QUEUE, { pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 }, async ([job]) => {
      // A fresh drain while the park is known down leaves the knocking to the scheduled retry.
      if (job.retryCount === 0 && Date.now() < this.parkDownUntil) return
      await this.drain()
    })
    await this.boss.work(SWEEP_QUEUE, async () => this.sweep())
    // Whatever an earlier run left pending is pushed now, not at the next minute's sweep.
    void this.sweep()
  }

  /** After a write committed: make sure a drain is queued. Coalesced; never throws. */
  wake(): void {
    if (this.stopped) return
    if (this.waking) {
      this.wakeAgain = true
      return
    }
    this.waking = (async () => {
      do {
        this.wakeAgain = false
        try {
          await this.boss.send(PUSH_QUEUE, {})
        } catch (error) {
          // The sweep will queue it: nothing pending is lost by a failed wake.
          this.log.warn({ err: error }, 'could not queue the park push')
        }
      } while (this.wakeAgain && !this.stopped)
      this.waking = undefined
    })()
  }

  /** One drain: pushes every pending record; throws (to be retried with backoff) if some were not accepted. */
  async drain(): Promise<void> {
    try {
      await this.drainAll()
      this.backoffMs = 0
      this.parkDownUntil = 0
    } catch (error) {
      if (error instanceof ParkUnavailable) {
        this.backoffMs = Math.min(Math.max(1000, this.backoffMs * 2), this.settings.retryDelayMaxSeconds * 1000)
        this.parkDownUntil = Date.now() + this.backoffMs
      }
      throw error
    }
  }

  /**
   * Live records parents first, then live attachments (after their records), then deleted
   * attachments, then deleted records children first (a record's attachments go before it).
   */
  private async drainAll(): Promise<void> {
    let notAccepted = 0
    let lastError = ''
    const count = (failures: { count: number; lastError: string }) => {
      notAccepted += failures.count
      lastError = failures.lastError || lastError
    }
    const all = this.registry.all
    for (const resource of all) count(await this.drainRecords(resource, false))
    for (const deleted of [false, true]) for (const resource of all) count(await this.drainAttachments(resource, deleted))
    for (const resource of [...all].reverse()) count(await this.drainRecords(resource, true))
    if (notAccepted > 0) throw new Error(`${notAccepted} records not accepted by the park yet; last: ${lastError}`)
  }

  private async drainRecords(resource: ResourceDef, deleted: boolean): Promise<{ count: number; lastError: string }> {
    const failures = { count: 0, lastError: '' }
    let page = await this.sync.pending(resource, deleted, this.settings.batchSize)
    while (page.items.length > 0) {
      const result = await this.pushPage(resource, page.items)
      failures.count += result.count
      failures.lastError = result.lastError || failures.lastError
      if (!page.cursor) break
      page = await this.sync.pending(resource, deleted, this.settings.batchSize, page.cursor)
    }
    return failures
  }

  /**
   * Pending attachments, in pages bounded by count and by bytes (so many large files pending never
   * sit in memory at once), each pushed by its own attachment/add call with X-Sync-Push.
   */
  private async drainAttachments(resource: ResourceDef, deleted: boolean): Promise<{ count: number; lastError: string }> {
    const target = attachmentTarget(resource)
    const maxAttempts = this.settings.retryLimit + 1
    const failures = { count: 0, lastError: '' }
    let page = await this.attachments.pending(resource, deleted, this.settings.batchSize, this.settings.batchBytes)
    while (page.items.length > 0) {
      for (const [index, item] of page.items.entries()) {
        this.stats.calls++
        let answer: { code: number; msg: string }
        try {
          answer = await this.client.pushAttachment(resource, item)
        } catch (error) {
          this.stats.failedCalls++
          const message = error instanceof ParkUnavailable ? error.message : `push failed: ${(error as Error).message}`
          const rest = page.items.slice(index).map((left) => ({ id: left.id, version: left.version, error: message }))
          await this.sync.recordFailure(target, rest, maxAttempts)
          throw error
        }
        if (answer.code === 0) {
          this.stats.acknowledged += await this.sync.acknowledge(target, [{ id: item.id, version: item.version }])
        } else {
          const error = `park refused with ${answer.code}: ${answer.msg}`
          await this.sync.recordFailure(target, [{ id: item.id, version: item.version, error }], maxAttempts)
          this.stats.refused++
          failures.count++
          failures.lastError = error
        }
      }
      if (!page.cursor) break
      page = await this.attachments.pending(resource, deleted, this.settings.batchSize, this.settings.batchBytes, page.cursor)
    }
    return failures
  }

  private async pushPage(resource: ResourceDef, items: PushItem[]): Promise<{ count: number; lastError: string }> {
    const maxAttempts = this.settings.retryLimit + 1
    let result: Awaited<ReturnType<ParkClient['push']>>
    this.stats.calls++
    try {
      result = await this.client.push(resource, items)
    } catch (error) {
      this.stats.failedCalls++
      const message =
        error instanceof ParkUnavailable ? error.message : `push failed: ${error instanceof Error ? error.message : String(error)}`
      await this.sync.recordFailure(
        resource,
        items.map((item) => ({ id: item.id, version: item.version, error: message })),
        maxAttempts,
      )
      throw error
    }
    const versions = new Map(items.map((item) => [item.id, item.version]))
    // Read after the await: `x += await y` would read x before, losing a concurrent drain's count.
    const acknowledged = await this.sync.acknowledge(
      resource,
      result.succeeded.flatMap((id) => {
        const version = versions.get(id)
        return version === undefined ? [] : [{ id, version }]
      }),
    )
    this.stats.acknowledged += acknowledged
    const failed = result.failed.map((failure) => ({
      id: items[failure.index].id,
      version: items[failure.index].version,
      error: `park refused with ${failure.code}: ${failure.reason}`,
    }))
    await this.sync.recordFailure(resource, failed, maxAttempts)
    this.stats.refused += failed.length
    return { count: failed.length, lastError: failed.at(-1)?.error ?? '' }
  }

  /** Queues failed records again once rested, and drains anything pending. Never throws. */
  async sweep(): Promise<void> {
    try {
      const targets = withAttachments(this.registry.all)
      await this.sync.requeueFailed(targets, undefined, this.settings.failedRetrySeconds)
      if (await this.sync.hasPending(targets)) await this.drain()
    } catch (error) {
      // Recorded on the records; the next sweep or retry tries again.
      this.log.warn({ err: error }, 'park sweep: not everything was pushed')
    }
  }

  /** The push queue's jobs by state, for metrics; undefined before start. */
  async queueDepth(): Promise<{ queued: number; active: number; failed: number } | undefined> {
    const queue = await this.boss.getQueue(PUSH_QUEUE)
    return queue ? { queued: queue.queuedCount, active: queue.activeCount, failed: queue.failedCount } : undefined
  }

  /** One pass of pg-boss's supervisor now (expiry of drains whose process died); it also runs on its own. */
  async supervise(): Promise<void> {
    await this.boss.supervise()
  }

  /** Ready when pg-boss is installed and its push queue exists. */
  async ready(): Promise<boolean> {
    return (await this.boss.getQueue(PUSH_QUEUE).catch(() => null)) !== null
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.waking
    // Lets the drain in progress finish (graceful), then closes pg-boss's pool.
    await this.boss.stop({ graceful: true, timeout: 20_000 })
  }
}

function ignoreExisting(error: Error): void {
  if (!/already exists/i.test(error.message)) throw error
}
