// The enterprise's working-day calendar: Monday to Friday, unless the year's lists say otherwise
// (public holidays on weekdays, weekend days made working days). One year's lists replace that
// year's only; a year without lists is Monday to Friday.
import { BusinessError, Code } from '../../errors.ts'
import { localMidnight } from './zone.ts'
import { message } from '../../messages/message.ts'

export interface CalendarYear {
  year: number
  /** `YYYY-MM-DD` days off, weekdays included. */
  holidays: string[]
  /** `YYYY-MM-DD` working days, weekend days included. */
  workdays: string[]
}

export interface WorkingDays {
  isWorkingDay(date: string): boolean
}

export function workingDays(years: readonly CalendarYear[]): WorkingDays {
  const holidays = new Set(years.flatMap((year) => year.holidays))
  const workdays = new Set(years.flatMap((year) => year.workdays))
  return {
    isWorkingDay(date) {
      if (holidays.has(date)) return false
      if (workdays.has(date)) return true
      const weekday = new Date(localMidnight(date)).getUTCDay()
      return weekday !== 0 && weekday !== 6
    },
  }
}

/** Monday to Friday: the calendar of every year without lists. */
export const MONDAY_TO_FRIDAY: WorkingDays = workingDays([])

/** A year's lists as set: each date a real day of that year, none in both lists (1002 naming the date otherwise); sorted, without repeats. */
export function checkedCalendarYear(input: CalendarYear): CalendarYear {
  const check = (field: 'holidays' | 'workdays') => {
    for (const date of input[field]) {
      if (!isRealDate(date)) throw new BusinessError(Code.badParameter, message('notADate', { field, date }))
      if (Number(date.slice(0, 4)) !== input.year)
        throw new BusinessError(Code.badParameter, message('outsideYear', { field, date, year: input.year }))
    }
    return [...new Set(input[field])].sort()
  }
  const holidays = check('holidays')
  const workdays = check('workdays')
  const both = holidays.find((date) => workdays.includes(date))
  if (both !== undefined) throw new BusinessError(Code.badParameter, message('inBothLists', { date: both }))
  return { year: input.year, holidays, workdays }
}

function isRealDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false
  return new Date(localMidnight(text)).toISOString().slice(0, 10) === text
}
