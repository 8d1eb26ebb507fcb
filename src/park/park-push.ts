// The park push. A write's need to be pushed is its own
// sync_status = 'pending', committed with it; the push is a loop in the process, pg-boss does the
// job machinery around it (retries with backoff, schedules, several instances). This module is the
// loop; what one drain pushes, and in which order, is push-drain.ts:
// - each write wakes the loop (coalesced, never awaited by the write, no database round trip): a
//   drain starts SYNC_PUSH_DEBOUNCE_MS later, and while one runs, later wakes make it run once
//   more when it ends, so under load each drain takes whatever accumulated meanwhile;
// - when the park cannot be reached, the drain stops and a `park-push` job is queued, one at a
//   time: a drain failing while it waits (the probe's, an operator's) leaves the next attempt to
//   it. pg-boss retries it with exponential backoff up to a ceiling, then dead-letters it. That
//   backoff is the only one: while the job waits, writes do not knock (attempts are counted at its
//   pace); a drain that goes through ends it (cancels it, when not its own); a job whose process
//   died is reclaimed by pg-boss's supervisor after its expiry;
// - while nothing answers for the park (no connection, a timeout, a gateway's 502/503/504), its
//   liveness is looked at every SYNC_PARK_PROBE_MS (park-probe.ts): when it answers again, a drain
//   starts at once instead of after the backoff, so a park coming back (or starting after the
//   enterprise) is fed within a look. A park that answers but refuses the pushes is left to the
//   backoff;
// - `park-sweep`, scheduled every minute (and run as each instance starts), queues failed records
//   again once they have rested a while (those the park refused a bounded number of times, those
//   whose pushes never reached it every time) and drains anything pending, so nothing is stranded
//   by a killed process or a long outage; the probe seeing the park back, and any drain whose calls
//   succeed after failed ones, queue the latter at once.
// Drains are idempotent (pushed and acknowledged by version): two at once (two instances) do no
// harm; in one process they run one after the other. A record becomes synced only for the version
// the park says it holds (at-least-once delivery, exactly-once effect).

import { setTimeout as delay } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import type { AttachmentStore } from '../store/attachment-store.ts'
import type { Background } from '../store/background.ts'
import type { SyncStore } from '../store/sync-store.ts'
import { CompanionPush } from './companion-push.ts'
import { type ParkClient, ParkUnavailable } from './park-client.ts'
import { ParkProbe } from './park-probe.ts'
import { PushDrain } from './push-drain.ts'
import type { Reconciler } from './reconcile.ts'
import { DEAD_QUEUE, type Outage, PUSH_QUEUE, type PushSettings, RECONCILE_QUEUE, SWEEP_QUEUE } from './push-settings.ts'

export class ParkPush {
  private readonly background: Background
  private readonly sync: SyncStore
  readonly client: ParkClient
  readonly settings: PushSettings
  private readonly log: FastifyBaseLogger
  /** Runs on the reconciliation schedule. */
  readonly reconciler: Reconciler | undefined
  /** What the push carries beside records and attachments: the companion kinds, and the streams (the minutes of readings). */
  readonly companions: CompanionPush
  /** The wake loop while it runs, and whether a wake came during its drain (it drains once more). */
  private wakeLoop: Promise<void> | undefined
  private wokenMeanwhile = false
  /** The drains of this process, one after the other. */
  private drainsInOrder: Promise<unknown> = Promise.resolve()
  private stopped = false
  /** The park failing the push's calls as a whole, since the last drain that went through; undefined while none fails. */
  private outage: Outage | undefined
  /**
   * The id of the retry job this process queued, until the job ends: a drain goes through (the
   * job's, or another one, which cancels it) or its last attempt fails. One at a time: a drain
   * failing meanwhile (the probe's, an operator's) leaves the next attempt to it, and writes do not
   * knock, so attempts are counted at its backoff's pace.
   */
  private retryJob: string | undefined
  /** Watches an unreachable park for its return. */
  readonly probe: ParkProbe
  /** What one drain pushes, and in which order. */
  private readonly drains: PushDrain
  /**
   * Since start: calls to the park, failed calls, records acknowledged, records refused (counted
   * by the drains), drains started at once because the park came back.
   */
  readonly stats = { calls: 0, failedCalls: 0, acknowledged: 0, refused: 0, probeDrains: 0 }

  constructor(options: {
    background: Background
    sync: SyncStore
    attachments: AttachmentStore
    registry: ResourceRegistry
    client: ParkClient
    settings: PushSettings
    log: FastifyBaseLogger
    reconciler?: Reconciler
    companions?: CompanionPush
  }) {
    this.reconciler = options.reconciler
    this.companions = options.companions ?? new CompanionPush()
    this.background = options.background
    this.sync = options.sync
    this.client = options.client
    this.settings = options.settings
    this.log = options.log
    this.drains = new PushDrain({
      sync: this.sync,
      attachments: options.attachments,
      registry: options.registry,
      client: this.client,
      settings: this.settings,
      companions: this.companions,
      stats: this.stats,
      wake: () => void this.wake(),
      wokenMeanwhile: () => this.wokenMeanwhile,
    })
    const { probeMs } = this.settings
    this.probe = new ParkProbe({
      reachable: (timeoutMs, signal) => this.client.reachable(timeoutMs, signal),
      intervalMs: probeMs,
      timeoutMs: Math.max(probeMs, 1000),
      onBack: () => this.parkBack(),
      log: this.log,
    })
  }

