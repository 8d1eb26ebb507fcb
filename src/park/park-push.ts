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
import type { Reconciler } from './reconcile.ts'

export const PUSH_QUEUE = 'park-push'
export const DEAD_QUEUE = 'park-push-dead'
export const SWEEP_QUEUE = 'park-sweep'
export const RECONCILE_QUEUE = 'park-reconcile'

export interface PushSettings {
  retryLimit: number
  retryDelayMaxSeconds: number
  batchSize: number
  /** Attachment bytes per page read for the push (one attachment at least). */
  batchBytes: number
  /** A drain that died with its process is retried after this long (pg-boss expiry). */
  expireInSeconds: number
  /** Failed records are queued again by the sweep after resting this long, */
  failedRetrySeconds: number
  /** at most this many times (then they stay failed until an operator or a reconciliation). */
  failedRequeueRounds: number
  /** When reconciliation runs (cron, pg-boss schedule). */
  reconcileCron: string
}

export class ParkPush {
  private readonly boss: PgBoss
  private readonly sync: SyncStore
  private readonly attachments: AttachmentStore
  private readonly registry: ResourceRegistry
  readonly client: ParkClient
  readonly settings: PushSettings
  private readonly log: FastifyBaseLogger
  /** Runs on the reconciliation schedule. */
  reconciler: Reconciler | undefined
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
    if (this.reconciler) {
      const reconciler = this.reconciler
      await this.boss.createQueue(RECONCILE_QUEUE, { policy: 'stately' }).catch(ignoreExisting)
      await this.boss.schedule(RECONCILE_QUEUE, this.settings.reconcileCron)
      await this.boss.work(RECONCILE_QUEUE, async () => {
        const result = await reconciler.run()
        this.log.info({ differences: result.differences, repushed: result.repushed, error: result.error }, 'park reconciliation')
      })
    }
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

  /** One drain: pushes every pending record; throws (to be retried with backoff) when the park could not be reached. */
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
    const all = this.registry.all
    for (const resource of all) await this.drainRecords(resource, false)
    for (const deleted of [false, true]) for (const resource of all) await this.drainAttachments(resource, deleted)
    for (const resource of [...all].reverse()) await this.drainRecords(resource, true)
  }

  private async drainRecords(resource: ResourceDef, deleted: boolean): Promise<void> {
    let page = await this.sync.pending(resource, deleted, this.settings.batchSize)
    while (page.items.length > 0) {
      await this.pushPage(resource, page.items)
      if (!page.cursor) break
      page = await this.sync.pending(resource, deleted, this.settings.batchSize, page.cursor)
    }
  }

  /**
   * Pending attachments, in pages bounded by count and by bytes (so many large files pending never
   * sit in memory at once), each pushed by its own attachment/add call with X-Sync-Push. A refusal
   * is settled on the attachment (failed with the reason, like records); only a failed call throws.
   */
  private async drainAttachments(resource: ResourceDef, deleted: boolean): Promise<void> {
    const target = attachmentTarget(resource)
    const maxAttempts = this.settings.retryLimit + 1
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
        const error = answer.code === 0 ? null : `park refused with ${answer.code}: ${answer.msg}`
        const settled = await this.sync.settle(target, [
          { id: item.id, version: item.version, held: answer.code === 0 ? item.version : null, error },
        ])
        this.stats.acknowledged += settled.synced
        this.stats.refused += settled.failed
      }
      if (!page.cursor) break
      page = await this.attachments.pending(resource, deleted, this.settings.batchSize, this.settings.batchBytes, page.cursor)
    }
  }

  /** Pushes one page and settles it: throws only when the call itself failed (to be retried with backoff). */
  private async pushPage(resource: ResourceDef, items: PushItem[]): Promise<void> {
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
    // Per item: the version the park holds now (synced only when it is the pushed one), or the refusal.
    const held = new Map((result.held ?? []).map((entry) => [entry.index, entry.version]))
    const refused = new Map(result.failed.map((failure) => [failure.index, `park refused with ${failure.code}: ${failure.reason}`]))
    const outcomes = items.map((item, index) => ({
      id: item.id,
      version: item.version,
      held: held.get(index) ?? null,
      error: refused.get(index) ?? (held.has(index) ? null : 'the park answered nothing for this record'),
    }))
    const settled = await this.sync.settle(resource, outcomes)
    this.stats.acknowledged += settled.synced
    this.stats.refused += settled.failed
  }

  /**
   * Queues failed records again once rested (each at most `failedRequeueRounds` times: a record the
   * park can never apply stays failed with its reason), and drains anything pending. Never throws.
   */
  async sweep(): Promise<void> {
    try {
      const targets = withAttachments(this.registry.all)
      await this.sync.requeueFailed(targets, undefined, {
        restedSeconds: this.settings.failedRetrySeconds,
        rounds: this.settings.failedRequeueRounds,
      })
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
