// How readings raise, change and clear alarms, as pure functions: a point's evaluation state and a
// reading in, the next state and the alarm changes out. The store persists the state beside the
// readings in one transaction, so a restart judges the next reading exactly as it would have.
// The rules are written for integrators in the OpenAPI document (hazard/monitorData/add-batch) and
// docs/monitoring.md.
import type { EquipmentSettings } from '../../store/reading-store.ts'
import { add, compare, type Decimal, magnitude, parseDecimal, subtract } from './decimal.ts'

export type AlarmKind = 'high' | 'low' | 'outOfRange' | 'fault' | 'offline' | 'frozen'
export type Level = 1 | 2
type Direction = 'high' | 'low'

/** The equipment's fields evaluation reads, the defaults of the optional ones applied ("" = a threshold or bound not set). */
export type PointSettings = { [Field in keyof EquipmentSettings]: NonNullable<EquipmentSettings[Field]> }

export interface Reading {
  /** Reading time, milliseconds since the epoch. */
  time: number
  /** A decimal numeral, kept as sent. */
  value: string
  /** 0 good, 1 device fault. */
  quality: 0 | 1
}

/** An open (active) alarm as evaluation sees it; at most one per kind and point. */
export interface OpenAlarm {
  kind: AlarmKind
  level: Level | null
  maxLevel: Level | null
  threshold: string | null
  startTime: number
  startValue: string | null
  peakValue: string | null
}

/** A high or low condition met but not yet for the on-delay. */
interface Pending {
  since: number
  startValue: string
  peakValue: string
  maxLevel: Level
}

/** A run of good readings of one value (compared as numbers), for `frozen`. */
interface Run {
  value: string
  since: number
  count: number
}

/** Everything evaluation remembers of a point between readings; plain JSON. */
export interface PointState {
  /** Reading time of the newest judged reading (ms); older readings change no alarm but offline's. */
  newestJudged: number | null
  /** Server time the last reading was received (ms): offline's deadline counts from it. */
  lastReceived: number | null
  open: Partial<Record<AlarmKind, OpenAlarm>>
  pending: Partial<Record<Direction, Pending>>
  run: Run | null
}

export type AlarmField = 'level' | 'maxLevel' | 'threshold' | 'peakValue'

export type AlarmChange =
  | { type: 'raise'; alarm: OpenAlarm }
  | { type: 'update'; alarm: OpenAlarm; changes: Partial<Record<AlarmField, [unknown, unknown]>> }
  | { type: 'clear'; alarm: OpenAlarm; endTime: number; endValue: string | null }

export interface Outcome {
  state: PointState
  changes: AlarmChange[]
}

export function initialState(): PointState {
  return { newestJudged: null, lastReceived: null, open: {}, pending: {}, run: null }
}

const copy = (state: PointState): PointState => ({
  ...state,
  open: { ...state.open },
  pending: { ...state.pending },
})

/**
 * Judges one reading received at `receivedAt` (server clock, ms). A reading older than the newest
 * judged one (or of the same instant) only counts as received: it clears `offline` and nothing else.
 */
export function judgeReading(state: PointState, settings: PointSettings, reading: Reading, receivedAt: number): Outcome {
  const next = copy(state)
  const changes: AlarmChange[] = []
  next.lastReceived = Math.max(state.lastReceived ?? receivedAt, receivedAt)
  close(next, changes, 'offline', receivedAt, null)
  if (state.newestJudged !== null && reading.time <= state.newestJudged) return { state: next, changes }
  next.newestJudged = reading.time
  if (reading.quality === 1) {
    if (!next.open.fault) raise(next, changes, { ...blank('fault', reading), startValue: reading.value })
    return { state: next, changes }
  }
  close(next, changes, 'fault', reading.time, reading.value)
  const value = parseDecimal(reading.value)
  judgeDirection(next, changes, settings, reading, value, 'high')
  judgeDirection(next, changes, settings, reading, value, 'low')
  judgeRange(next, changes, settings, reading, value)
  judgeFrozen(next, changes, settings, reading, value)
  return { state: next, changes }
}

