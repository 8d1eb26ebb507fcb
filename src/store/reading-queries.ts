// The reads of readings: one point's readings by time (keyset pages), aggregates by time bucket
// aligned to the configured zone, and the live board (each point's newest reading and active alarms).
import type pg from 'pg'
import { BusinessError, Code } from '../errors.ts'
import type { InstantFormatter } from './instant-format.ts'
import { READING_EPOCH, readingMilliseconds } from './reading-store.ts'
import { literal } from './sql-text.ts'
import { message } from '../messages/message.ts'

export type Bucket = '1m' | '10m' | '1h' | '1d'

export const BUCKET_INTERVALS: Record<Bucket, string> = { '1m': '1 minute', '10m': '10 minutes', '1h': '1 hour', '1d': '1 day' }

export interface ReadingOut {
  monitorEquipId: string
  time: string
  value: string
  quality: number
}

export interface BucketOut {
  time: string
  min: string
  max: string
  avg: string
  last: string
  count: number
}

interface AggregateRow {
  id: string
  point: number
  bucket: Date
  count: number
  avg: string
  min: string
  max: string
  last: string
  /** The time of the reading chosen, when its text is kept apart. */
  minKept: number | null
  maxKept: number | null
  lastKept: number | null
  /** Whose spelling last takes (its number's earliest reading's): min's, max's, one to look up, or its own (null). */
  lastAs: 'min' | 'max' | 'earliest' | null
  /** The times of the bucket's first and last readings (reading seconds). */
  first: number
  lastTime: number
}

export interface LatestOut {
  monitorEquipId: string
  monitorCode: string
  time: string | null
  value: string | null
  quality: number | null
  alarms: { id: string; kind: string; level: number | null; shelved: boolean }[]
}

/** The zone as PostgreSQL's AT TIME ZONE takes it: an offset as an ISO interval (east positive), else the IANA name. */
function zoneSql(zone: string): string {
  if (zone === 'Z' || zone === 'UTC') return `INTERVAL '+00:00'`
  if (/^[+-]\d{2}:\d{2}$/.test(zone)) return `INTERVAL ${literal(zone)}`
  return literal(zone)
}

/** A decimal without the trailing zeros of its fraction (and no negative zero). */
export function trimmed(decimal: string): string {
  const text = decimal.includes('.') ? decimal.replace(/0+$/, '').replace(/\.$/, '') : decimal
  return /^-0$/.test(text) ? '0' : text
}

/**
 * SQL of the mean of `sum` over `count` rounded half away from zero to 6 decimals. numeric's own
 * division keeps about 16 significant digits, so long values would round early: the mean is taken
 * in whole millionths, rounded by the remainder.
 */
export function meanSql(sum: string, count: string): string {
  const millionths = `(${sum}) * 1000000`
  const divisor = `(${count})::numeric`
  return (
    `((div(${millionths}, ${divisor}) + CASE WHEN 2 * abs(mod(${millionths}, ${divisor})) >= ${divisor} ` +
    `THEN sign(${sum}) ELSE 0 END) * 0.000001)::text`
  )
}

/** A reading's value as sent. */
export const VALUE = `coalesce(sent, value::text)`

/** Reads of monitoring data over buckets aligned to the configured zone, instants written in its wire form. */
export abstract class ZonedReads {
  protected readonly pool: pg.Pool
  protected readonly format: InstantFormatter
  /** The configured zone (TZ), as configured. */
  protected readonly timeZone: string
  private readonly zone: string

  constructor(options: { pool: pg.Pool; format: InstantFormatter; timeZone: string }) {
    this.pool = options.pool
    this.format = options.format
    this.timeZone = options.timeZone
    this.zone = zoneSql(options.timeZone)
  }

  /** The start of the bucket holding the instant `column`, as a local time of the zone. */
  protected localBucketStart(bucket: Bucket, column: string): string {
    return `date_bin(${literal(BUCKET_INTERVALS[bucket])}::interval, ${column} AT TIME ZONE ${this.zone}, timestamp '2000-01-01')`
  }

  /** The instant of the local time `column` in the zone. */
  protected zoned(column: string): string {
    return `${column} AT TIME ZONE ${this.zone}`
  }
}

