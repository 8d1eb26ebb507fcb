// Unit tier (no database): the inspection periods of a task (every unit, daily windows crossing
// midnight, working days with a holiday calendar, leap years, edits and deletion) and how a period
// is judged from its records.
import t from 'tap'
import {
  duePeriods,
  type InspectionRecord,
  judgePeriod,
  nextDueStart,
  type Period,
  type ScheduleVersion,
} from '../../src/domain/supervision/inspection-periods.ts'
import { MONDAY_TO_FRIDAY, workingDays } from '../../src/domain/supervision/working-days.ts'
import { addMonths, zoneNamed } from '../../src/domain/supervision/zone.ts'

const beijing = zoneNamed('+08:00')
const at = (text: string): number => Date.parse(text)
const show = (instant: number): string => new Date(instant + 8 * 3600_000).toISOString().slice(0, 19)

function task(fields: Partial<ScheduleVersion>): ScheduleVersion {
  return {
    since: null,
    deleted: false,
    anchor: at('2026-01-01T00:00:00+08:00'),
    checkCycle: 1,
    checkCycleUnit: '天',
    workStartTime: null,
    workEndTime: null,
    workDayType: '0',
    workType: '0',
    ...fields,
  }
}

/** A task of unit 小时 with its daily window `HH:mm:ss-HH:mm:ss`. */
function hourly(anchor: string, checkCycle: number, window: string, fields: Partial<ScheduleVersion> = {}): ScheduleVersion {
  const [workStartTime, workEndTime] = window.split('-')
  return task({ anchor: at(anchor), checkCycleUnit: '小时', checkCycle, workStartTime, workEndTime, ...fields })
}

/** Periods as wall-clock text in +08:00: `start → end`. */
function periods(versions: ScheduleVersion[], from: string, until: string, calendar = MONDAY_TO_FRIDAY): string[] {
  return duePeriods({ versions, calendar, zone: beijing, from: at(from), until: at(until) }).map(
    (period: Period) => `${show(period.start)} → ${show(period.end)}`,
  )
}

t.test('unit 天: period k starts k × checkCycle days after the anchor, keeping its time of day', async (t) => {
  const versions = [task({ anchor: at('2026-03-01T09:30:00+08:00'), checkCycle: 2 })]
  t.same(periods(versions, '2026-01-01T00:00:00+08:00', '2026-03-06T00:00:00+08:00'), [
    '2026-03-01T09:30:00 → 2026-03-03T09:30:00',
    '2026-03-03T09:30:00 → 2026-03-05T09:30:00',
    '2026-03-05T09:30:00 → 2026-03-07T09:30:00',
  ])
})

t.test('starts are inclusive: a period starting exactly at `until` is found, one starting after it is not', async (t) => {
  const versions = [task({ anchor: at('2026-03-01T00:00:00+08:00') })]
  t.equal(periods(versions, '2026-03-01T00:00:00+08:00', '2026-03-02T00:00:00+08:00').length, 2)
  t.equal(periods(versions, '2026-03-01T00:00:00+08:00', '2026-03-01T23:59:59+08:00').length, 1)
})

t.test('a later window skips ahead without walking from the anchor, and finds the same periods', async (t) => {
  const versions = [task({ anchor: at('2020-01-31T10:00:00+08:00'), checkCycle: 3 })]
  const late = periods(versions, '2026-06-01T00:00:00+08:00', '2026-06-10T00:00:00+08:00')
  const walked = periods(versions, '2020-01-01T00:00:00+08:00', '2026-06-10T00:00:00+08:00').filter((text) => text >= '2026-06-01')
  t.same(late, walked)
  t.ok(late.length >= 3)
})

t.test('unit 月: added on the calendar from the anchor each time, 31 January + 1 month = end of February', async (t) => {
  const versions = [task({ anchor: at('2026-01-31T08:00:00+08:00'), checkCycleUnit: '月' })]
  t.same(periods(versions, '2026-01-01T00:00:00+08:00', '2026-04-30T23:00:00+08:00'), [
    '2026-01-31T08:00:00 → 2026-02-28T08:00:00',
    '2026-02-28T08:00:00 → 2026-03-31T08:00:00',
    '2026-03-31T08:00:00 → 2026-04-30T08:00:00',
    '2026-04-30T08:00:00 → 2026-05-31T08:00:00',
  ])
})

