// Inspection periods: when a troubleshooting task is due, and how a period is judged from its
// records. Pure arithmetic over instants (milliseconds since the epoch); the days, working days and
// daily windows are read on the enterprise's wall clock (zone.ts). How the rules read for
// integrators: docs/supervision.md and the periods operation of the OpenAPI document.
import type { WorkingDays } from './working-days.ts'
import { addMonths, DAY, dateOfLocal, HOUR, timeOfDay, type Zone } from './zone.ts'

export type CycleUnit = '小时' | '天' | '月' | '年'

/** A task's schedule as it stood from `since` (an edit, or its deletion) until the next version. */
export interface ScheduleVersion {
  /** When this version took effect: null for the task as first written (its periods run from its anchor). */
  since: number | null
  /** The task is deleted from `since` on: no period starts then or after. */
  deleted: boolean
  /** `taskStartTime`, else the task's `createTime`. */
  anchor: number
  checkCycle: number
  checkCycleUnit: CycleUnit
  /** `HH:mm:ss` (unit 小时). */
  workStartTime: string | null
  workEndTime: string | null
  /** `0` every day, `1` working days, `2` non-working days. */
  workDayType: string | null
  workType: string | null
}

export interface Period {
  start: number
  end: number
  /** The wall-clock date the period's day is (for the hourly unit, the day its window starts). */
  day: string
  /** The task's workType when the period started (`0` when unset). */
  workType: string
}

/** A grid period of one version, before the day type is applied. */
type GridPeriod = Omit<Period, 'workType'>

/** The last instant a period may end at (instants are kept up to the year 9999): the grid stops before it. */
export const LAST_INSTANT = Date.UTC(9999, 11, 31, 0, 0, 0)

/** Whether a grid period is one the service can keep (its bounds real instants before LAST_INSTANT). */
function keepable(start: number, end: number): boolean {
  return Number.isFinite(start) && Number.isFinite(end) && end <= LAST_INSTANT
}

/** How many grid periods a search looks through for the next due one before giving up (a day type no day has). */
const SEARCH_LIMIT = 5000

/**
 * The due periods of a task starting at or after `from` and at or before `until`, in order, at most
 * `limit`. Each version owns the periods starting from its `since` up to the next version's; a
 * period running when a version ends keeps its bounds, and the next version's first period starts
 * no earlier than its end. `from` is where a previous call stopped (the end of the last period it
 * found, or just after its `until`).
 */
export function duePeriods(options: {
  versions: readonly ScheduleVersion[]
  calendar: WorkingDays
  zone: Zone
  from: number
  until: number
  limit?: number
}): Period[] {
  const { versions, calendar, zone, until } = options
  const limit = options.limit ?? Number.POSITIVE_INFINITY
  const found: Period[] = []
  let floor = options.from
  for (const [index, version] of versions.entries()) {
    if (version.deleted) break
    const next = versions[index + 1]?.since ?? Number.POSITIVE_INFINITY
    const lower = Math.max(floor, version.since ?? Number.NEGATIVE_INFINITY)
    let looked = 0
    for (const period of gridPeriods(version, zone, lower)) {
      if (period.start > until || period.start >= next) break
      if (period.start < lower) continue
      if (!isDue(version, period.day, calendar)) {
        if (++looked > SEARCH_LIMIT && found.length === 0) break
        continue
      }
      found.push({ ...period, workType: version.workType ?? '0' })
      floor = period.end
      if (found.length >= limit) return found
    }
  }
  return found
}

/** The start of the first due period at or after `from` (null: none within reach, or the task is deleted by then). */
export function nextDueStart(options: {
  versions: readonly ScheduleVersion[]
  calendar: WorkingDays
  zone: Zone
  from: number
}): number | null {
  const [first] = duePeriods({ ...options, until: Number.POSITIVE_INFINITY, limit: 1 })
  return first?.start ?? null
}

/** `workDayType` selects the days of units 小时 and 天; months and years are due whatever the day. */
function isDue(version: ScheduleVersion, day: string, calendar: WorkingDays): boolean {
  if (version.checkCycleUnit === '月' || version.checkCycleUnit === '年') return true
  if (version.workDayType === '1') return calendar.isWorkingDay(day)
  if (version.workDayType === '2') return !calendar.isWorkingDay(day)
  return true
}