/** When `offline` is due by the server's clock (ms), or null when it cannot be. */
export function offlineDeadline(state: PointState, settings: PointSettings): number | null {
  if (settings.offlineAfterSeconds === 0 || state.lastReceived === null || state.open.offline) return null
  return state.lastReceived + settings.offlineAfterSeconds * 1000
}

/** Raises `offline` when its deadline has come at `now` (ms); its start is the deadline itself. */
export function checkOffline(state: PointState, settings: PointSettings, now: number): Outcome {
  const deadline = offlineDeadline(state, settings)
  if (deadline === null || now < deadline) return { state, changes: [] }
  const next = copy(state)
  const changes: AlarmChange[] = []
  raise(next, changes, { ...blank('offline', { time: deadline }), startValue: null })
  return { state: next, changes }
}

function blank(kind: AlarmKind, reading: Pick<Reading, 'time'>): OpenAlarm {
  return { kind, level: null, maxLevel: null, threshold: null, startTime: reading.time, startValue: null, peakValue: null }
}

function raise(state: PointState, changes: AlarmChange[], alarm: OpenAlarm): void {
  state.open[alarm.kind] = alarm
  changes.push({ type: 'raise', alarm })
}

function close(state: PointState, changes: AlarmChange[], kind: AlarmKind, endTime: number, endValue: string | null): void {
  const alarm = state.open[kind]
  if (!alarm) return
  delete state.open[kind]
  changes.push({ type: 'clear', alarm, endTime, endValue })
}

/** Applies the fields that differ to an open alarm, recording each as [old, new]. */
function change(state: PointState, changes: AlarmChange[], alarm: OpenAlarm, fields: Partial<Record<AlarmField, unknown>>): void {
  const diff: Partial<Record<AlarmField, [unknown, unknown]>> = {}
  for (const [field, value] of Object.entries(fields) as [AlarmField, unknown][]) {
    if (alarm[field] !== value) diff[field] = [alarm[field], value]
  }
  if (Object.keys(diff).length === 0) return
  const updated = { ...alarm, ...fields } as OpenAlarm
  state.open[alarm.kind] = updated
  changes.push({ type: 'update', alarm: updated, changes: diff })
}

/** Settings parsed so far: every reading is judged against several, mostly shared by many points. */
const parsedSettings = new Map<string, Decimal>()

/** A setting's decimal, parsed once (decimals are never changed in place); the memory is bounded. */
function setting(text: string): Decimal {
  let parsed = parsedSettings.get(text)
  if (parsed === undefined) {
    if (parsedSettings.size >= 10_000) parsedSettings.clear()
    parsed = parseDecimal(text)
    parsedSettings.set(text, parsed)
  }
  return parsed
}

interface Thresholds {
  one: string
  two: string
}

const thresholdsOf = (settings: PointSettings, direction: Direction): Thresholds =>
  direction === 'high'
    ? { one: settings.oneLevelHigh, two: settings.twoLevelHigh }
    : { one: settings.oneLevelLow, two: settings.twoLevelLow }

/** Whether `a` is beyond `b` or at it, in the direction (≥ for high, ≤ for low). */
const atOrBeyond = (direction: Direction, a: Decimal, b: Decimal): boolean =>
  direction === 'high' ? compare(a, b) >= 0 : compare(a, b) <= 0

/**
 * The level a value reaches (0: none). A level already held is kept until the value is strictly
 * past its threshold by more than the deadband, back toward normal.
 */
function levelOf(value: Decimal, thresholds: Thresholds, direction: Direction, held: number, deadband: Decimal): 0 | Level {
  const reaches = (threshold: string, level: Level): boolean => {
    if (threshold === '') return false
    const limit = setting(threshold)
    if (atOrBeyond(direction, value, limit)) return true
    if (held < level) return false
    const release = direction === 'high' ? subtract(limit, deadband) : add(limit, deadband)
    return atOrBeyond(direction, value, release)
  }
  if (reaches(thresholds.two, 2)) return 2
  if (reaches(thresholds.one, 1)) return 1
  return 0
}