t.test('unit 月 in a leap year: 31 January + 1 month = 29 February', async (t) => {
  const versions = [task({ anchor: at('2028-01-31T00:00:00+08:00'), checkCycleUnit: '月' })]
  t.same(periods(versions, '2028-01-01T00:00:00+08:00', '2028-02-29T00:00:00+08:00'), [
    '2028-01-31T00:00:00 → 2028-02-29T00:00:00',
    '2028-02-29T00:00:00 → 2028-03-31T00:00:00',
  ])
})

t.test('unit 月 with checkCycle 3: quarters from the anchor', async (t) => {
  const versions = [task({ anchor: at('2026-11-30T00:00:00+08:00'), checkCycleUnit: '月', checkCycle: 3 })]
  t.same(periods(versions, '2026-01-01T00:00:00+08:00', '2027-06-01T00:00:00+08:00'), [
    '2026-11-30T00:00:00 → 2027-02-28T00:00:00',
    '2027-02-28T00:00:00 → 2027-05-30T00:00:00',
    '2027-05-30T00:00:00 → 2027-08-30T00:00:00',
  ])
})

t.test('unit 年: 29 February + 1 year = 28 February, back to 29 February in the next leap year', async (t) => {
  const versions = [task({ anchor: at('2028-02-29T12:00:00+08:00'), checkCycleUnit: '年' })]
  t.same(periods(versions, '2028-01-01T00:00:00+08:00', '2032-03-01T00:00:00+08:00'), [
    '2028-02-29T12:00:00 → 2029-02-28T12:00:00',
    '2029-02-28T12:00:00 → 2030-02-28T12:00:00',
    '2030-02-28T12:00:00 → 2031-02-28T12:00:00',
    '2031-02-28T12:00:00 → 2032-02-29T12:00:00',
    '2032-02-29T12:00:00 → 2033-02-28T12:00:00',
  ])
})

t.test('unit 小时: periods of checkCycle hours from workStartTime, the last cut at the window end', async (t) => {
  const versions = [hourly('2026-03-02T00:00:00+08:00', 4, '08:00:00-17:30:00')]
  t.same(periods(versions, '2026-03-01T00:00:00+08:00', '2026-03-03T09:00:00+08:00'), [
    '2026-03-02T08:00:00 → 2026-03-02T12:00:00',
    '2026-03-02T12:00:00 → 2026-03-02T16:00:00',
    '2026-03-02T16:00:00 → 2026-03-02T17:30:00',
    '2026-03-03T08:00:00 → 2026-03-03T12:00:00',
  ])
})

t.test('unit 小时: a window whose end is before its start crosses midnight and belongs to the day it starts', async (t) => {
  const versions = [hourly('2026-03-06T00:00:00+08:00', 3, '22:00:00-06:00:00', { workDayType: '1' })]
  // Friday 6 March's window runs into Saturday; Saturday's and Sunday's windows are not due.
  t.same(periods(versions, '2026-03-06T00:00:00+08:00', '2026-03-09T23:00:00+08:00'), [
    '2026-03-06T22:00:00 → 2026-03-07T01:00:00',
    '2026-03-07T01:00:00 → 2026-03-07T04:00:00',
    '2026-03-07T04:00:00 → 2026-03-07T06:00:00',
    '2026-03-09T22:00:00 → 2026-03-10T01:00:00',
  ])
})

t.test('unit 小时: a window whose end equals its start lasts the whole day', async (t) => {
  const versions = [hourly('2026-03-02T00:00:00+08:00', 10, '06:00:00-06:00:00')]
  t.same(periods(versions, '2026-03-02T00:00:00+08:00', '2026-03-03T06:00:00+08:00'), [
    '2026-03-02T06:00:00 → 2026-03-02T16:00:00',
    '2026-03-02T16:00:00 → 2026-03-03T02:00:00',
    '2026-03-03T02:00:00 → 2026-03-03T06:00:00',
    '2026-03-03T06:00:00 → 2026-03-03T16:00:00',
  ])
})

t.test('unit 小时: the first period is the first window start at or after the anchor (a window already open is skipped)', async (t) => {
  const versions = [hourly('2026-03-02T09:00:00+08:00', 2, '08:00:00-12:00:00')]
  t.same(periods(versions, '2026-03-01T00:00:00+08:00', '2026-03-03T10:00:00+08:00'), [
    '2026-03-03T08:00:00 → 2026-03-03T10:00:00',
    '2026-03-03T10:00:00 → 2026-03-03T12:00:00',
  ])
  const exact = [{ ...versions[0], anchor: at('2026-03-02T08:00:00+08:00') }]
  t.equal(
    periods(exact, '2026-03-01T00:00:00+08:00', '2026-03-02T08:00:00+08:00').length,
    1,
    'a window starting at the anchor is the first',
  )
})