/** Every period of a version's grid in order, from about `lower` on (a few before it may come first). */
export function* gridPeriods(version: ScheduleVersion, zone: Zone, lower: number): Generator<GridPeriod> {
  if (version.checkCycleUnit === '小时') yield* hourlyPeriods(version, zone, lower)
  else yield* calendarPeriods(version, zone, lower)
}

/** Units 天, 月, 年: period k is [anchor + k × cycle, anchor + (k + 1) × cycle), added on the calendar from the anchor. */
function* calendarPeriods(version: ScheduleVersion, zone: Zone, lower: number): Generator<GridPeriod> {
  const anchor = zone.toLocal(version.anchor)
  const cycle = Math.max(1, version.checkCycle)
  const startOf =
    version.checkCycleUnit === '天'
      ? (k: number) => anchor + k * cycle * DAY
      : (k: number) => addMonths(anchor, k * cycle * (version.checkCycleUnit === '年' ? 12 : 1))
  let k = 0
  if (Number.isFinite(lower) && lower > version.anchor) {
    const target = zone.toLocal(lower)
    const elapsed =
      version.checkCycleUnit === '天' ? (target - anchor) / DAY : monthsBetween(anchor, target) / (version.checkCycleUnit === '年' ? 12 : 1)
    // One cycle early: months of unequal length, clock changes.
    k = Math.max(0, Math.floor(elapsed / cycle) - 1)
  }
  let start = startOf(k)
  for (;;) {
    const end = startOf(k + 1)
    if (!keepable(start, end)) return
    yield { start: zone.toInstant(start), end: zone.toInstant(end), day: dateOfLocal(start) }
    start = end
    k++
  }
}

function monthsBetween(from: number, to: number): number {
  const a = new Date(from)
  const b = new Date(to)
  return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth())
}

/**
 * Unit 小时: each day's window workStartTime..workEndTime (an end not after the start ends on the
 * next day, and belongs to the day it starts), cut into periods of `checkCycle` hours from its
 * start, the last one cut at the window's end. The first window is the first to start at or after
 * the anchor.
 */
function* hourlyPeriods(version: ScheduleVersion, zone: Zone, lower: number): Generator<GridPeriod> {
  const opens = timeOfDay(version.workStartTime ?? '00:00:00')
  const closes = timeOfDay(version.workEndTime ?? '00:00:00')
  const length = closes > opens ? closes - opens : closes + DAY - opens
  const step = Math.max(1, version.checkCycle) * HOUR
  const first = Math.max(version.anchor, Number.isFinite(lower) ? lower - DAY - length : version.anchor)
  // Midnight starting the day before `first`'s, on the wall clock: a window crossing midnight may hold it.
  let day = Math.floor(zone.toLocal(first) / DAY) * DAY - DAY
  for (;;) {
    const windowStart = zone.toInstant(day + opens)
    const windowEnd = zone.toInstant(day + opens + length)
    if (!keepable(windowStart, windowEnd)) return
    if (windowStart >= version.anchor) {
      for (let start = windowStart; start < windowEnd; start += step) {
        yield { start, end: Math.min(start + step, windowEnd), day: dateOfLocal(day) }
      }
    }
    day += DAY
  }
}

/** What a record contributes to judging a period. */
export interface InspectionRecord {
  id: string
  checkTime: number
  /** `2`: not inspected (absent counts as inspected). */
  checkStatus: string | null
  createTime: number
}

export type PeriodStatus = 'done' | 'missed' | 'open'

export interface Judgement {
  status: PeriodStatus
  doneLate: boolean
  recordId: string | null
}

/**
 * A period is done by the earliest live record (by checkTime, then id) inside it whose status is not
 * `2`; done late when that record was written at or after the period's end. Without one it is
 * missed once it ended, open while it runs.
 */
export function judgePeriod(period: { start: number; end: number }, records: readonly InspectionRecord[], now: number): Judgement {
  let naming: InspectionRecord | undefined
  for (const record of records) {
    if (record.checkStatus === '2' || record.checkTime < period.start || record.checkTime >= period.end) continue
    if (!naming || record.checkTime < naming.checkTime || (record.checkTime === naming.checkTime && record.id < naming.id)) naming = record
  }
  if (naming) return { status: 'done', doneLate: naming.createTime >= period.end, recordId: naming.id }
  return { status: period.end <= now ? 'missed' : 'open', doneLate: false, recordId: null }
}
