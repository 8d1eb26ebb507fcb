// Park edition: the minutes of readings its enterprises pushed are kept as long as the enterprises
// keep the readings themselves (READINGS_RETENTION_DAYS): older ones are deleted by a pg-boss
// schedule, hourly and once at start (run once across instances sharing the database), in batches.
import type { FastifyBaseLogger } from 'fastify'
import type { Background } from '../store/background.ts'
import type { ParkMonitoringStore } from '../store/park-monitoring-store.ts'

export const MINUTES_PRUNE_QUEUE = 'park-minutes-prune'
/** Minutes deleted per statement. */
const PRUNE_BATCH = 10_000
const DAY_MS = 86_400_000

interface RetentionOptions {
  background: Background
  store: Pick<ParkMonitoringStore, 'pruneMinutes'>
  /** READINGS_RETENTION_DAYS. */
  days: number
  clock: () => number
  log: FastifyBaseLogger
}

export class ParkMinuteRetention {
  private readonly options: RetentionOptions

  constructor(options: RetentionOptions) {
    this.options = options
  }

  async start(): Promise<void> {
    const { background } = this.options
    await background.queue(MINUTES_PRUNE_QUEUE, { policy: 'stately', cron: '23 * * * *' }, async () => void (await this.prune()))
    await background.boss.send(MINUTES_PRUNE_QUEUE, {})
  }

  /** Deletes the pushed minutes older than the retention; answers how many. */
  async prune(): Promise<number> {
    const { store, days, clock, log } = this.options
    const before = new Date(clock() - days * DAY_MS)
    let pruned = 0
    for (;;) {
      const deleted = await store.pruneMinutes(before, PRUNE_BATCH)
      pruned += deleted
      if (deleted < PRUNE_BATCH) break
    }
    if (pruned > 0) log.info({ pruned, days }, 'pushed minutes of readings past their retention deleted')
    return pruned
  }

  /** Takes no more runs (the one in progress finishes). */
  async stop(): Promise<void> {
    await this.options.background.release(MINUTES_PRUNE_QUEUE)
  }
}
