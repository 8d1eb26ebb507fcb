// The enterprise's side of the push of readings (migration 151): which minutes of which points the
// park has yet to receive, and their aggregates recomputed from the stored readings. Each batch of
// readings lowers its points' `pushFrom` to the earliest minute it changed, on the row it rewrites
// anyway. A drain first claims those minutes (`pushFrom` moves to `pushTaken`), then reads the
// claimed points' minutes in pages and, once the park answered for a page, releases what it held.
// A batch committed after the claim sets `pushFrom` again: its minutes go with the next drain.
import type pg from 'pg'
import type { PushedMinute } from './park-monitoring-store.ts'
import { readingMilliseconds } from './reading-store.ts'
import { meanSql, trimmed, VALUE } from './reading-queries.ts'

/** One minute of one point as the push sends it (the document's PushedMinute). */
export interface ChangedMinute {
  point: number
  /** The minute's start, reading seconds. */
  second: number
  item: PushedMinute
}

/** A claimed point of a page: from which minute it was claimed, and how far the page went. */
export interface ClaimedPoint {
  point: number
  /** The claim, as read: released only if no later claim lowered it meanwhile. */
  taken: number
  /** The last minute the page went through of the point; undefined when the page holds all it had. */
  reachedMinute: number | undefined
}

export interface MinutePage {
  minutes: ChangedMinute[]
  points: ClaimedPoint[]
  /** Where the next page starts (a point number, inclusive); undefined after the last page. */
  next: number | undefined
}

/** Minutes a page carries at most, and claimed points it looks at. */
const PAGE = 1000
/** How far past its claim a page looks for a point's minutes (reading seconds): a page holds no more. */
const WINDOW = PAGE * 60

export class ChangedMinutes {
  private readonly pool: pg.Pool
  private readonly companyCode: string

  constructor(options: { pool: pg.Pool; companyCode: string }) {
    this.pool = options.pool
    this.companyCode = options.companyCode
  }

  /**
   * Claims every minute noted so far. It waits for the batches holding a point's row, so every
   * reading committed before it is in the minutes it claims; rows are locked in point order, as
   * the ingest locks them.
   */
  async claim(): Promise<void> {
    await this.pool.query(
      `UPDATE monitor_point SET "pushTaken" = least("pushTaken", "pushFrom"), "pushFrom" = NULL ` +
        `WHERE ctid = ANY (ARRAY(SELECT ctid FROM monitor_point WHERE "pushFrom" IS NOT NULL ORDER BY point FOR UPDATE))`,
    )
  }

  /**
   * The claimed minutes of the points from `from` on, in point and minute order, each with its
   * aggregate as stored now (min, max and last each the earliest spelling of its number in the
   * minute); a point's minutes past the page's end come with the next page.
   */
  async page(from: number): Promise<MinutePage> {
    const { rows } = await this.pool.query(
      `SELECT c.point, c.taken, c."monitorEquipId", ` +
        `EXISTS (SELECT 1 FROM monitor_reading x WHERE x.point = c.point AND x.time >= c.taken + $3) AS beyond, a.* ` +
        `FROM (SELECT point, "pushTaken" AS taken, "monitorEquipId" FROM monitor_point ` +
        `WHERE "pushTaken" IS NOT NULL AND point >= $1 ORDER BY point LIMIT $2) AS c ` +
        `LEFT JOIN LATERAL (SELECT r.minute, count(*)::int AS count, ` +
        `(array_agg(r.text ORDER BY r.value, r.time))[1] AS min, (array_agg(r.text ORDER BY r.value DESC, r.time))[1] AS max, ` +
        `(array_agg(r.text ORDER BY r.time) FILTER (WHERE r.value = r.newest))[1] AS last, ` +
        `(array_agg(r.fault ORDER BY r.time DESC))[1] AS "lastFault", sum(r.value)::text AS sum, ${meanSql('sum(r.value)', 'count(*)')} AS avg ` +
        `FROM (SELECT time - time % 60 AS minute, time, value, fault, ${VALUE} AS text, ` +
        `first_value(value) OVER (PARTITION BY time - time % 60 ORDER BY time DESC) AS newest ` +
        `FROM monitor_reading WHERE point = c.point AND time >= c.taken AND time < c.taken + $3) AS r GROUP BY 1) AS a ON true ` +
        `ORDER BY c.point, a.minute LIMIT $2`,
      [from, PAGE, WINDOW],
    )
    const minutes: ChangedMinute[] = []
    const points = new Map<number, ClaimedPoint>()
    for (const row of rows) {
      // Readings past the window: the point is claimed again from the window's end.
      const reachedMinute = row.beyond ? row.taken + WINDOW - 60 : undefined
      points.set(row.point, { point: row.point, taken: row.taken, reachedMinute })
      if (row.minute === null) continue
      minutes.push({
        point: row.point,
        second: row.minute,
        item: {
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
      })
    }
    const claimed = [...points.values()]
    const last = claimed.at(-1)
    if (last === undefined) return { minutes, points: claimed, next: undefined }
    if (rows.length === PAGE) {
      // The page is full: its last point may have more minutes than it holds.
      const lastMinute = rows.at(-1).minute
      if (lastMinute !== null) last.reachedMinute = lastMinute
    }
    // The next page goes on from the first point not done; past the page's points when all are,
    // unless the page held fewer points than it looks at (the last page).
    const unfinished = claimed.find((point) => point.reachedMinute !== undefined)
    const next = unfinished?.point ?? (rows.length < PAGE && claimed.length < PAGE ? undefined : last.point + 1)
    return { minutes, points: claimed, next }
  }

  /**
   * Releases a page the park answered for: a point is done, or claimed from past the page's last
   * minute of it; either only if no later claim lowered it meanwhile. Locked in point order.
   */
  async release(points: ClaimedPoint[]): Promise<void> {
    if (points.length === 0) return
    await this.pool.query(
      `UPDATE monitor_point AS p SET "pushTaken" = CASE WHEN r.reached IS NULL THEN NULL ELSE r.reached + 60 END ` +
        `FROM unnest($1::int[], $2::int[], $3::int[]) AS r(point, taken, reached) WHERE p.point = r.point AND p."pushTaken" = r.taken ` +
        `AND p.ctid = ANY (ARRAY(SELECT ctid FROM monitor_point WHERE point = ANY ($1::int[]) ORDER BY point FOR UPDATE))`,
      [points.map((p) => p.point), points.map((p) => p.taken), points.map((p) => p.reachedMinute ?? null)],
    )
  }

  /** How many points have minutes waiting to be pushed. */
  async waiting(): Promise<number> {
    const { rows } = await this.pool.query(
      `SELECT count(*)::int AS points FROM monitor_point WHERE "pushFrom" IS NOT NULL OR "pushTaken" IS NOT NULL`,
    )
    return rows[0].points
  }

  async hasChanged(): Promise<boolean> {
    const { rows } = await this.pool.query(
      `SELECT EXISTS (SELECT 1 FROM monitor_point WHERE "pushFrom" IS NOT NULL OR "pushTaken" IS NOT NULL) AS any`,
    )
    return rows[0].any
  }
}
