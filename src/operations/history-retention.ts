// HISTORY_RETENTION_DAYS: history entries older than that are pruned by a pg-boss
// schedule (daily, and once at start), whatever the edition, on the process's background jobs
// (store/background.ts). pg-boss runs the schedule once across instances sharing the database. Without the setting, history is kept forever and this is not started.
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.ts'
import type { Background } from '../store/background.ts'
import type { HistoryStore } from '../store/history-store.ts'

export const PRUNE_QUEUE = 'history-prune'

export class HistoryRetention {
  private readonly background: Background
  private readonly history: HistoryStore
  private readonly days: number
  private readonly log: FastifyBaseLogger

  constructor(options: { background: Background; history: HistoryStore; days: number; log: FastifyBaseLogger }) {
    this.background = options.background
    this.history = options.history
    this.days = options.days
    this.log = options.log
  }

  async start(): Promise<void> {
    await this.background.queue(PRUNE_QUEUE, { policy: 'stately', cron: '17 3 * * *' }, async () => void (await this.prune()))
    await this.background.boss.send(PRUNE_QUEUE, {})
  }

  /** Deletes the entries older than the retention; answers how many. */
  async prune(): Promise<number> {
    const pruned = await this.history.prune(this.days)
    if (pruned > 0) this.log.info({ pruned, days: this.days }, 'history pruned')
    return pruned
  }

  /** Takes no more runs (the one in progress finishes). */
  async stop(): Promise<void> {
    await this.background.release(PRUNE_QUEUE)
  }
}

/** The pruning when HISTORY_RETENTION_DAYS is set; none otherwise (history kept forever). */
export function historyRetention(
  config: Config,
  history: HistoryStore,
  background: Background,
  log: FastifyBaseLogger,
): HistoryRetention | undefined {
  const days = config.historyRetentionDays
  return days ? new HistoryRetention({ background, history, days, log }) : undefined
}
