// What PostgreSQL can hold, as plain predicates over values a request carries. Request validation
// (validation.ts) applies them to every string, integer, instant and date of every schema, so a
// value the database would refuse, or keep altered, is a 1002 naming its field before any SQL runs.
//
// - Text: PostgreSQL's text cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 form (the
//   driver would store U+FFFD in its place).
// - Integers: JSON numbers are doubles; past 2^53 they are no longer the integer that was sent.
//   (Infinity, from `1e309`, is refused as a number by Ajv's strictNumbers.)
// - Instants: stored as timestamptz and written back in the configured zone as `YYYY-MM-DDThh:mm:ss`
//   with a four-digit year, so an instant must land in years 0001..9999 in every zone: its UTC time
//   between 0001-01-02 and 9999-12-30. Offsets beyond ±15:59 are refused by PostgreSQL.
// - Dates: PostgreSQL has no year 0.
import { type Message, message } from '../messages/message.ts'
import { rememberingLast } from './remember-last.ts'

/** Why a string cannot be stored as text, or undefined when it can. */
export function textProblem(value: string): Message | undefined {
  if (value.includes('\u0000')) return message('textNul')
  if (!value.isWellFormed()) return message('textSurrogate')
  return undefined
}

/** Why an integer cannot be kept exactly, or undefined when it can. */
export function integerProblem(value: number): Message | undefined {
  return Number.isSafeInteger(value) ? undefined : message('integerUnsafe', { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })
}

export const EARLIEST_INSTANT = '0001-01-02T00:00:00Z'
export const LATEST_INSTANT = '9999-12-30T23:59:59Z'
const EARLIEST_MS = utcMilliseconds(1, 1, 2, 0, 0, 0)
const LATEST_MS = utcMilliseconds(9999, 12, 31, 0, 0, 0)
const MAX_OFFSET_MINUTES = 15 * 60 + 59

// RFC 3339 date-time: T or t; a fraction of any length; Z, z or an offset ±hh:mm (not ±hh nor
// ±hhmm, which ISO 8601 allows and RFC 3339 does not). Whether the date and time exist is the
// `date-time` format's check (validation.ts), which also keeps to this grammar.
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/

/**
 * The second since the epoch (UTC) an instant of RFC 3339's grammar is kept as, or undefined for a
 * string of another grammar: its fraction dropped, its offset applied, and a leap second (`:60`)
 * as the next second, as PostgreSQL keeps it.
 */
export const instantSeconds = rememberingLast((value: string): number | undefined => {
  const match = INSTANT.exec(value)
  if (!match) return undefined
  const [, year, month, day, hour, minute, second, sign, offsetHours, offsetMinutes] = match
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) : 0
  return (utcMilliseconds(Number(year), Number(month), Number(day), Number(hour), Number(minute), Number(second)) - offset * 60_000) / 1000
})

/**
 * Why an instant of RFC 3339's grammar cannot be stored and written back, or undefined when it can.
 * (Its syntax is the `date-time` format's business; a string of another grammar passes here.)
 */
export function instantProblem(value: string): Message | undefined {
  const seconds = instantSeconds(value)
  if (seconds === undefined) return undefined
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(value)
  if (offset && Number(offset[2]) * 60 + Number(offset[3]) > MAX_OFFSET_MINUTES) return message('offsetRange')
  if (seconds * 1000 < EARLIEST_MS || seconds * 1000 >= LATEST_MS)
    return message('between', { earliest: EARLIEST_INSTANT, latest: LATEST_INSTANT })
  return undefined
}

/** Why a syntactically valid date cannot be stored, or undefined when it can. */
export function dateProblem(value: string): Message | undefined {
  return /^0000-/.test(value) ? message('between', { earliest: '0001-01-01', latest: '9999-12-31' }) : undefined
}

/** True when `value` is an instant PostgreSQL can hold and the service can write back. */
export function isStorableInstant(value: string): boolean {
  return INSTANT.test(value) && instantProblem(value) === undefined
}

/** True when `value` is a date PostgreSQL can hold. */
export function isStorableDate(value: string): boolean {
  return dateProblem(value) === undefined
}

/**
 * The first value inside `value` (depth first, any depth, without recursion) that cannot be
 * stored: a string, or an object key, that is not storable text, or a number that is not finite.
 * For values whose schema says nothing of their shape (a search condition's `value`).
 */
export function findUnstorable(value: unknown): { path: string; problem: Message } | undefined {
  const stack: [unknown, string][] = [[value, '']]
  while (stack.length > 0) {
    const [current, path] = stack.pop()!
    if (typeof current === 'string') {
      const problem = textProblem(current)
      if (problem) return { path, problem }
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) return { path, problem: message('numberNotFinite') }
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) stack.push([current[index], `${path}/${index}`])
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current)
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]
        const problem = textProblem(key)
        if (problem) return { path, problem: message('keyProblem', { problem }) }
        stack.push([child, `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`])
      }
    }
  }
  return undefined
}

/** Date.UTC for every year from 1 (Date.UTC maps years 0..99 to 1900..1999). */
export function utcMilliseconds(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second)
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, 0)
  return date.getTime()
}
