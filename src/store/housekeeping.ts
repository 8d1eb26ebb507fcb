// Housekeeping on a schedule (pg-boss, every ten minutes, one run at a time across instances):
// expired Idempotency-Keys, expired revoked sessions and expired rate-limit counters are deleted,
// in bounded batches, so the tables stay the size of what is still in force whatever the traffic,
// not only when a key happens to be reused.
import { EventEmitter } from 'node:events'
import type { FastifyBaseLogger } from 'fastify'
import type pg from 'pg'
import type { Background } from './background.ts'
import { deleteInBatches } from './database.ts'

export const HOUSEKEEPING_QUEUE = 'housekeeping'
export const HOUSEKEEPING_CRON = '*/10 * * * *'
/** Rows deleted per statement: no statement holds its locks long. */
const BATCH = 5000

export interface Pruned {
  idempotencyKeys: number
  revokedSessions: number
  rateLimits: number
}

const EXPIRED: Record<keyof Pruned, { table: string; column: string }> = {
  idempotencyKeys: { table: 'idempotency_key', column: '"expiresAt"' },
  revokedSessions: { table: 'revoked_session', column: '"expiresAt"' },
  rateLimits: { table: 'rate_limit', column: '"resetAt"' },
}

/** Deletes every expired row; returns how many of each. */
export async function prune(pool: pg.Pool): Promise<Pruned> {
  const pruned: Pruned = { idempotencyKeys: 0, revokedSessions: 0, rateLimits: 0 }
  for (const [name, { table, column }] of Object.entries(EXPIRED) as [keyof Pruned, (typeof EXPIRED)[keyof Pruned]][])
    pruned[name] = await deleteInBatches(pool, { table, key: 'ctid', where: `${column} < now()`, batch: BATCH })
  return pruned
}

/** Emits `ran` (with what was pruned) after each run, scheduled or not. */
export class Housekeeping extends EventEmitter<{ ran: [Pruned] }> {
  private readonly background: Background
  private readonly pool: pg.Pool
  private readonly log: FastifyBaseLogger

  constructor(options: { background: Background; pool: pg.Pool; log: FastifyBaseLogger }) {
    super()
    this.background = options.background
    this.pool = options.pool
    this.log = options.log
  }

  async start(): Promise<void> {
    await this.background.queue(HOUSEKEEPING_QUEUE, { policy: 'stately', cron: HOUSEKEEPING_CRON }, async () => void (await this.run()))
  }

  /** One run now (what the schedule runs). */
  async run(): Promise<Pruned> {
    const pruned = await prune(this.pool)
    this.log.info({ pruned }, 'housekeeping')
    this.emit('ran', pruned)
    return pruned
  }

  /** Takes no more runs (the one in progress finishes). */
  async stop(): Promise<void> {
    await this.background.release(HOUSEKEEPING_QUEUE)
  }
}