t.test('unit 小时: a cycle longer than the window gives one period per window, cut at its end', async (t) => {
  const versions = [hourly('2026-03-02T00:00:00+08:00', 24, '08:00:00-10:00:00')]
  t.same(periods(versions, '2026-03-01T00:00:00+08:00', '2026-03-03T09:00:00+08:00'), [
    '2026-03-02T08:00:00 → 2026-03-02T10:00:00',
    '2026-03-03T08:00:00 → 2026-03-03T10:00:00',
  ])
})

t.test('workDayType 1 (unit 天): only periods starting on working days, with the calendar of holidays and workdays', async (t) => {
  // 2026: Thursday 1 October a holiday, Saturday 10 October a working day.
  const calendar = workingDays([{ year: 2026, holidays: ['2026-10-01'], workdays: ['2026-10-10'] }])
  const versions = [task({ anchor: at('2026-09-30T08:00:00+08:00'), workDayType: '1' })]
  t.same(
    periods(versions, '2026-09-30T00:00:00+08:00', '2026-10-12T08:00:00+08:00', calendar).map((text) => text.slice(0, 10)),
    ['2026-09-30', '2026-10-02', '2026-10-05', '2026-10-06', '2026-10-07', '2026-10-08', '2026-10-09', '2026-10-10', '2026-10-12'],
  )
})

t.test('workDayType 2 (unit 天): only periods starting on non-working days', async (t) => {
  const calendar = workingDays([{ year: 2026, holidays: ['2026-10-01'], workdays: ['2026-10-10'] }])
  const versions = [task({ anchor: at('2026-09-30T08:00:00+08:00'), workDayType: '2' })]
  t.same(
    periods(versions, '2026-09-30T00:00:00+08:00', '2026-10-12T08:00:00+08:00', calendar).map((text) => text.slice(0, 10)),
    ['2026-10-01', '2026-10-03', '2026-10-04', '2026-10-11'],
  )
})

t.test('workDayType is ignored for units 月 and 年', async (t) => {
  const versions = [task({ anchor: at('2026-02-28T08:00:00+08:00'), checkCycleUnit: '月', workDayType: '1' })]
  // 28 February 2026 is a Saturday.
  t.equal(periods(versions, '2026-02-01T00:00:00+08:00', '2026-03-01T00:00:00+08:00').length, 1)
})

t.test('days are read in the configured zone: the same instants are another day elsewhere', async (t) => {
  // 2026-03-06T20:00Z is Saturday 04:00 in +08:00 but Friday 20:00 in UTC.
  const versions = [task({ anchor: at('2026-03-06T20:00:00Z'), workDayType: '1' })]
  const found = (zone: string) =>
    duePeriods({
      versions,
      calendar: MONDAY_TO_FRIDAY,
      zone: zoneNamed(zone),
      from: at('2026-03-06T00:00:00Z'),
      until: at('2026-03-07T00:00:00Z'),
    })
  t.equal(found('UTC').length, 1)
  t.equal(found('+08:00').length, 0)
})

t.test('an IANA zone reads its daylight-saving changes: the wall-clock time of day is kept', async (t) => {
  const versions = [task({ anchor: at('2026-03-07T09:00:00-05:00') })]
  const found = duePeriods({
    versions,
    calendar: MONDAY_TO_FRIDAY,
    zone: zoneNamed('America/New_York'),
    from: at('2026-03-07T00:00:00Z'),
    until: at('2026-03-09T00:00:00Z'),
  })
  t.same(
    found.map((period) => new Date(period.start).toISOString()),
    ['2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z'],
  )
  t.equal(found[0].end - found[0].start, 23 * 3600_000, 'the day the clocks go forward lasts 23 hours')
})

t.test('an edit applies to the periods starting after it; the period running at the edit keeps its bounds', async (t) => {
  const anchor = at('2026-03-01T08:00:00+08:00')
  const versions = [
    task({ anchor }),
    // Edited at 3 March 12:00 to every 2 days, same anchor: the running period (3 March 08:00 → 4 March 08:00) stays.
    task({ anchor, checkCycle: 2, since: at('2026-03-03T12:00:00+08:00'), workType: '1' }),
  ]
  const found = duePeriods({
    versions,
    calendar: MONDAY_TO_FRIDAY,
    zone: beijing,
    from: Number.NEGATIVE_INFINITY,
    until: at('2026-03-08T00:00:00+08:00'),
  })
  t.same(
    found.map((period) => `${show(period.start)} → ${show(period.end)} ${period.workType}`),
    [
      '2026-03-01T08:00:00 → 2026-03-02T08:00:00 0',
      '2026-03-02T08:00:00 → 2026-03-03T08:00:00 0',
      '2026-03-03T08:00:00 → 2026-03-04T08:00:00 0',
      '2026-03-05T08:00:00 → 2026-03-07T08:00:00 1',
      '2026-03-07T08:00:00 → 2026-03-09T08:00:00 1',
    ],
  )
})

