// The supervision indicators of an enterprise made from its counts: rates (four decimals, rounded
// half up, null over nothing), breakdowns listing every code (zeros included), medians, and the
// order of the entries by any figure. What each figure counts: the indicators operation of the
// OpenAPI document, and docs/supervision.md.
import { BusinessError, Code } from '../../errors.ts'
import { message } from '../../messages/message.ts'

/** A ratio as a decimal string of four decimals rounded half up (`"0.8750"`); null when the denominator is 0. */
export function rate(numerator: number, denominator: number): string | null {
  if (denominator === 0) return null
  const tenThousandths = Math.floor((2 * numerator * 10_000 + denominator) / (2 * denominator))
  return `${Math.floor(tenThousandths / 10_000)}.${String(tenThousandths % 10_000).padStart(4, '0')}`
}

/** The median of integer seconds (of an even count, the lower middle); null of nothing. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]
}

export const WORK_TYPES_OF_TASKS = ['0', '1', '2', '3'] as const
export const RISK_LEVELS = ['1', '2', '3', '4'] as const
export const TICKET_WORK_TYPES = ['1', '2', '3', '4', '5', '6', '7', '8'] as const
export const TICKET_STATUSES = ['1', '2', '3', '4'] as const

export interface PeriodTally {
  workType: string
  done: number
  doneLate: number
  missed: number
  open: number
}

export interface InspectionFigures {
  due: number
  done: number
  doneLate: number
  missed: number
  open: number
  completionRate: string | null
  onTimeRate: string | null
}

function figures(tallies: readonly PeriodTally[]): InspectionFigures {
  const sum = (key: 'done' | 'doneLate' | 'missed' | 'open') => tallies.reduce((total, tally) => total + tally[key], 0)
  const done = sum('done')
  const doneLate = sum('doneLate')
  const missed = sum('missed')
  const due = done + missed
  return { due, done, doneLate, missed, open: sum('open'), completionRate: rate(done, due), onTimeRate: rate(done - doneLate, due) }
}

/** Inspections overall and per task work type `0`..`3` (a period of another work type counts overall only). */
export function inspectionFigures(
  tallies: readonly PeriodTally[],
): InspectionFigures & { byWorkType: (InspectionFigures & { workType: string })[] } {
  return {
    ...figures(tallies),
    byWorkType: WORK_TYPES_OF_TASKS.map((workType) => ({ workType, ...figures(tallies.filter((tally) => tally.workType === workType)) })),
  }
}

/** Every code with its count, zeros included, in the codes' order (counts of other codes are left out). */
export function breakdown<Key extends string>(
  key: Key,
  codes: readonly string[],
  counts: readonly { code: string; count: number }[],
): ({ [K in Key]: string } & { count: number })[] {
  return codes.map(
    (code) =>
      ({ [key]: code, count: counts.filter((entry) => entry.code === code).reduce((total, entry) => total + entry.count, 0) }) as {
        [K in Key]: string
      } & { count: number },
  )
}

/** The alarm breakdown's codes: high and low at levels 1 and 2, the other kinds without a level. */
export const ALARM_KINDS_AND_LEVELS: readonly { kind: string; level: number | null }[] = [
  { kind: 'high', level: 1 },
  { kind: 'high', level: 2 },
  { kind: 'low', level: 1 },
  { kind: 'low', level: 2 },
  ...['outOfRange', 'fault', 'offline', 'frozen'].map((kind) => ({ kind, level: null })),
]

/** Alarms per kind and level, every code listed with its count (zeros included), in the codes' order. */
export function alarmBreakdown(
  counts: readonly { kind: string; level: number | null; count: number }[],
): { kind: string; level: number | null; count: number }[] {
  return ALARM_KINDS_AND_LEVELS.map(({ kind, level }) => ({
    kind,
    level,
    count: counts.filter((entry) => entry.kind === kind && entry.level === level).reduce((total, entry) => total + entry.count, 0),
  }))
}

/** The figures an entry may be ordered by (dotted paths), of either edition. */
export const ORDERABLE_FIGURES: ReadonlySet<string> = new Set([
  ...['due', 'done', 'doneLate', 'missed', 'open', 'completionRate', 'onTimeRate'].map((name) => `inspections.${name}`),
  ...['found', 'accepted', 'rectificationRate', 'open', 'overdue', 'majorOpen'].map((name) => `dangers.${name}`),
  'tickets.overdue',
  ...['sessions', 'hours', 'participants', 'passRate'].map((name) => `training.${name}`),
  ...['medianSecondsToAcknowledge', 'medianSecondsToDispose', 'active', 'offlinePoints'].map((name) => `alarms.${name}`),
  'sync.pending',
  'sync.failed',
  'lastPushTime',
  'companyCode',
])

export interface OrderKey {
  field: string
  direction?: 'asc' | 'desc'
}

/** The order as asked: 1002 naming an unknown figure, or one the edition's entries do not have (`absent`). */
export function checkedOrder(orderBy: readonly OrderKey[] | undefined, absent: ReadonlySet<string> = new Set()): OrderKey[] {
  return (orderBy ?? []).map((key, index) => {
    if (!ORDERABLE_FIGURES.has(key.field) || absent.has(key.field))
      throw new BusinessError(Code.badParameter, message('unknownFigure', { at: `orderBy[${index}]`, field: key.field }))
    return key
  })
}

/** Entries ordered by the keys, then by companyCode; a missing or null figure last whatever the direction. Rates compare as numbers. */
export function orderEntries<Entry extends { companyCode: string }>(entries: readonly Entry[], keys: readonly OrderKey[]): Entry[] {
  const valueOf = (entry: Entry, path: string): number | string | null => {
    let value: unknown = entry
    for (const part of path.split('.'))
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined
    if (value === undefined || value === null) return null
    if (typeof value === 'number') return value
    const text = String(value)
    return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text
  }
  return [...entries].sort((a, b) => {
    for (const key of keys) {
      const left = valueOf(a, key.field)
      const right = valueOf(b, key.field)
      if (left === right) continue
      if (left === null) return 1
      if (right === null) return -1
      const order = left < right ? -1 : 1
      return key.direction === 'desc' ? -order : order
    }
    return a.companyCode < b.companyCode ? -1 : a.companyCode > b.companyCode ? 1 : 0
  })
}