const higher = (a: Level, b: Level): Level => (a > b ? a : b)

function judgeDirection(
  state: PointState,
  changes: AlarmChange[],
  settings: PointSettings,
  reading: Reading,
  value: Decimal,
  direction: Direction,
): void {
  const thresholds = thresholdsOf(settings, direction)
  const deadband = setting(settings.alarmDeadband === '' ? '0' : settings.alarmDeadband)
  const open = state.open[direction]
  const threshold = (level: Level) => (level === 2 ? thresholds.two : thresholds.one)
  const extreme = (peak: string) => (atOrBeyond(direction, parseDecimal(peak), value) ? peak : reading.value)
  if (open) {
    const level = levelOf(value, thresholds, direction, open.level ?? 0, deadband)
    if (level === 0) return close(state, changes, direction, reading.time, reading.value)
    return change(state, changes, open, {
      level,
      maxLevel: higher(open.maxLevel ?? level, level),
      threshold: threshold(level),
      peakValue: open.peakValue === null ? reading.value : extreme(open.peakValue),
    })
  }
  const level = levelOf(value, thresholds, direction, 0, deadband)
  if (level === 0) {
    delete state.pending[direction]
    return
  }
  const before = state.pending[direction]
  const pending: Pending = before
    ? { ...before, peakValue: extreme(before.peakValue), maxLevel: higher(before.maxLevel, level) }
    : { since: reading.time, startValue: reading.value, peakValue: reading.value, maxLevel: level }
  if (reading.time - pending.since < settings.alarmDelaySeconds * 1000) {
    state.pending[direction] = pending
    return
  }
  delete state.pending[direction]
  raise(state, changes, {
    kind: direction,
    level,
    maxLevel: pending.maxLevel,
    threshold: threshold(level),
    startTime: pending.since,
    startValue: pending.startValue,
    peakValue: pending.peakValue,
  })
}

/** How far a value lies outside the set bounds of the range (0 inside). */
function outside(value: Decimal, settings: PointSettings): Decimal {
  let distance: Decimal = { units: 0n, scale: 0 }
  const farther = (candidate: Decimal) => {
    if (compare(candidate, distance) > 0) distance = candidate
  }
  if (settings.rangeMin !== '') farther(subtract(setting(settings.rangeMin), value))
  if (settings.rangeMax !== '') farther(subtract(value, setting(settings.rangeMax)))
  return magnitude(distance)
}

function judgeRange(state: PointState, changes: AlarmChange[], settings: PointSettings, reading: Reading, value: Decimal): void {
  const below = settings.rangeMin !== '' && compare(value, setting(settings.rangeMin)) < 0
  const above = settings.rangeMax !== '' && compare(value, setting(settings.rangeMax)) > 0
  const open = state.open.outOfRange
  if (!below && !above) return close(state, changes, 'outOfRange', reading.time, reading.value)
  const threshold = below ? settings.rangeMin : settings.rangeMax
  if (!open) {
    return raise(state, changes, {
      ...blank('outOfRange', reading),
      threshold,
      startValue: reading.value,
      peakValue: reading.value,
    })
  }
  const peak = open.peakValue ?? reading.value
  const fartherOut = compare(outside(value, settings), outside(parseDecimal(peak), settings)) > 0
  change(state, changes, open, { threshold, peakValue: fartherOut ? reading.value : peak })
}

function judgeFrozen(state: PointState, changes: AlarmChange[], settings: PointSettings, reading: Reading, value: Decimal): void {
  const run = state.run
  if (run && compare(value, parseDecimal(run.value)) === 0) {
    state.run = { ...run, count: run.count + 1 }
  } else {
    close(state, changes, 'frozen', reading.time, reading.value)
    state.run = { value: reading.value, since: reading.time, count: 1 }
  }
  const current = state.run
  const span = settings.frozenAfterSeconds * 1000
  if (span === 0 || state.open.frozen || current.count < 2 || reading.time - current.since < span) return
  raise(state, changes, { ...blank('frozen', reading), startValue: reading.value, peakValue: current.value })
}