t.test('an edit of the window (unit 小时) mid-window: the running period ends as it was, the next follows the new window', async (t) => {
  const anchor = at('2026-03-02T00:00:00+08:00')
  const hourly = { anchor, checkCycleUnit: '小时' as const, checkCycle: 4, workStartTime: '08:00:00', workEndTime: '16:00:00' }
  const versions = [task(hourly), task({ ...hourly, checkCycle: 1, workStartTime: '09:00:00', since: at('2026-03-02T10:00:00+08:00') })]
  t.same(periods(versions, '2026-03-01T00:00:00+08:00', '2026-03-02T14:00:00+08:00'), [
    '2026-03-02T08:00:00 → 2026-03-02T12:00:00',
    '2026-03-02T12:00:00 → 2026-03-02T13:00:00',
    '2026-03-02T13:00:00 → 2026-03-02T14:00:00',
    '2026-03-02T14:00:00 → 2026-03-02T15:00:00',
  ])
})

t.test('an edit of the start moves the grid for the periods after the edit only', async (t) => {
  const versions = [
    task({ anchor: at('2026-03-01T08:00:00+08:00') }),
    task({ anchor: at('2026-03-01T20:00:00+08:00'), since: at('2026-03-02T09:00:00+08:00') }),
  ]
  t.same(periods(versions, '2026-03-01T00:00:00+08:00', '2026-03-04T00:00:00+08:00'), [
    '2026-03-01T08:00:00 → 2026-03-02T08:00:00',
    '2026-03-02T08:00:00 → 2026-03-03T08:00:00',
    '2026-03-03T20:00:00 → 2026-03-04T20:00:00',
  ])
})

t.test('a deleted task has no period starting after its deletion; its earlier periods stay', async (t) => {
  const anchor = at('2026-03-01T08:00:00+08:00')
  const versions = [task({ anchor }), task({ anchor, deleted: true, since: at('2026-03-02T09:00:00+08:00') })]
  t.same(periods(versions, '2026-03-01T00:00:00+08:00', '2026-03-10T00:00:00+08:00'), [
    '2026-03-01T08:00:00 → 2026-03-02T08:00:00',
    '2026-03-02T08:00:00 → 2026-03-03T08:00:00',
  ])
  t.equal(nextDueStart({ versions, calendar: MONDAY_TO_FRIDAY, zone: beijing, from: at('2026-03-03T08:00:00+08:00') }), null)
})

t.test('from resumes where a previous call stopped: two calls find what one finds', async (t) => {
  const versions = [hourly('2026-03-02T00:00:00+08:00', 3, '22:00:00-07:00:00', { workDayType: '1' })]
  const all = duePeriods({
    versions,
    calendar: MONDAY_TO_FRIDAY,
    zone: beijing,
    from: Number.NEGATIVE_INFINITY,
    until: at('2026-03-12T00:00:00+08:00'),
  })
  const first = duePeriods({
    versions,
    calendar: MONDAY_TO_FRIDAY,
    zone: beijing,
    from: Number.NEGATIVE_INFINITY,
    until: at('2026-03-06T23:30:00+08:00'),
  })
  const rest = duePeriods({
    versions,
    calendar: MONDAY_TO_FRIDAY,
    zone: beijing,
    from: Math.max(first[first.length - 1].end, at('2026-03-06T23:30:00+08:00') + 1),
    until: at('2026-03-12T00:00:00+08:00'),
  })
  t.same([...first, ...rest], all)
})

t.test('nextDueStart skips the days not due (a weekend for working days only)', async (t) => {
  const versions = [task({ anchor: at('2026-03-02T08:00:00+08:00'), workDayType: '1' })]
  const next = nextDueStart({ versions, calendar: MONDAY_TO_FRIDAY, zone: beijing, from: at('2026-03-06T08:00:01+08:00') })
  t.equal(next, at('2026-03-09T08:00:00+08:00'))
})

