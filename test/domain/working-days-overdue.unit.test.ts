// Unit tier (no database): the working-day calendar (its checks and its days) and the overdue rules
// of hidden dangers and work tickets.
import t from 'tap'
import { isDangerOverdue, isTicketOverdue } from '../../src/domain/supervision/overdue.ts'
import { checkedCalendarYear, MONDAY_TO_FRIDAY, workingDays } from '../../src/domain/supervision/working-days.ts'
import { dateAt, zoneNamed } from '../../src/domain/supervision/zone.ts'
import { BusinessError, Code } from '../../src/errors.ts'

/** The business error `fn` throws (undefined when it throws none). */
function refusalOf(fn: () => void): BusinessError | undefined {
  try {
    fn()
    return undefined
  } catch (error) {
    return error instanceof BusinessError ? error : undefined
  }
}

t.test('without lists, Monday to Friday are working days', async (t) => {
  t.same(
    ['2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09'].map((date) => MONDAY_TO_FRIDAY.isWorkingDay(date)),
    [true, false, false, true],
  )
})

t.test('holidays make weekdays days off; workdays make weekend days working days', async (t) => {
  const calendar = workingDays([{ year: 2026, holidays: ['2026-10-01'], workdays: ['2026-10-10'] }])
  t.equal(calendar.isWorkingDay('2026-10-01'), false)
  t.equal(calendar.isWorkingDay('2026-10-10'), true)
  t.equal(calendar.isWorkingDay('2026-10-11'), false)
  t.equal(calendar.isWorkingDay('2027-10-01'), true, 'another year keeps Monday to Friday')
})

t.test('a year set is sorted and without repeats', async (t) => {
  t.same(checkedCalendarYear({ year: 2026, holidays: ['2026-10-02', '2026-10-01', '2026-10-02'], workdays: [] }), {
    year: 2026,
    holidays: ['2026-10-01', '2026-10-02'],
    workdays: [],
  })
})

t.test('a date outside the year, a date that does not exist or a date in both lists is refused with 1002 naming it', async (t) => {
  const outside = refusalOf(() => checkedCalendarYear({ year: 2026, holidays: ['2027-01-01'], workdays: [] }))
  t.equal(outside?.code, Code.badParameter)
  t.match(outside?.message, /holidays: 2027-01-01/)
  t.match(refusalOf(() => checkedCalendarYear({ year: 2026, holidays: [], workdays: ['2026-02-29'] }))?.message, /workdays: 2026-02-29/)
  t.match(refusalOf(() => checkedCalendarYear({ year: 2026, holidays: ['2026-05-01'], workdays: ['2026-05-01'] }))?.message, /both/)
  t.equal(
    refusalOf(() => checkedCalendarYear({ year: 2028, holidays: ['2028-02-29'], workdays: [] })),
    undefined,
    'a leap day is a date',
  )
})

t.test('a hidden danger is overdue after its deadline day, not on it, and never once accepted (state 9)', async (t) => {
  const danger = { dangerState: '0', dangerManageDeadline: '2026-03-10' }
  t.equal(isDangerOverdue(danger, '2026-03-10'), false)
  t.equal(isDangerOverdue(danger, '2026-03-11'), true)
  t.equal(isDangerOverdue({ ...danger, dangerState: '1' }, '2026-03-11'), true)
  t.equal(isDangerOverdue({ ...danger, dangerState: '9' }, '2026-03-11'), false)
})

t.test("the enterprise's current date is read in its zone", async (t) => {
  const instant = Date.parse('2026-03-10T17:00:00Z')
  t.equal(dateAt(zoneNamed('+08:00'), instant), '2026-03-11')
  t.equal(dateAt(zoneNamed('UTC'), instant), '2026-03-10')
})

t.test('a work ticket is overdue when issued or in progress after its planned end', async (t) => {
  const planEndTime = Date.parse('2026-03-10T17:00:00+08:00')
  t.equal(isTicketOverdue({ ticketStatus: '1', planEndTime }, planEndTime), false)
  t.equal(isTicketOverdue({ ticketStatus: '1', planEndTime }, planEndTime + 1000), true)
  t.equal(isTicketOverdue({ ticketStatus: '2', planEndTime }, planEndTime + 1000), true)
  t.equal(isTicketOverdue({ ticketStatus: '3', planEndTime }, planEndTime + 1000), false)
  t.equal(isTicketOverdue({ ticketStatus: '4', planEndTime }, planEndTime + 1000), false)
})
