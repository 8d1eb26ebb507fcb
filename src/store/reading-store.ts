// Readings of the monitoring points (migration 120): the daily partitions of monitor_reading, made
// ahead and dropped past the retention; the ingest of a batch (one multi-row insert of unnest
// arrays, duplicates left out by the primary key); the points' evaluation state, locked and written
// in the ingest's transaction; and the reads of readings. Times are seconds since 2000-01-01 UTC.
import type pg from 'pg'
import { prepared, type Queryable } from './database.ts'

/** 2000-01-01T00:00:00Z in Unix seconds: readings count their time from it. */
export const READING_EPOCH = 946_684_800
const DAY = 86_400

export const readingSecond = (milliseconds: number): number => Math.floor(milliseconds / 1000) - READING_EPOCH
export const readingMilliseconds = (second: number): number => (second + READING_EPOCH) * 1000

/** A reading to store: its point and time (reading seconds), the value as sent. */
export interface StoredReading {
  point: number
  time: number
  value: string
  quality: 0 | 1
}

/** The equipment fields evaluation reads, as stored (null: the documented default). */
export interface EquipmentSettings {
  oneLevelHigh: string
  twoLevelHigh: string
  oneLevelLow: string
  twoLevelLow: string
  rangeMin: string
  rangeMax: string
  alarmDeadband: string | null
  alarmDelaySeconds: number | null
  offlineAfterSeconds: number | null
  frozenAfterSeconds: number | null
}

/** A live point, locked for the transaction, with its equipment as it is now. */
export interface LockedPoint {
  point: number
  monitorEquipId: string
  monitorCode: string
  monitorName: string
  /** What evaluation stored last ({} before the first reading). */
  state: unknown
  newestTime: number | null
  shelved: boolean
  settings: EquipmentSettings
}

export interface PointUpdate {
  point: number
  state: unknown
  offlineDue: Date | null
  newest: { time: number; value: string; quality: 0 | 1 } | undefined
  /** The earliest reading stored for the point by this batch (reading seconds), whose minute the park is to receive. */
  earliest?: number
}

const SETTING_COLUMNS = [
  'oneLevelHigh',
  'twoLevelHigh',
  'oneLevelLow',
  'twoLevelLow',
  'rangeMin',
  'rangeMax',
  'alarmDeadband',
  'alarmDelaySeconds',
  'offlineAfterSeconds',
  'frozenAfterSeconds',
] as const

/** A point and its equipment (`p` and `e`). */
const POINT_COLUMNS = [
  'p.point',
  'p."monitorEquipId"',
  'e."monitorCode"',
  'e."monitorName"',
  ...SETTING_COLUMNS.map((column) => `e."${column}"`),
].join(', ')
const POINTS = `FROM monitor_point p JOIN monitor_equip e ON e.id = p."monitorEquipId" AND e.live`
/** What evaluation stored of a point, and whether it is shelved at $2. */
const STATE_COLUMNS = `p.state, p."newestTime", coalesce(p."shelvedUntil" > $2, false) AS shelved`

/** The equipment columns of POINT_COLUMNS. */
const EQUIPMENT_COLUMNS = ['"monitorCode"', '"monitorName"', ...SETTING_COLUMNS.map((column) => `"${column}"`)].join(', ')

/**
 * The ids drive the join, so that each finds its point and its equipment by their keys: joined
 * plainly, the equipment is planned as a hash of all of it, scanned at every batch; the lateral
 * subquery (kept apart by OFFSET 0) is looked up by id instead.
 */
const LOCK_POINTS =
  `SELECT ${POINT_COLUMNS}, ${STATE_COLUMNS} FROM unnest($1::text[]) AS i(id) ` +
  `JOIN monitor_point p ON p."monitorEquipId" = i.id ` +
  `CROSS JOIN LATERAL (SELECT ${EQUIPMENT_COLUMNS} FROM monitor_equip WHERE id = i.id AND live OFFSET 0) AS e ` +
  `ORDER BY p.point FOR UPDATE OF p`

/**
 * `offlineDue` as the ingest writes it: the new deadline only when it is earlier than the one
 * stored (or there is none), so that the row's indexes stay as they are and its update is a
 * heap-only one (migration 150). The sweep moves a deadline that came too early (`exact`).
 */
const DUE = {
  earliest: `CASE WHEN u.due IS NULL OR p."offlineDue" IS NULL OR u.due < p."offlineDue" THEN u.due ELSE p."offlineDue" END`,
  exact: 'u.due',
}

/** The batch's statements are prepared: each connection parses and plans them once, not at every batch. */
const LOCK = prepared(LOCK_POINTS)

/** Inserts the readings; the readings stored come back only when some were not: most batches hold no duplicate. */
const INSERT = prepared(
  `WITH stored AS (INSERT INTO monitor_reading (time, point, fault, value, sent) ` +
    `SELECT * FROM unnest($1::int[], $2::int[], $3::bool[], $4::numeric[], $5::text[]) ON CONFLICT DO NOTHING RETURNING point, time) ` +
    `SELECT CASE WHEN count(*) < $6 THEN coalesce(array_agg(point::text || ':' || time), '{}') END AS stored FROM stored`,
)