t.test('addMonths keeps the day where the month has it and cuts it to the last day otherwise', async (t) => {
  t.equal(new Date(addMonths(Date.UTC(2026, 0, 31, 8), 1)).toISOString(), '2026-02-28T08:00:00.000Z')
  t.equal(new Date(addMonths(Date.UTC(2024, 0, 31, 8), 1)).toISOString(), '2024-02-29T08:00:00.000Z')
  t.equal(new Date(addMonths(Date.UTC(2026, 0, 31, 8), 2)).toISOString(), '2026-03-31T08:00:00.000Z')
  t.equal(new Date(addMonths(Date.UTC(2026, 10, 15), 14)).toISOString(), '2028-01-15T00:00:00.000Z')
})

const period = { start: at('2026-03-02T08:00:00+08:00'), end: at('2026-03-02T12:00:00+08:00') }
const record = (id: string, checkTime: string, createTime: string, checkStatus: string | null = '0'): InspectionRecord => ({
  id,
  checkTime: at(checkTime),
  createTime: at(createTime),
  checkStatus,
})

t.test('judging: the earliest record by checkTime inside the period (status not 2) names it; written in time it is not late', async (t) => {
  const records = [
    record('R2', '2026-03-02T10:00:00+08:00', '2026-03-02T10:00:00+08:00'),
    record('R1', '2026-03-02T09:00:00+08:00', '2026-03-02T09:05:00+08:00'),
    record('R0', '2026-03-02T08:30:00+08:00', '2026-03-02T08:30:00+08:00', '2'),
  ]
  t.same(judgePeriod(period, records, at('2026-03-02T11:00:00+08:00')), { status: 'done', doneLate: false, recordId: 'R1' })
})

t.test('judging: an absent checkStatus counts as done; a tie on checkTime goes to the smaller id', async (t) => {
  const records = [
    record('B', '2026-03-02T09:00:00+08:00', '2026-03-02T09:00:00+08:00', null),
    record('A', '2026-03-02T09:00:00+08:00', '2026-03-02T09:00:00+08:00', null),
  ]
  t.equal(judgePeriod(period, records, at('2026-03-02T13:00:00+08:00')).recordId, 'A')
})

t.test('judging: starts inclusive, ends exclusive', async (t) => {
  const now = at('2026-03-03T00:00:00+08:00')
  t.equal(judgePeriod(period, [record('S', '2026-03-02T08:00:00+08:00', '2026-03-02T08:00:00+08:00')], now).status, 'done')
  t.equal(judgePeriod(period, [record('E', '2026-03-02T12:00:00+08:00', '2026-03-02T12:00:00+08:00')], now).status, 'missed')
})

t.test('judging: a record written after the period ended makes it done late', async (t) => {
  const late = [record('L', '2026-03-02T09:00:00+08:00', '2026-03-02T15:00:00+08:00')]
  t.same(judgePeriod(period, late, at('2026-03-02T16:00:00+08:00')), { status: 'done', doneLate: true, recordId: 'L' })
})

t.test('judging: without a record a period is open while it runs and missed once it ended (its end instant included)', async (t) => {
  const skipped = [record('N', '2026-03-02T09:00:00+08:00', '2026-03-02T09:00:00+08:00', '2')]
  t.same(judgePeriod(period, skipped, at('2026-03-02T11:59:59+08:00')), { status: 'open', doneLate: false, recordId: null })
  t.same(judgePeriod(period, skipped, period.end), { status: 'missed', doneLate: false, recordId: null })
})

t.test(
  'the grid stops before the last instant kept (year 9999): a huge cycle or a late anchor gives no period, not an error',
  async (t) => {
    const far = (fields: Partial<ScheduleVersion>) =>
      duePeriods({
        versions: [task(fields)],
        calendar: MONDAY_TO_FRIDAY,
        zone: beijing,
        from: Number.NEGATIVE_INFINITY,
        until: Number.POSITIVE_INFINITY,
      })
    t.same(far({ anchor: at('9999-12-30T00:00:00Z'), checkCycleUnit: '年' }), [])
    t.same(far({ anchor: at('2026-01-01T00:00:00Z'), checkCycle: 2147483647 }), [])
    t.same(far({ anchor: at('2026-01-01T00:00:00Z'), checkCycle: 2147483647, checkCycleUnit: '月' }), [])
    t.equal(
      nextDueStart({ versions: [task({ anchor: at('9999-12-30T00:00:00Z') })], calendar: MONDAY_TO_FRIDAY, zone: beijing, from: 0 }),
      null,
    )
  },
)