  async start(): Promise<void> {
    // Whatever an earlier run left pending is pushed now, not at the next minute's sweep, nor once
    // pg-boss is up: the first drain needs no queue (a drain that fails is retried by the probe, or
    // by the sweep's schedule). The login to the park meanwhile.
    void this.client.logInAhead()
    void this.sweep()
    await this.background.createQueue(DEAD_QUEUE)
    const retries = {
      policy: 'stately' as const,
      retryLimit: this.settings.retryLimit,
      retryDelay: 1,
      retryBackoff: true,
      retryDelayMax: this.settings.retryDelayMaxSeconds,
      expireInSeconds: this.settings.expireInSeconds,
      deadLetter: DEAD_QUEUE,
      // A retry coming due is not notified: polling stays brisk.
      work: { pollingIntervalSeconds: 1 },
    }
    await this.background.queue(PUSH_QUEUE, retries, async ([job]) => {
      if (this.outage) this.outage.jobRanAt = Date.now()
      try {
        await this.drain(job?.id)
      } catch (error) {
        // Its last attempt failed: the job ends, and writes knock again (the records they leave
        // pending fail by their own count of attempts, as before).
        if (job && job.retryCount >= this.settings.retryLimit && this.retryJob === job.id) this.retryJob = undefined
        throw error
      }
    })
    await this.background.queue(SWEEP_QUEUE, { policy: 'stately', cron: '* * * * *' }, async () => this.sweep())
    const reconciler = this.reconciler
    if (reconciler) {
      await this.background.queue(RECONCILE_QUEUE, { policy: 'stately', cron: this.settings.reconcileCron }, async () => {
        const result = await reconciler.run()
        this.log.info({ differences: result.differences, repushed: result.repushed, error: result.error }, 'park reconciliation')
      })
    }
  }

  /**
   * An operator asked (sync/retry, a reconciliation found differences): a drain now, even while
   * the retry job waits out its backoff (the backoff is for writes knocking, not for people asking);
   * if it fails, that job stays the one retry.
   */
  retryNow(): void {
    void this.drainSoon()
  }

  /** Why the park fails the push's calls as a whole now (its account refused, say); undefined while none fails. */
  callFailure(): { reason: string; accountRefused: boolean } | undefined {
    return this.outage && { reason: this.outage.reason, accountRefused: this.outage.accountRefused }
  }

  /**
   * The probe saw the park answer again after failing to: a drain now, of the records whose pushes
   * never reached the park too. Unless the probe already started one since the retry job last ran:
   * a flapping park is knocked on at the job's pace.
   */
  private parkBack(): void {
    const now = Date.now()
    if (this.outage) {
      if (this.outage.probeDrainAt > this.outage.jobRanAt) return
      this.outage.probeDrainAt = now
    }
    this.stats.probeDrains++
    // Its drain may find nothing pending: the records whose retries ran out meanwhile are queued first.
    void this.requeueUndelivered().finally(() => this.drainSoon())
  }

  /** Queues again the failed records whose pushes never reached the park, and drains them (after the drain running). */
  private async requeueUndelivered(): Promise<void> {
    try {
      if ((await this.sync.requeueFailed(this.drains.targets(), { undelivered: true })) > 0) void this.wake()
    } catch (error) {
      // The sweep queues them again later.
      this.log.warn({ err: error }, 'park push: could not queue undelivered records again')
    }
  }

  /**
   * After a write committed: a drain soon (at once, or again after the one running). Never throws,
   * never waits: the promise, which callers may leave, settles when the drains it asked for ended
   * (at once when it asked for none: stopped, or a retry job waiting and no drain coming).
   */
  wake(): Promise<void> {
    if (this.retryJob && !this.wakeLoop) return Promise.resolve()
    return this.drainSoon()
  }

  /** A drain soon, whether a retry job waits or not (at once, or again after the one running). */
  private drainSoon(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    this.wokenMeanwhile = true
    this.wakeLoop ??= this.loop()
    return this.wakeLoop
  }

  private async loop(): Promise<void> {
    try {
      while (this.wokenMeanwhile && !this.stopped) {
        // The writes of the next moments join this drain: under load, fuller pages and fewer calls.
        if (this.settings.debounceMs > 0) await delay(this.settings.debounceMs)
        this.wokenMeanwhile = false
        await this.drain()
      }
    } catch (error) {
      // The park could not be reached (or the database failed): pg-boss retries with backoff, by
      // the job waiting already if there is one.
      this.log.warn({ err: error }, 'park push: retried later')
      this.retryJob ??= await this.queueRetryJob()
    } finally {
      // A failed drain leaves the wakes that came meanwhile to the retry job (or the sweep).
      this.wokenMeanwhile = false
      this.wakeLoop = undefined
    }
  }

