// HISTORY_RETENTION_DAYS (CONTRACT §11): history entries older than that are pruned by a pg-boss
// schedule (daily, and once at start), whatever the edition. pg-boss runs the schedule once across
// instances sharing the database. Without the setting, history is kept forever and this is not started.
import type { FastifyBaseLogger } from 'fastify'
import { PgBoss } from 'pg-boss'
import type { Config } from '../config.ts'
import type { HistoryStore } from '../store/history-store.ts'

export const PRUNE_QUEUE = 'history-prune'

export class HistoryRetention {
  private readonly boss: PgBoss
  private readonly history: HistoryStore
  private readonly days: number
  private readonly log: FastifyBaseLogger

  constructor(options: { databaseUrl: string; history: HistoryStore; days: number; log: FastifyBaseLogger }) {
    this.boss = new PgBoss({ connectionString: options.databaseUrl, schema: 'pgboss', max: 2 })
    this.boss.on('error', (error) => options.log.warn({ err: error }, 'pg-boss (history retention)'))
    this.history = options.history
    this.days = options.days
    this.log = options.log
  }

  async start(): Promise<void> {
    await this.boss.start()
    await this.boss.createQueue(PRUNE_QUEUE, { policy: 'stately' }).catch((error: Error) => {
      if (!/already exists/i.test(error.message)) throw error
    })
    await this.boss.schedule(PRUNE_QUEUE, '17 3 * * *')
    await this.boss.work(PRUNE_QUEUE, async () => {
      await this.prune()
    })
    await this.boss.send(PRUNE_QUEUE, {})
  }

  /** Deletes the entries older than the retention; answers how many. */
  async prune(): Promise<number> {
    const pruned = await this.history.prune(this.days)
    if (pruned > 0) this.log.info({ pruned, days: this.days }, 'history pruned')
    return pruned
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: 10_000 } as never)
  }
}

/** The pruning when HISTORY_RETENTION_DAYS is set; none otherwise (history kept forever). */
export function historyRetention(config: Config, history: HistoryStore, log: FastifyBaseLogger): HistoryRetention | undefined {
  const days = config.historyRetentionDays
  return days ? new HistoryRetention({ databaseUrl: config.databaseUrl, history, days, log }) : undefined
}
