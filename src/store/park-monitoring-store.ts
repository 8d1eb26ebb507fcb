// Park edition: live monitoring from what the enterprises push (park migrations 125, 126, 162).
// Readings arrive as one-minute aggregates per point, each replacing the minute held; the park's
// aggregates of wider buckets and its live board are read from them, its alarms are the pushed ones.
import type { Bucket, BucketOut, LatestOut } from './reading-queries.ts'
import { BUCKET_INTERVALS, meanSql, trimmed, ZonedReads } from './reading-queries.ts'
import { pushedBy } from './park-store.ts'
import { literal } from './sql-text.ts'

/** A pushed minute (the document's PushedMinute), already validated. */
export interface PushedMinute {
  companyCode: string
  monitorEquipId: string
  minute: string
  min: string
  max: string
  avg: string
  sum: string
  last: string
  lastQuality: 0 | 1
  count: number
}

/** A point of one enterprise. */
export interface HeldPoint {
  companyCode: string
  monitorEquipId: string
}

/** A point of the park's live board: the enterprise's entry, with its companyCode. */
export interface ParkLatest extends LatestOut {
  companyCode: string
}

/** One enterprise's live monitoring at a glance (the park's overview). */
export interface MonitoringOverview {
  activeAlarms: number
  activeAlarmsByKind: { kind: string; level: number | null; count: number }[]
  offlinePoints: number
}

const KIND_ORDER = ['high', 'low', 'outOfRange', 'fault', 'offline', 'frozen']

/**
 * Upserts a page of minutes in one statement (of one minute pushed twice in a page, the later item),
 * noting the points and the enterprises' push time.
 */
const APPLY =
  `WITH input AS (SELECT DISTINCT ON ("companyCode", "monitorEquipId", minute) * FROM ROWS FROM (json_to_recordset($1::json) AS ` +
  `("companyCode" text, "monitorEquipId" text, minute timestamptz, min text, max text, avg text, sum numeric, last text, ` +
  `"lastQuality" smallint, count integer)) WITH ORDINALITY AS m("companyCode", "monitorEquipId", minute, min, max, avg, sum, last, ` +
  `"lastQuality", count, n) ORDER BY "companyCode", "monitorEquipId", minute, n DESC), ` +
  `${pushedBy('SELECT "companyCode" FROM input')}, ` +
  `points AS (INSERT INTO park_reading_point ("companyCode", "monitorEquipId") SELECT DISTINCT "companyCode", "monitorEquipId" FROM input ` +
  `ORDER BY 1, 2 ON CONFLICT DO NOTHING) ` +
  `INSERT INTO park_reading_minute ("companyCode", "monitorEquipId", minute, min, max, avg, sum, last, "lastQuality", count, "pushTime") ` +
  `SELECT "companyCode", "monitorEquipId", minute, min, max, avg, sum, last, "lastQuality", count, now() FROM input ` +
  `ORDER BY 1, 2, 3 ON CONFLICT ("companyCode", "monitorEquipId", minute) DO UPDATE SET min = EXCLUDED.min, max = EXCLUDED.max, ` +
  `avg = EXCLUDED.avg, sum = EXCLUDED.sum, last = EXCLUDED.last, "lastQuality" = EXCLUDED."lastQuality", count = EXCLUDED.count, ` +
  `"pushTime" = EXCLUDED."pushTime"`

export class ParkMonitoringStore extends ZonedReads {
  /** Applies pushed minutes, each replacing the minute held; answers how many. */
  async apply(minutes: PushedMinute[]): Promise<number> {
    if (minutes.length === 0) return 0
    const { rowCount } = await this.pool.query(APPLY, [JSON.stringify(minutes)])
    return rowCount ?? 0
  }

