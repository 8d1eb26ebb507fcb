// Cross-field rules of domain/FIELDS.md that JSON Schema cannot say. Each reads a record (on update:
// the stored record merged with the change) and returns a message naming the fields, or undefined.
// A rule declares the fields it reads, so an update touching none of them skips the merged check.

import { instantSeconds } from '../contract/storable.ts'
import { type Message, message } from '../messages/message.ts'

export type RecordValues = Record<string, unknown>

export interface CrossFieldRule {
  fields: readonly string[]
  check(record: RecordValues): Message | undefined
}

const isSet = (value: unknown): boolean => value !== null && value !== undefined && value !== ''

/** Text of nothing but white space: Unicode's (U+3000, U+00A0, U+0085, …) and JavaScript's (U+FEFF). */
const BLANK = /^[\s\p{White_Space}]*$/u

/** What a required-when rule accepts as a value: set, and not blank text (a blank name names no one). */
const hasValue = (value: unknown): boolean => isSet(value) && !(typeof value === 'string' && BLANK.test(value))

/** The second an instant is kept as (a fraction sent is dropped; a leap second is the next). */
const secondOf = (instant: unknown): number => instantSeconds(String(instant)) ?? Number.NaN

/** `end` must be strictly after `start` when both are set, as they are kept: to the second. */
export function endAfterStart(start: string, end: string): CrossFieldRule {
  return {
    fields: [start, end],
    check(record) {
      const from = record[start]
      const to = record[end]
      if (!isSet(from) || !isSet(to)) return undefined
      return secondOf(to) > secondOf(from) ? undefined : message('endAfterStart', { end, start })
    },
  }
}

/**
 * Compares two decimal numerals of the document's Decimal pattern (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`)
 * exactly, digit by digit: -1, 0 or 1. (As numbers, 9.00000000000000000001 and 9 are equal.)
 */
export function compareDecimals(a: string, b: string): number {
  const parse = (text: string) => {
    const [whole, fraction = ''] = text.replace(/^-/, '').split('.')
    const digits = { whole, fraction: fraction.replace(/0+$/, '') }
    // -0 and -0.000 are zero, not negative.
    return { ...digits, negative: text.startsWith('-') && (whole !== '0' || digits.fraction !== '') }
  }
  const x = parse(a)
  const y = parse(b)
  if (x.negative !== y.negative) return x.negative ? -1 : 1
  const magnitude =
    x.whole.length !== y.whole.length
      ? Math.sign(x.whole.length - y.whole.length)
      : x.whole !== y.whole
        ? x.whole < y.whole
          ? -1
          : 1
        : x.fraction === y.fraction
          ? 0
          : x.fraction < y.fraction
            ? -1
            : 1
  return x.negative ? -magnitude : magnitude
}

/** The alarm thresholds lie within the range and in order, as decimals: rangeMin ≤ twoLevelLow ≤ … ≤ rangeMax. */
export function thresholdOrder(order: readonly string[]): CrossFieldRule {
  return {
    fields: order,
    check(record) {
      const set = order.filter((field) => isSet(record[field]))
      for (let i = 1; i < set.length; i++) {
        const lower = set[i - 1]
        const upper = set[i]
        if (compareDecimals(String(record[lower]), String(record[upper])) > 0) {
          return message('thresholdOrder', { lower, upper, lowerValue: String(record[lower]), upperValue: String(record[upper]) })
        }
      }
      return undefined
    },
  }
}

/** `fields` are required when `when(record)` holds: each must have a value (blank text is none). */
export function requiredWhen(
  fields: readonly string[],
  condition: Message,
  reads: readonly string[],
  when: (record: RecordValues) => boolean,
): CrossFieldRule {
  return {
    fields: [...reads, ...fields],
    check(record) {
      if (!when(record)) return undefined
      const missing = fields.filter((field) => !hasValue(record[field]))
      return missing.length === 0 ? undefined : message('requiredWhen', { fields: missing.join(', '), condition })
    },
  }
}

export const classifyPrefix: CrossFieldRule = {
  fields: ['classify1', 'classify2'],
  check(record) {
    const { classify1, classify2 } = record
    if (!isSet(classify2)) return undefined
    if (String(classify2).split('-')[0] === classify1) return undefined
    return message('classifyPrefix', { classify2: String(classify2), classify1: classify1 == null ? message('notSet') : String(classify1) })
  },
}

/** GB 30871-2022: only hot work, work at height and lifting have levels, each its own. */
const WORK_LEVELS: Record<string, readonly string[]> = { '1': ['1', '2', '3'], '4': ['1', '2', '3', '4'], '5': ['1', '2', '3'] }

export const workLevelForType: CrossFieldRule = {
  fields: ['workType', 'workLevel'],
  check(record) {
    const { workType, workLevel } = record
    const levels = WORK_LEVELS[String(workType)]
    if (!isSet(workLevel)) return undefined
    if (!levels) return message('workLevelNotForType', { workType: String(workType) })
    if (!levels.includes(String(workLevel))) return message('workLevelOfType', { workType: String(workType), levels: levels.join(', ') })
    return undefined
  },
}

/** A hot work, work at height or lifting ticket says its level; an update that changes workType is checked again. */
export const workLevelRequired: CrossFieldRule = requiredWhen(['workLevel'], message('whenLeveledWork'), ['workType'], (record) =>
  Object.hasOwn(WORK_LEVELS, String(record.workType)),
)

export const passNotAboveParticipants: CrossFieldRule = {
  fields: ['passCount', 'participantCount'],
  check(record) {
    const { passCount, participantCount } = record
    if (!isSet(passCount) || !isSet(participantCount)) return undefined
    return Number(passCount) <= Number(participantCount) ? undefined : message('passAboveParticipants')
  },
}