export class ReadingQueries extends ZonedReads {
  /** Readings of a point with from <= time < to (reading seconds), after the cursor's time, ascending. */
  async list(query: { monitorEquipId: string; from: number; to: number; pageSize: number; after?: string }) {
    const start = query.after === undefined ? query.from : Math.max(query.from, decodeAfter(query.after) + 1)
    // The point's number first: the day partitions are then read in time order through their
    // (point, time) keys and the scan stops at the page's end, not after every reading in range.
    const { rows } = await this.pool.query<{ time: number; fault: boolean; value: string }>(
      `SELECT r.time, r.fault, ${VALUE} AS value FROM monitor_reading r ` +
        `WHERE r.point = (SELECT point FROM monitor_point WHERE "monitorEquipId" = $1) AND r.time >= $2 AND r.time < $3 ORDER BY r.time LIMIT $4`,
      [query.monitorEquipId, start, query.to, query.pageSize + 1],
    )
    const page = rows.slice(0, query.pageSize)
    const list: ReadingOut[] = page.map((row) => ({
      monitorEquipId: query.monitorEquipId,
      time: this.format(new Date(readingMilliseconds(row.time))),
      value: row.value,
      quality: row.fault ? 1 : 0,
    }))
    const next = rows.length > query.pageSize ? encodeAfter(page[page.length - 1].time) : null
    return { list, next }
  }

  /** Per point, the buckets holding readings of from <= time < to. */
  async aggregate(query: { monitorEquipIds: string[]; from: number; to: number; bucket: Bucket }) {
    // Per reading only what is cheap: its local bucket (the instant from its seconds, not through
    // interval arithmetic) and plain aggregates. min, max and last are the least or greatest of
    // [value, time] arrays (numbers compared as numbers, the earliest time among equal ones; last:
    // the greatest [time, value]), so no bucket sorts its readings and no value is written as text
    // but the chosen ones. The third element marks a reading whose text is kept apart (`sent`): those
    // are read back by their key afterwards. last is spelled as the earliest reading of its number:
    // min's or max's when it equals one, else looked up, but only in a bucket where equal numbers
    // may be spelled differently (decimals of several scales, or a text kept apart).
    const keptApart = `CASE WHEN r.sent IS NULL THEN 0 ELSE 1 END`
    const chosen = (array: string, value: number, time: string, name: string) =>
      `${array}[${value}]::text AS ${name}, CASE WHEN ${array}[3] = 1 THEN ${time} END AS "${name}Kept"`
    const { rows } = await this.pool.query<AggregateRow>(
      `SELECT g.id, g.point, ${this.zoned('g.bucket')} AS bucket, g.count, g.avg, ${chosen('g.low', 1, 'g.low[2]::int', 'min')}, ` +
        `${chosen('g.high', 1, '(-g.high[2])::int', 'max')}, ${chosen('g.newest', 2, 'g.newest[1]::int', 'last')}, ` +
        `CASE WHEN g.newest[2] = g.low[1] THEN 'min' WHEN g.newest[2] = g.high[1] THEN 'max' WHEN g.varied THEN 'earliest' END AS "lastAs", ` +
        `g.first, g.newest[1]::int AS "lastTime" ` +
        `FROM (SELECT p."monitorEquipId" AS id, p.point, ${this.localBucketStart(query.bucket, `to_timestamp(r.time + ${READING_EPOCH}::float8)`)} AS bucket, ` +
        `count(*)::int AS count, ${meanSql('sum(r.value)', 'count(*)')} AS avg, min(ARRAY[r.value, r.time, ${keptApart}]) AS low, ` +
        `max(ARRAY[r.value, -r.time, ${keptApart}]) AS high, max(ARRAY[r.time, r.value, ${keptApart}]) AS newest, min(r.time) AS first, ` +
        `min(scale(r.value)) <> max(scale(r.value)) OR bool_or(r.sent IS NOT NULL) AS varied ` +
        `FROM monitor_reading r JOIN monitor_point p ON p.point = r.point ` +
        `WHERE p."monitorEquipId" = ANY($1::text[]) AND r.time >= $2 AND r.time < $3 GROUP BY 1, 2, 3) g ORDER BY 1, 3`,
      [query.monitorEquipIds, query.from, query.to],
    )
    const [kept, earliest] = await Promise.all([this.keptTexts(rows), this.earliestSpellings(rows)])
    const text = (row: AggregateRow, name: 'min' | 'max' | 'last') => {
      const time = row[`${name}Kept`]
      return time === null ? row[name] : (kept.get(`${row.point}:${time}`) ?? row[name])
    }
    const lastOf = (row: AggregateRow, index: number) =>
      row.lastAs === 'min' || row.lastAs === 'max' ? text(row, row.lastAs) : (earliest.get(index) ?? text(row, 'last'))
    const byPoint = new Map<string, BucketOut[]>(query.monitorEquipIds.map((id) => [id, []]))
    for (const [index, row] of rows.entries()) {
      byPoint.get(row.id)?.push({
        time: this.format(row.bucket),
        min: text(row, 'min'),
        max: text(row, 'max'),
        avg: trimmed(row.avg),
        last: lastOf(row, index),
        count: row.count,
      })
    }
    return { list: [...byPoint].map(([monitorEquipId, buckets]) => ({ monitorEquipId, buckets })) }
  }

