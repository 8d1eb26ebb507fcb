// The reads of readings: one point's readings by time (keyset pages), aggregates by time bucket
// aligned to the configured zone, and the live board (each point's newest reading and active alarms).
import type pg from 'pg'
import { BusinessError, Code } from '../errors.ts'
import type { InstantFormatter } from './instant-format.ts'
import { readingMilliseconds } from './reading-store.ts'
import { literal } from './sql-text.ts'
import { message } from '../messages/message.ts'

export type Bucket = '1m' | '10m' | '1h' | '1d'

const BUCKET_INTERVALS: Record<Bucket, string> = { '1m': '1 minute', '10m': '10 minutes', '1h': '1 hour', '1d': '1 day' }

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

/** A reading's value as sent. */
export const VALUE = `coalesce(sent, value::text)`

/** Reads of monitoring data over buckets aligned to the configured zone, instants written in its wire form. */
export abstract class ZonedReads {
  protected readonly pool: pg.Pool
  protected readonly format: InstantFormatter
  private readonly zone: string

  constructor(options: { pool: pg.Pool; format: InstantFormatter; timeZone: string }) {
    this.pool = options.pool
    this.format = options.format
    this.zone = zoneSql(options.timeZone)
  }

  /** The start of the bucket holding the instant `column`, aligned to the zone (a `1d` bucket is a local day). */
  protected bucketStart(bucket: Bucket, column: string): string {
    return `date_bin(${literal(BUCKET_INTERVALS[bucket])}::interval, ${column} AT TIME ZONE ${this.zone}, timestamp '2000-01-01') AT TIME ZONE ${this.zone}`
  }
}

export class ReadingQueries extends ZonedReads {
  /** Readings of a point with from <= time < to (reading seconds), after the cursor's time, ascending. */
  async list(query: { monitorEquipId: string; from: number; to: number; pageSize: number; after?: string }) {
    const start = query.after === undefined ? query.from : Math.max(query.from, decodeAfter(query.after) + 1)
    const { rows } = await this.pool.query<{ time: number; fault: boolean; value: string }>(
      `SELECT r.time, r.fault, ${VALUE} AS value FROM monitor_reading r JOIN monitor_point p ON p.point = r.point ` +
        `WHERE p."monitorEquipId" = $1 AND r.time >= $2 AND r.time < $3 ORDER BY r.time LIMIT $4`,
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
    const bucket = this.bucketStart(query.bucket, 'reading_instant(r.time)')
    const { rows } = await this.pool.query<{
      id: string
      bucket: Date
      min: string
      max: string
      avg: string
      last: string
      count: number
    }>(
      `SELECT p."monitorEquipId" AS id, ${bucket} AS bucket, count(*)::int AS count, ` +
        `(array_agg(${VALUE} ORDER BY r.value, r.time))[1] AS min, (array_agg(${VALUE} ORDER BY r.value DESC, r.time))[1] AS max, ` +
        `(array_agg(${VALUE} ORDER BY r.time DESC))[1] AS last, round(sum(r.value) / count(*), 6)::text AS avg ` +
        `FROM monitor_reading r JOIN monitor_point p ON p.point = r.point ` +
        `WHERE p."monitorEquipId" = ANY($1::text[]) AND r.time >= $2 AND r.time < $3 GROUP BY 1, 2 ORDER BY 1, 2`,
      [query.monitorEquipIds, query.from, query.to],
    )
    const byPoint = new Map<string, BucketOut[]>(query.monitorEquipIds.map((id) => [id, []]))
    for (const row of rows) {
      byPoint.get(row.id)?.push({
        time: this.format(row.bucket),
        min: row.min,
        max: row.max,
        avg: trimmed(row.avg),
        last: row.last,
        count: row.count,
      })
    }
    return { list: [...byPoint].map(([monitorEquipId, buckets]) => ({ monitorEquipId, buckets })) }
  }

  /** The live board: a page of live points (those named, or all) with their newest reading and active alarms. */
  async latest(query: { monitorEquipIds?: string[]; pageNum: number; pageSize: number }) {
    const named = query.monitorEquipIds ?? null
    const { rows } = await this.pool.query<{
      id: string
      monitorCode: string
      newestTime: number | null
      newestValue: string | null
      newestQuality: number | null
      total: number
    }>(
      `SELECT e.id, e."monitorCode", p."newestTime", p."newestValue", p."newestQuality", count(*) OVER ()::int AS total ` +
        `FROM monitor_equip e LEFT JOIN monitor_point p ON p."monitorEquipId" = e.id ` +
        `WHERE e.live AND ($1::text[] IS NULL OR e.id = ANY($1::text[])) ORDER BY e.id COLLATE "C" LIMIT $2 OFFSET $3`,
      [named, query.pageSize, (query.pageNum - 1) * query.pageSize],
    )
    const ids = rows.map((row) => row.id)
    const alarms = await this.pool.query<{ monitorEquipId: string; id: string; kind: string; level: number | null; shelved: boolean }>(
      `SELECT "monitorEquipId", id, kind, level, shelved FROM monitor_alarm WHERE status = 'active' AND "monitorEquipId" = ANY($1::text[]) ORDER BY "startTime", id`,
      [ids],
    )
    const list: LatestOut[] = rows.map((row) => ({
      monitorEquipId: row.id,
      monitorCode: row.monitorCode,
      time: row.newestTime === null ? null : this.format(new Date(readingMilliseconds(row.newestTime))),
      value: row.newestValue,
      quality: row.newestQuality,
      alarms: alarms.rows
        .filter((alarm) => alarm.monitorEquipId === row.id)
        .map(({ id, kind, level, shelved }) => ({ id, kind, level, shelved })),
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
