// hazard/monitorData/add-batch: readings checked one by one (a bad one fails alone), stored in one
// multi-row insert, and judged per point in reading-time order into alarm changes, all in one
// transaction with the points' evaluation state: a restart judges the next reading as if nothing
// had happened. The offline sweep (monitoring-jobs.ts) raises `offline` through the same path.
import type { OpenApiDocument } from '../contract/openapi-document.ts'
import type { CompileOnFirstUse } from '../contract/compile-on-first-use.ts'
import { instantSeconds } from '../contract/storable.ts'
import { describeErrors, type Validator } from '../contract/validation.ts'
import {
  type AlarmChange,
  initialState,
  judgeReading,
  offlineDeadline,
  type PointSettings,
  type PointState,
} from '../domain/monitoring/alarm-evaluation.ts'
import { BusinessError, Code } from '../errors.ts'
import type { AlarmStore } from '../store/alarm-store.ts'
import { inTransaction, type Queryable } from '../store/database.ts'
import type pg from 'pg'
import {
  type EquipmentSettings,
  type LockedPoint,
  type PointUpdate,
  readingMilliseconds,
  readingSecond,
  type ReadingStore,
  type StoredReading,
} from '../store/reading-store.ts'
import type { WriteContext } from '../store/resource-store.ts'
import { message } from '../messages/message.ts'

export const READING_BATCH_LIMIT = 5000
/** The document's identifier (Id). */
const ID = /^[\x21-\x7E]{1,64}$/
/** A reading may be this far ahead of the server's clock (a gateway's clock drifts). */
const AHEAD_LIMIT_MS = 5 * 60_000

export interface ReadingFailure {
  index: number
  monitorEquipId: string | null
  code: number
  reason: string
}

export interface ReadingBatchResult {
  accepted: number
  duplicates: number
  failed: ReadingFailure[]
}

interface CheckedReading {
  index: number
  monitorEquipId: string
  time: number
  value: string
  quality: 0 | 1
}

/** The equipment's settings with their documented defaults. */
export function settingsOf(stored: EquipmentSettings): PointSettings {
  return {
    ...stored,
    alarmDeadband: stored.alarmDeadband ?? '0',
    alarmDelaySeconds: stored.alarmDelaySeconds ?? 0,
    offlineAfterSeconds: stored.offlineAfterSeconds ?? 300,
    frozenAfterSeconds: stored.frozenAfterSeconds ?? 0,
  }
}

/** A point's stored state ({} before its first reading) as evaluation knows it. */
export function stateOf(point: LockedPoint): PointState {
  const stored = point.state as Partial<PointState> | null
  return stored && 'open' in stored ? (stored as PointState) : initialState()
}

/** Runs `work` in the caller's transaction (an Idempotency-Key's), or in one of its own. */
export function inWriteTransaction<T>(pool: pg.Pool, context: WriteContext, work: (db: Queryable) => Promise<T>): Promise<T> {
  return context.db ? work(context.db) : inTransaction(pool, work)
}

export class ReadingIngest {
  private readonly pool: pg.Pool
  private readonly readings: ReadingStore
  private readonly alarms: AlarmStore
  private readonly validate: Validator
  private readonly retentionDays: number
  private readonly clock: () => number

  constructor(options: {
    pool: pg.Pool
    readings: ReadingStore
    alarms: AlarmStore
    compiles: CompileOnFirstUse
    document: OpenApiDocument
    retentionDays: number
    clock: () => number
  }) {
    this.pool = options.pool
    this.readings = options.readings
    this.alarms = options.alarms
    this.retentionDays = options.retentionDays
    this.clock = options.clock
    const { document } = options
    this.validate = options.compiles.validator({ ...document.components.schemas.MonitorReading, components: document.components })
  }

  async addBatch(list: unknown[], context: WriteContext): Promise<ReadingBatchResult> {
    if (list.length === 0 || list.length > READING_BATCH_LIMIT) {
      throw new BusinessError(Code.batchSize, message('readingsBatchSize', { limit: READING_BATCH_LIMIT, count: list.length }))
    }
    const now = this.clock()
    const failed: ReadingFailure[] = []
    const checked: CheckedReading[] = []
    list.forEach((item, index) => {
      const seconds = this.secondsOf(item, now)
      // Echoed only when it is an identifier: the answer never carries text that is not one.
      const monitorEquipId =
        isObject(item) && typeof item.monitorEquipId === 'string' && ID.test(item.monitorEquipId) ? item.monitorEquipId : null
      if (typeof seconds === 'string' || monitorEquipId === null || !isObject(item)) {
        const reason = typeof seconds === 'string' ? seconds : 'monitorEquipId: required'
        failed.push({ index, monitorEquipId, code: Code.badParameter, reason })
        return
      }
      const quality = item.quality === 1 ? 1 : 0
      checked.push({ index, monitorEquipId, time: readingSecond(Math.floor(seconds) * 1000), value: String(item.value), quality })
    })
    await this.readings.ensurePartitions(checked.map((reading) => reading.time))
    const duplicates = await inWriteTransaction(this.pool, context, (db) => this.store(db, checked, failed, now))
    failed.sort((a, b) => a.index - b.index)
    return { accepted: list.length - failed.length - duplicates, duplicates, failed }
  }