  /** The text of the earliest reading of last's number, by row index, in the buckets that need it looked up. */
  private async earliestSpellings(rows: AggregateRow[]): Promise<Map<number, string>> {
    const needed = [...rows.entries()].filter(([, row]) => row.lastAs === 'earliest')
    if (needed.length === 0) return new Map()
    const found = await this.pool.query<{ index: number; text: string }>(
      `SELECT b.index, ${VALUE} AS text FROM unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::numeric[]) AS b(index, point, first, last, number) ` +
        `CROSS JOIN LATERAL (SELECT r.sent, r.value FROM monitor_reading r WHERE r.point = b.point AND r.time >= b.first AND r.time <= b.last ` +
        `AND r.value = b.number ORDER BY r.time LIMIT 1) AS r`,
      [
        needed.map(([index]) => index),
        needed.map(([, row]) => row.point),
        needed.map(([, row]) => row.first),
        needed.map(([, row]) => row.lastTime),
        needed.map(([, row]) => row.last),
      ],
    )
    return new Map(found.rows.map((row) => [row.index, row.text]))
  }

  /** The texts kept apart of the readings an aggregate chose, by "point:time". */
  private async keptTexts(rows: AggregateRow[]): Promise<Map<string, string>> {
    const points: number[] = []
    const times: number[] = []
    for (const row of rows) {
      for (const time of [row.minKept, row.maxKept, row.lastKept]) {
        if (time !== null) {
          points.push(row.point)
          times.push(time)
        }
      }
    }
    if (points.length === 0) return new Map()
    const kept = await this.pool.query<{ point: number; time: number; sent: string }>(
      `SELECT r.point, r.time, r.sent FROM monitor_reading r JOIN unnest($1::int[], $2::int[]) AS k(point, time) ` +
        `ON r.point = k.point AND r.time = k.time`,
      [points, times],
    )
    return new Map(kept.rows.map((row) => [`${row.point}:${row.time}`, row.sent]))
  }

  /** The live board: a page of live points (those named, or all) with their newest reading and active alarms. */
  async latest(query: { monitorEquipIds?: string[]; pageNum: number; pageSize: number }) {
    const named = query.monitorEquipIds ?? null
    // One round trip: the page is cut before its points' readings and alarms are joined, so only the
    // page's rows are looked up (the alarms through the index of active alarms).
    const { rows } = await this.pool.query<{
      id: string
      monitorCode: string
      newestTime: number | null
      newestValue: string | null
      newestQuality: number | null
      total: number
      alarms: LatestOut['alarms'] | null
    }>(
      `WITH page AS (SELECT e.id, e."monitorCode", count(*) OVER ()::int AS total FROM monitor_equip e ` +
        `WHERE e.live AND ($1::text[] IS NULL OR e.id = ANY($1::text[])) ORDER BY e.id COLLATE "C" LIMIT $2 OFFSET $3) ` +
        `SELECT page.id, page."monitorCode", page.total, p."newestTime", p."newestValue", p."newestQuality", ` +
        `(SELECT json_agg(json_build_object('id', a.id, 'kind', a.kind, 'level', a.level, 'shelved', a.shelved) ORDER BY a."startTime", a.id) ` +
        `FROM monitor_alarm a WHERE a.status = 'active' AND a."monitorEquipId" = page.id) AS alarms ` +
        `FROM page LEFT JOIN monitor_point p ON p."monitorEquipId" = page.id ORDER BY page.id COLLATE "C"`,
      [named, query.pageSize, (query.pageNum - 1) * query.pageSize],
    )
    const list: LatestOut[] = rows.map((row) => ({
      monitorEquipId: row.id,
      monitorCode: row.monitorCode,
      time: row.newestTime === null ? null : this.format(new Date(readingMilliseconds(row.newestTime))),
      value: row.newestValue,
      quality: row.newestQuality,
      alarms: row.alarms ?? [],
    }))
    // A page past the last holds no row to count on: the total is counted alone then.
    const total =
      rows[0]?.total ??
      (
        await this.pool.query<{ total: number }>(
          `SELECT count(*)::int AS total FROM monitor_equip e WHERE e.live AND ($1::text[] IS NULL OR e.id = ANY($1::text[]))`,
          [named],
        )
      ).rows[0].total
    return { list, total, pageNum: query.pageNum, pageSize: query.pageSize }
  }
}

function encodeAfter(time: number): string {
  return Buffer.from(`r:${time}`).toString('base64url')
}

function decodeAfter(cursor: string): number {
  const match = /^r:(-?\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (!match) throw new BusinessError(Code.badParameter, message('notAListCursor'))
  return Number(match[1])
}