  /**
   * Deletes up to `limit` pushed minutes older than `before` (found by the minutes' BRIN index, park
   * migration 161); answers how many. In bounded batches, so that no statement outlasts its timeout.
   */
  async pruneMinutes(before: Date, limit: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM park_reading_minute WHERE ctid = ANY(ARRAY(SELECT ctid FROM park_reading_minute WHERE minute < $1 LIMIT $2))`,
      [before, limit],
    )
    return rowCount ?? 0
  }

  /** Per point id, the enterprises holding it: its live equipment pushed, or minutes of it. */
  async holders(ids: string[]): Promise<Map<string, string[]>> {
    const { rows } = await this.pool.query<{ id: string; companies: string[] }>(
      `SELECT id, array_agg(DISTINCT company ORDER BY company) AS companies FROM (` +
        `SELECT id, "companyCode" AS company FROM monitor_equip WHERE live AND id = ANY($1::text[]) UNION ` +
        `SELECT "monitorEquipId", "companyCode" FROM park_reading_point WHERE "monitorEquipId" = ANY($1::text[])) AS held GROUP BY id`,
      [ids],
    )
    return new Map(rows.map((row) => [row.id, row.companies]))
  }

  /**
   * Per point, the buckets of from <= minute < to (Unix seconds, whole minutes) holding pushed
   * minutes, aligned to the zone its enterprise pushed (the configured one until it pushed one).
   */
  async aggregate(points: HeldPoint[], from: number, to: number, bucket: Bucket): Promise<Map<string, BucketOut[]>> {
    const start = (m: string) => {
      const zone = `zone_name(coalesce((SELECT z."timeZone" FROM park_enterprise_zone z WHERE z."companyCode" = ${m}."companyCode"), ${literal(this.timeZone)}))`
      return `date_bin(${literal(BUCKET_INTERVALS[bucket])}::interval, ${m}.minute AT TIME ZONE ${zone}, timestamp '2000-01-01') AT TIME ZONE ${zone}`
    }
    // A minute's min, max and last are each the earliest spelling of its number in that minute. Of
    // the newest minute's last number, the bucket gives the spelling of the earliest minute where
    // one of those three holds it; looked up only where a spelling is not the number's plain text.
    const plain = (text: string) => `${text} = trim_scale(${text}::numeric)::text`
    const earliestLast =
      `(SELECT v.t FROM park_reading_minute AS e CROSS JOIN LATERAL (VALUES (e.min), (e.max), (e.last)) AS v(t) ` +
      `WHERE e."companyCode" = b."companyCode" AND e."monitorEquipId" = b."monitorEquipId" AND e.minute >= b.bucket ` +
      `AND e.minute < b.bucket + ${literal(BUCKET_INTERVALS[bucket])}::interval + interval '1 hour' AND ${start('e')} = b.bucket ` +
      `AND v.t::numeric = b.last::numeric ORDER BY e.minute LIMIT 1)`
    const { rows } = await this.pool.query(
      `WITH b AS (SELECT m."companyCode", m."monitorEquipId", ${start('m')} AS bucket, sum(m.count)::int AS count, ` +
        `(array_agg(m.min ORDER BY m.min::numeric, m.minute))[1] AS min, (array_agg(m.max ORDER BY m.max::numeric DESC, m.minute))[1] AS max, ` +
        `(array_agg(m.last ORDER BY m.minute DESC))[1] AS last, ${meanSql('sum(m.sum)', 'sum(m.count)')} AS avg, ` +
        `count(*) > 1 AND NOT bool_and(${plain('m.min')} AND ${plain('m.max')} AND ${plain('m.last')}) AS varied ` +
        `FROM park_reading_minute m JOIN unnest($1::text[], $2::text[]) AS p(company, id) ON m."companyCode" = p.company AND m."monitorEquipId" = p.id ` +
        `WHERE m.minute >= to_timestamp($3) AND m.minute < to_timestamp($4) GROUP BY 1, 2, 3) ` +
        `SELECT b."companyCode", b."monitorEquipId", b.bucket, b.count, b.min, b.max, b.avg, ` +
        `CASE WHEN b.varied THEN coalesce(${earliestLast}, b.last) ELSE b.last END AS last FROM b ORDER BY 1, 2, 3`,
      [points.map((point) => point.companyCode), points.map((point) => point.monitorEquipId), from, to],
    )
    const byPoint = new Map<string, BucketOut[]>()
    for (const row of rows) {
      const key = pointKey(row)
      const buckets = byPoint.get(key) ?? []
      buckets.push({ time: this.format(row.bucket), min: row.min, max: row.max, avg: trimmed(row.avg), last: row.last, count: row.count })
      byPoint.set(key, buckets)
    }
    return byPoint
  }

  /**
   * The live board: a page of the live pushed equipment (the points named, or one enterprise's, or
   * every enterprise's), each with its newest pushed minute's `last` at that minute, and its active alarms.
   */
  async latest(query: { points?: HeldPoint[]; companyCode?: string; pageNum: number; pageSize: number }) {
    const named = query.points ?? null
    const where =
      `e.live AND ($1::text[] IS NULL OR (e."companyCode", e.id) IN (SELECT * FROM unnest($1::text[], $2::text[]))) ` +
      `AND ($3::text IS NULL OR e."companyCode" = $3)`
    const values = [
      named && named.map((point) => point.companyCode),
      named && named.map((point) => point.monitorEquipId),
      query.companyCode ?? null,
    ]
    const { rows } = await this.pool.query(
      `SELECT e."companyCode", e.id AS "monitorEquipId", e."monitorCode", n.minute, n.last, n."lastQuality", count(*) OVER ()::int AS total ` +
        `FROM monitor_equip e LEFT JOIN LATERAL (SELECT minute, last, "lastQuality" FROM park_reading_minute m ` +
        `WHERE m."companyCode" = e."companyCode" AND m."monitorEquipId" = e.id ORDER BY minute DESC LIMIT 1) AS n ON true ` +
        `WHERE ${where} ORDER BY e."companyCode", e.id COLLATE "C" LIMIT $4 OFFSET $5`,
      [...values, query.pageSize, (query.pageNum - 1) * query.pageSize],
    )
    const alarms = await this.pool.query(
      `SELECT "companyCode", "monitorEquipId", id, kind, level, shelved FROM monitor_alarm WHERE status = 'active' AND live ` +
        `AND ("companyCode", "monitorEquipId") IN (SELECT * FROM unnest($1::text[], $2::text[])) ORDER BY "startTime", id`,
      [rows.map((row) => row.companyCode), rows.map((row) => row.monitorEquipId)],
    )
    const list: ParkLatest[] = rows.map((row) => ({
      monitorEquipId: row.monitorEquipId,
      companyCode: row.companyCode,
      monitorCode: row.monitorCode,
      time: row.minute === null ? null : this.format(row.minute),
      value: row.last,
      quality: row.lastQuality,
      alarms: alarms.rows
        .filter((alarm) => pointKey(alarm) === pointKey(row))
        .map(({ id, kind, level, shelved }) => ({ id, kind, level, shelved })),
    }))
    // A page past the last holds no row to count on: the total is counted alone then.
    const total =
      rows[0]?.total ?? (await this.pool.query(`SELECT count(*)::int AS total FROM monitor_equip e WHERE ${where}`, values)).rows[0].total
    return { list, total, pageNum: query.pageNum, pageSize: query.pageSize }
  }

  /** Per enterprise: its active alarms (shelved ones left out), by kind and level, and its offline points (shelved included). */
  async overview(): Promise<Map<string, MonitoringOverview>> {
    const { rows } = await this.pool.query(
      `SELECT "companyCode", kind, level, count(*) FILTER (WHERE NOT shelved)::int AS count, ` +
        `count(DISTINCT "monitorEquipId") FILTER (WHERE kind = 'offline')::int AS offline ` +
        `FROM monitor_alarm WHERE status = 'active' AND live GROUP BY 1, 2, 3`,
    )
    const all = new Map<string, MonitoringOverview>()
    const sorted = rows.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || (a.level ?? 0) - (b.level ?? 0))
    for (const row of sorted) {
      const entry = all.get(row.companyCode) ?? { activeAlarms: 0, activeAlarmsByKind: [], offlinePoints: 0 }
      entry.activeAlarms += row.count
      if (row.count > 0) entry.activeAlarmsByKind.push({ kind: row.kind, level: row.level, count: row.count })
      entry.offlinePoints += row.offline
      all.set(row.companyCode, entry)
    }
    return all
  }
}

/** How a point of one enterprise is told from the others: "companyCode/monitorEquipId". */
export function pointKey(point: HeldPoint): string {
  return `${point.companyCode}/${point.monitorEquipId}`
}