  /** The reading's time (seconds since the epoch), or why it is refused alone (1002). */
  private secondsOf(item: unknown, now: number): number | string {
    if (!this.validate(item)) return describeErrors(this.validate.errors, '', 'item')
    const seconds = instantSeconds(String((item as Record<string, unknown>).time))
    if (seconds === undefined) return 'time: must be a valid ISO 8601 instant with offset'
    if (seconds * 1000 > now + AHEAD_LIMIT_MS) return "time: more than 5 minutes ahead of the server's clock"
    if (seconds * 1000 < now - this.retentionDays * 86_400_000) {
      return `time: older than the readings' retention (${this.retentionDays} days)`
    }
    return seconds
  }

  /** Stores the checked readings and judges those stored; answers how many were duplicates. */
  private async store(db: Queryable, checked: CheckedReading[], failed: ReadingFailure[], now: number): Promise<number> {
    const locked = await this.readings.lockPoints(
      db,
      checked.map((reading) => reading.monitorEquipId),
      new Date(now),
    )
    const points = new Map(locked.map((point) => [point.monitorEquipId, point]))
    const rows: StoredReading[] = []
    let duplicates = 0
    for (const reading of checked) {
      const point = points.get(reading.monitorEquipId)
      if (!point) {
        const reason = `monitorEquipId: no live monitoring equipment ${reading.monitorEquipId}`
        failed.push({ index: reading.index, monitorEquipId: reading.monitorEquipId, code: Code.missingReference, reason })
        continue
      }
      rows.push({ point: point.point, time: reading.time, value: reading.value, quality: reading.quality })
    }
    // By point and time: each point's readings in the order they are judged. The sort is stable, so
    // of the readings of one point and instant the first one sent is kept, the others are duplicates.
    rows.sort((a, b) => a.point - b.point || a.time - b.time)
    let kept = 0
    for (const row of rows) {
      const last = kept > 0 ? rows[kept - 1] : undefined
      if (last !== undefined && last.point === row.point && last.time === row.time) duplicates++
      else rows[kept++] = row
    }
    rows.length = kept
    const stored = await this.readings.insert(db, rows)
    const byPoint = new Map<number, StoredReading[]>()
    for (const row of rows) {
      if (!stored(row)) {
        duplicates++
        continue
      }
      const own = byPoint.get(row.point)
      if (own) own.push(row)
      else byPoint.set(row.point, [row])
    }
    const updates: PointUpdate[] = []
    // In point order, as they are locked.
    for (const point of locked) {
      const own = byPoint.get(point.point)
      if (own) updates.push(await this.judge(db, point, own, now))
    }
    await this.readings.updatePoints(db, updates, 'earliest')
    return duplicates
  }

  /** Judges a point's stored readings in time order; its new state. */
  private async judge(db: Queryable, point: LockedPoint, readings: StoredReading[], now: number): Promise<PointUpdate> {
    const settings = settingsOf(point.settings)
    let state = stateOf(point)
    for (const reading of readings) {
      const outcome = judgeReading(
        state,
        settings,
        { time: readingMilliseconds(reading.time), value: reading.value, quality: reading.quality },
        now,
      )
      state = outcome.state
      if (outcome.changes.length > 0) await this.apply(db, point, outcome.changes)
    }
    const newest = readings[readings.length - 1]
    const deadline = offlineDeadline(state, settings)
    return {
      point: point.point,
      state,
      offlineDue: deadline === null ? null : new Date(deadline),
      newest: point.newestTime === null || newest.time > point.newestTime ? newest : undefined,
      earliest: readings[0].time,
    }
  }

  /** Writes evaluation's alarm changes of a point. */
  async apply(db: Queryable, point: LockedPoint, changes: AlarmChange[]): Promise<void> {
    for (const change of changes) {
      const { alarm } = change
      if (change.type === 'raise') {
        await this.alarms.raise(db, {
          ...alarm,
          startTime: new Date(alarm.startTime),
          monitorEquipId: point.monitorEquipId,
          monitorCode: point.monitorCode,
          monitorName: point.monitorName,
          shelved: point.shelved,
        })
      } else if (change.type === 'update') {
        await this.alarms.change(db, point.monitorEquipId, alarm.kind, change.changes)
      } else {
        await this.alarms.clear(db, point.monitorEquipId, alarm.kind, new Date(change.endTime), change.endValue)
      }
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