  /** Queues the retry job; its id, or undefined when none was queued. */
  private async queueRetryJob(): Promise<string | undefined> {
    try {
      // Its first run after pg-boss's first retry delay: the drain that failed was its first attempt.
      return (await this.background.boss.send(PUSH_QUEUE, {}, { startAfter: 1 })) ?? undefined
    } catch (error) {
      // No retry job (the database failed too): the next write knocks again (the sweep drains
      // what is pending meanwhile), rather than every write waiting for a job that never came.
      this.log.warn({ err: error }, 'could not queue the park push')
      return undefined
    }
  }

  /**
   * One drain (after the one running in this process, if any): pushes every pending record; throws
   * when the park could not be reached. `byJob`: the id of the retry job running it, if one is.
   */
  async drain(byJob?: string): Promise<void> {
    const run = this.drainsInOrder.then(() => this.drainOnce(byJob))
    this.drainsInOrder = run.catch(() => undefined)
    await run
  }

  private async drainOnce(byJob: string | undefined): Promise<void> {
    try {
      const callsBefore = this.stats.calls
      await this.drains.drainAll()
      // Calls made and answered, after calls that failed.
      const recovered = this.outage !== undefined && this.stats.calls > callsBefore
      await this.endRetryJob(byJob)
      this.outage = undefined
      this.probe.stop()
      // The park takes pushes again after failed calls (back after an outage, or over its own
      // errors): the records whose retries ran out meanwhile go now, not after the sweep's rest.
      if (recovered) await this.requeueUndelivered()
    } catch (error) {
      if (error instanceof ParkUnavailable) {
        this.outage = {
          reason: error.message,
          accountRefused: error.accountRefused,
          probeDrainAt: this.outage?.probeDrainAt ?? 0,
          jobRanAt: this.outage?.jobRanAt ?? 0,
        }
        // Nothing answered: watch for the park to come back. It answered (a refusal, an error): the
        // backoff alone paces the next attempts.
        if (error.unreachable && !this.stopped) this.probe.start()
        else if (!error.unreachable) this.probe.stop()
      }
      throw error
    }
  }

  /** A drain went through: the retry job waiting is not needed any more (pg-boss completes it when it ran the drain). */
  private async endRetryJob(byJob: string | undefined): Promise<void> {
    const waiting = this.retryJob
    this.retryJob = undefined
    if (waiting === undefined || waiting === byJob) return
    await this.background.boss.cancel(PUSH_QUEUE, waiting).catch((error: Error) => {
      // It runs once more and finds nothing, or the next outage's failures meet it.
      this.log.warn({ err: error }, 'could not cancel the park push retry')
    })
  }

  /**
   * Queues failed records again once rested (each at most `failedRequeueRounds` times: a record the
   * park can never apply stays failed with its reason), and drains anything pending. Never throws.
   */
  async sweep(): Promise<void> {
    try {
      const targets = this.drains.targets()
      await this.sync.requeueFailed(targets, {
        sweep: { restedSeconds: this.settings.failedRetrySeconds, rounds: this.settings.failedRequeueRounds },
      })
      // Only when something waits: a drain that pushes nothing tells nothing of the park.
      if ((await this.sync.hasPending(targets)) || (await this.companions.streamsWaiting())) await this.drain()
    } catch (error) {
      // Recorded on the records; the next sweep or retry tries again.
      this.log.warn({ err: error }, 'park sweep: not everything was pushed')
    }
  }

  /** The push queue's jobs by state, for metrics; undefined before start. */
  async queueDepth(): Promise<{ queued: number; active: number; failed: number } | undefined> {
    const queue = await this.background.boss.getQueue(PUSH_QUEUE)
    return queue ? { queued: queue.queuedCount, active: queue.activeCount, failed: queue.failedCount } : undefined
  }

  /** One pass of pg-boss's supervisor now (expiry of jobs whose process died); it also runs on its own. */
  async supervise(): Promise<void> {
    await this.background.boss.supervise()
  }

  /** Ready when pg-boss is installed and its push queue exists. */
  async ready(): Promise<boolean> {
    return this.background.hasQueue(PUSH_QUEUE)
  }

  /** Lets the drain in progress finish (graceful), takes no more retry jobs, and leaves no look at the park behind. */
  async stop(): Promise<void> {
    this.stopped = true
    this.probe.stop()
    this.companions.stop()
    await this.wakeLoop
    await this.drainsInOrder
    for (const queue of [PUSH_QUEUE, SWEEP_QUEUE, RECONCILE_QUEUE]) await this.background.release(queue)
    await this.probe.settled()
  }
}
