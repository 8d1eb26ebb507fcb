// The inspection periods that ended without a record, taken once each to record their
// `period.missed` event (docs/events.md, migration 135): a period is watched from the transaction
// that writes it while it runs, and its watch row is deleted in the transaction that records its
// event, taken with SKIP LOCKED: several instances never record one twice.
import type pg from 'pg'
import { inTransaction, type Queryable } from './database.ts'

export interface MissedPeriod {
  companyCode: string
  id: string
  taskId: string
  start: Date
  end: Date
  workType: string
  /** When it was missed as far as the service can tell: its end, or when it was written if later. */
  missedAt: Date
}

/** Takes (deletes) the watched periods ended by `$1`, at most `$2`, oldest end first. */
const TAKE_ENDED =
  `DELETE FROM period_watch w USING (SELECT "companyCode", id FROM period_watch WHERE "end" <= $1 ORDER BY "end" LIMIT $2 ` +
  `FOR UPDATE SKIP LOCKED) due WHERE w."companyCode" = due."companyCode" AND w.id = due.id RETURNING w."companyCode", w.id, w."end" AS watched`

/**
 * Of the periods taken, those without a record. The lock waits for a record's transaction judging
 * the period (the record trigger updates its row) and reads the row as that transaction left it: a
 * record written before the end keeps its period out.
 */
const WITHOUT_RECORD =
  `SELECT p."companyCode", p.id, p."taskId", p.start, p."end", p."workType", greatest(p."end", t.watched) AS "missedAt" FROM inspection_period p ` +
  `JOIN json_to_recordset($1::json) AS t("companyCode" text, id text, watched timestamptz) ON p."companyCode" = t."companyCode" AND p.id = t.id ` +
  `WHERE p."recordId" IS NULL ORDER BY p."end", p."companyCode", p.id FOR SHARE OF p`

export class MissedPeriodStore {
  private readonly pool: pg.Pool

  constructor(options: { pool: pg.Pool }) {
    this.pool = options.pool
  }

  /**
   * Watches the periods just written, in the writer's transaction: those still running until their
   * end, and those written already ended after `endedAfter` (a task added with a start in the past)
   * as of `now`, when they are known missed.
   */
  async watch(
    db: Queryable,
    companyCode: string,
    periods: readonly { id: string; end: number }[],
    now: number,
    endedAfter: number,
  ): Promise<void> {
    const watched = periods.filter((period) => period.end > endedAfter).map(({ id, end }) => ({ id, e: Math.max(end, now) }))
    if (watched.length === 0) return
    await db.query(
      `INSERT INTO period_watch ("companyCode", id, "end") SELECT $1, id, to_timestamp(e / 1000.0) ` +
        `FROM json_to_recordset($2::json) AS items(id text, e bigint) ON CONFLICT DO NOTHING`,
      [companyCode, JSON.stringify(watched)],
    )
  }

  /**
   * Runs `record` over the periods that ended by `now` without a record (of at most `limit` watched
   * ones), in the transaction that stops watching them; answers how many were taken.
   */
  async takeMissed(now: Date, limit: number, record: (periods: MissedPeriod[], db: Queryable) => Promise<void>): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const taken = (await client.query<{ companyCode: string; id: string }>(TAKE_ENDED, [now, limit])).rows
      if (taken.length === 0) return 0
      const { rows } = await client.query<MissedPeriod>(WITHOUT_RECORD, [JSON.stringify(taken)])
      if (rows.length > 0) await record(rows, client)
      return taken.length
    })
  }
}