/**
 * The points' state after a batch, by how `offlineDue` is written. The states come as one JSON
 * array, zipped with arrays of the other columns (ROWS FROM): the database parses the document
 * once, and no instant is formatted.
 */
const UPDATE = Object.fromEntries(
  Object.entries(DUE).map(([key, written]) => [
    key,
    prepared(
      `UPDATE monitor_point p SET state = u.state, "offlineDue" = ${written}, ` +
        `"newestTime" = coalesce(u.time, p."newestTime"), "newestValue" = CASE WHEN u.time IS NULL THEN p."newestValue" ELSE u.value END, ` +
        `"newestQuality" = coalesce(u.quality, p."newestQuality"), "pushFrom" = least(p."pushFrom", u.minute) ` +
        `FROM (SELECT point, state, to_timestamp(due / 1000) AS due, time, value, quality, minute FROM ROWS FROM ` +
        `(unnest($1::int[]), json_array_elements($2::json), unnest($3::float8[]), unnest($4::int[]), unnest($5::text[]), ` +
        `unnest($6::smallint[]), unnest($7::int[])) AS r(point, state, due, time, value, quality, minute)) AS u ` +
        `WHERE p.point = u.point`,
    ),
  ]),
) as Record<keyof typeof DUE, { name: string; text: string }>

/**
 * A row of POINT_COLUMNS and STATE_COLUMNS, read as an array (rowMode 'array'): the driver then
 * makes no object keyed by column name per row, and there is a row per point of every batch.
 */
function lockedPoint(row: unknown[]): LockedPoint {
  const settings: EquipmentSettings = {
    oneLevelHigh: row[4] as string,
    twoLevelHigh: row[5] as string,
    oneLevelLow: row[6] as string,
    twoLevelLow: row[7] as string,
    rangeMin: row[8] as string,
    rangeMax: row[9] as string,
    alarmDeadband: row[10] as string | null,
    alarmDelaySeconds: row[11] as number | null,
    offlineAfterSeconds: row[12] as number | null,
    frozenAfterSeconds: row[13] as number | null,
  }
  return {
    point: Number(row[0]),
    monitorEquipId: String(row[1]),
    monitorCode: String(row[2]),
    monitorName: String(row[3]),
    state: row[14],
    newestTime: row[15] === null ? null : Number(row[15]),
    shelved: row[16] === true,
    settings,
  }
}

/** numeric gives back every decimal as sent but a negative zero, which `sent` keeps. */
const numericLoses = (value: string): boolean => /^-0(\.0+)?$/.test(value)

/**
 * An array parameter written out: for numerals and the like only (no quoting, null as NULL), which
 * spares the driver quoting each element of large arrays.
 */
const numerals = (values: (string | number | null)[]): string => `{${values.map((value) => value ?? 'NULL').join(',')}}`

export class ReadingStore {
  private readonly pool: pg.Pool
  /** UTC days whose partition is known to exist. */
  private readonly partitions = new Set<number>()
  /** Notes on each point the earliest minute a batch changed (a park receives minutes as aggregates). */
  private readonly notesMinutes: boolean

  constructor(options: { pool: pg.Pool; notesMinutes?: boolean }) {
    this.pool = options.pool
    this.notesMinutes = options.notesMinutes ?? false
  }

  /** Makes the daily partitions holding these reading seconds, unless they exist. */
  async ensurePartitions(seconds: Iterable<number>): Promise<void> {
    const days = new Set<number>()
    for (const second of seconds) days.add(Math.floor(second / DAY))
    for (const day of days) {
      if (this.partitions.has(day)) continue
      const from = day * DAY
      const sql = `CREATE TABLE IF NOT EXISTS ${partitionName(day)} PARTITION OF monitor_reading FOR VALUES FROM (${from}) TO (${from + DAY})`
      await this.pool.query(sql).catch((error: unknown) => {
        // Two instances making the same partition at once: the other one made it.
        if (!/already exists/i.test(String((error as Error).message))) throw error
      })
      this.partitions.add(day)
    }
  }

