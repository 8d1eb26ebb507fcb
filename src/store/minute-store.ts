// The enterprise's side of the push of readings (migration 125): the minutes of points that changed
// since the park last received them, each with its aggregate recomputed from the stored readings,
// and forgetting a minute once the park answered for the aggregate of that very note.
import type pg from 'pg'
import type { PushedMinute } from './park-monitoring-store.ts'
import { readingMilliseconds } from './reading-store.ts'
import { trimmed, VALUE } from './reading-queries.ts'

/** One minute of one point as the push sends it (the document's PushedMinute), with the note it answers. */
export interface ChangedMinute {
  point: number
  /** The minute's start, reading seconds. */
  second: number
  /** The note's mark: the minute is forgotten only if not noted again since. */
  change: string
  item: PushedMinute | null
}

export class ChangedMinutes {
  private readonly pool: pg.Pool
  private readonly companyCode: string

  constructor(options: { pool: pg.Pool; companyCode: string }) {
    this.pool = options.pool
    this.companyCode = options.companyCode
  }

  /**
   * The oldest `limit` notes up to the mark `upTo`, each with its minute's aggregate as stored now (null when its readings
   * are gone: past the retention). Read in one statement, so a note and the readings it stands for
   * agree: a reading stored later notes its minute again.
   */
  async page(limit: number, upTo: string): Promise<ChangedMinute[]> {
    const { rows } = await this.pool.query(
      `SELECT c.point, c.minute, c.change::text AS change, p."monitorEquipId", a.* ` +
        `FROM (SELECT * FROM monitor_minute_changed WHERE change <= $2 ORDER BY change LIMIT $1) AS c JOIN monitor_point p ON p.point = c.point ` +
        `CROSS JOIN LATERAL (SELECT count(*)::int AS count, (array_agg(${VALUE} ORDER BY r.value, r.time))[1] AS min, ` +
        `(array_agg(${VALUE} ORDER BY r.value DESC, r.time))[1] AS max, (array_agg(${VALUE} ORDER BY r.time DESC))[1] AS last, ` +
        `(array_agg(r.fault ORDER BY r.time DESC))[1] AS "lastFault", sum(r.value)::text AS sum, ` +
        `round(sum(r.value) / nullif(count(*), 0), 6)::text AS avg ` +
        `FROM monitor_reading r WHERE r.point = c.point AND r.time >= c.minute AND r.time < c.minute + 60) AS a ORDER BY c.change`,
      [limit, upTo],
    )
    return rows.map((row) => ({
      point: row.point,
      second: row.minute,
      change: row.change,
      item:
        row.count === 0
          ? null
          : {
              companyCode: this.companyCode,
              monitorEquipId: row.monitorEquipId,
              minute: new Date(readingMilliseconds(row.minute)).toISOString().replace('.000Z', 'Z'),
              min: row.min,
              max: row.max,
              avg: trimmed(row.avg),
              sum: row.sum,
              last: row.last,
              lastQuality: row.lastFault ? 1 : 0,
              count: row.count,
            },
    }))
  }

  /** Forgets these notes, those not noted again since (locked in key order, as the ingest notes them). */
  async forget(minutes: Pick<ChangedMinute, 'point' | 'second' | 'change'>[]): Promise<void> {
    if (minutes.length === 0) return
    await this.pool.query(
      `DELETE FROM monitor_minute_changed WHERE ctid = ANY (ARRAY(SELECT c.ctid FROM monitor_minute_changed c ` +
        `JOIN unnest($1::int[], $2::int[], $3::bigint[]) AS f(point, minute, change) ` +
        `ON c.point = f.point AND c.minute = f.minute AND c.change = f.change ORDER BY c.point, c.minute FOR UPDATE OF c))`,
      [minutes.map((m) => m.point), minutes.map((m) => m.second), minutes.map((m) => m.change)],
    )
  }

  /** The mark of the latest note, null when none waits. */
  async lastChange(): Promise<string | null> {
    const { rows } = await this.pool.query(`SELECT max(change)::text AS change FROM monitor_minute_changed`)
    return rows[0].change
  }

  /** How many minutes wait to be pushed. */
  async waiting(): Promise<number> {
    const { rows } = await this.pool.query(`SELECT count(*)::int AS minutes FROM monitor_minute_changed`)
    return rows[0].minutes
  }

  async hasChanged(): Promise<boolean> {
    const { rows } = await this.pool.query(`SELECT EXISTS (SELECT 1 FROM monitor_minute_changed) AS any`)
    return rows[0].any
  }
}