  /** Drops the partitions whose every reading is older than `before` (reading seconds); their names. */
  async dropBefore(before: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid ` +
        `WHERE i.inhparent = 'monitor_reading'::regclass ORDER BY 1`,
    )
    const dropped: string[] = []
    for (const { name } of rows) {
      const day = dayOfPartition(name)
      if (day === undefined || (day + 1) * DAY > before) continue
      await this.pool.query(`DROP TABLE IF EXISTS ${name}`)
      this.partitions.delete(day)
      dropped.push(name)
    }
    return dropped
  }

  /**
   * The live points of these equipment ids, locked in point order, with their state; a point is
   * made on its first reading.
   */
  async lockPoints(db: Queryable, equipmentIds: string[], now: Date): Promise<LockedPoint[]> {
    const ids = [...new Set(equipmentIds)]
    const found = (await db.query<unknown[]>({ ...LOCK, values: [ids, now], rowMode: 'array' })).rows.map(lockedPoint)
    if (found.length === ids.length) return found
    const known = new Set(found.map((point) => point.monitorEquipId))
    const missing = ids.filter((id) => !known.has(id)).sort()
    await db.query(
      `INSERT INTO monitor_point ("monitorEquipId", state) SELECT id, '{}' FROM monitor_equip ` +
        `WHERE id = ANY($1::text[]) AND live ORDER BY id ON CONFLICT ("monitorEquipId") DO NOTHING`,
      [missing],
    )
    const made = await db.query<unknown[]>({ ...LOCK, values: [missing, now], rowMode: 'array' })
    return [...found, ...made.rows.map(lockedPoint)]
  }

  /**
   * Inserts the readings; answers whether a reading was stored (false: a duplicate). The caller
   * orders them by point and time, so that two batches holding the same readings wait on each
   * other in one order.
   */
  async insert(db: Queryable, readings: StoredReading[]): Promise<(reading: StoredReading) => boolean> {
    if (readings.length === 0) return () => false
    const { rows } = await db.query<{ stored: string[] | null }>({
      ...INSERT,
      values: [
        numerals(readings.map((reading) => reading.time)),
        numerals(readings.map((reading) => reading.point)),
        numerals(readings.map((reading) => (reading.quality === 1 ? 't' : 'f'))),
        numerals(readings.map((reading) => reading.value)),
        // Mostly no reading needs its text: then no array at all, which unnest pads with nulls.
        readings.some((reading) => numericLoses(reading.value))
          ? numerals(readings.map((reading) => (numericLoses(reading.value) ? reading.value : null)))
          : null,
        readings.length,
      ],
    })
    const stored = rows[0].stored
    if (stored === null) return () => true
    const keys = new Set(stored)
    return (reading) => keys.has(`${reading.point}:${reading.time}`)
  }

  /**
   * Writes the points' state after their readings were judged; `due` says how `offlineDue` is
   * written (see DUE). When a park receives the minutes, the earliest one each point changed is
   * noted (migration 151).
   */
  async updatePoints(db: Queryable, updates: PointUpdate[], due: keyof typeof DUE): Promise<void> {
    if (updates.length === 0) return
    const points: number[] = []
    const states: unknown[] = []
    const dues: (number | null)[] = []
    const times: (number | null)[] = []
    const values: (string | null)[] = []
    const qualities: (number | null)[] = []
    const minutes: (number | null)[] = []
    for (const update of updates) {
      points.push(update.point)
      states.push(update.state)
      dues.push(update.offlineDue?.getTime() ?? null)
      times.push(update.newest?.time ?? null)
      values.push(update.newest?.value ?? null)
      qualities.push(update.newest?.quality ?? null)
      minutes.push(this.notesMinutes && update.earliest !== undefined ? update.earliest - (update.earliest % 60) : null)
    }
    await db.query({
      ...UPDATE[due],
      values: [
        numerals(points),
        JSON.stringify(states),
        numerals(dues),
        numerals(times),
        // Values are numerals (the document's Decimal): written out like the others.
        numerals(values),
        numerals(qualities),
        numerals(minutes),
      ],
    })
  }

  /**
   * The points whose offline deadline may have come at `now`, locked (skipping those an ingest
   * holds): the caller judges from their state whether it has.
   */
  async lockDueOffline(db: Queryable, now: Date, limit: number): Promise<LockedPoint[]> {
    const { rows } = await db.query<unknown[]>({
      text: `SELECT ${POINT_COLUMNS}, ${STATE_COLUMNS} ${POINTS} WHERE p."offlineDue" <= $2 ORDER BY p.point LIMIT $1 FOR UPDATE OF p SKIP LOCKED`,
      values: [limit, now],
      rowMode: 'array',
    })
    return rows.map(lockedPoint)
  }
}

function partitionName(day: number): string {
  const date = new Date(readingMilliseconds(day * DAY)).toISOString().slice(0, 10).replaceAll('-', '')
  return `monitor_reading_${date}`
}

function dayOfPartition(name: string): number | undefined {
  const match = /^monitor_reading_(\d{4})(\d{2})(\d{2})$/.exec(name)
  if (!match) return undefined
  return readingSecond(Date.parse(`${match[1]}-${match[2]}-${match[3]}T00:00:00Z`)) / DAY
}

/** Shelving of a point (the point made if it has no reading yet); false when the equipment is not live. */
export async function shelvePoint(db: Queryable, monitorEquipId: string, until: Date | null, reason: string | null): Promise<boolean> {
  const { rows } = await db.query(
    `INSERT INTO monitor_point ("monitorEquipId", state, "shelvedUntil", "shelveReason") ` +
      `SELECT id, '{}', $2, $3 FROM monitor_equip WHERE id = $1 AND live ` +
      `ON CONFLICT ("monitorEquipId") DO UPDATE SET "shelvedUntil" = excluded."shelvedUntil", "shelveReason" = excluded."shelveReason" ` +
      `RETURNING point`,
    [monitorEquipId, until, reason],
  )
  return rows.length > 0
}
