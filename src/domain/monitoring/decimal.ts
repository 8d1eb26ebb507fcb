// Exact arithmetic on the document's decimal numerals (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`): readings
// and thresholds are compared as numbers, and a threshold minus a deadband must not pick up the
// binary rounding of floating point (1.6 - 0.1 is not 1.5 as a double). Units are a number while
// they are a safe integer (a double holds those exactly, and every reading is judged against
// several thresholds), a bigint past that.

/** A decimal as an integer count of 10^-scale units. */
export interface Decimal {
  units: number | bigint
  scale: number
}

/** Digits a number holds exactly, whatever they are (10^15 < 2^53). */
const EXACT_DIGITS = 15
/** 10^k, exact as doubles. */
const POWERS = Array.from({ length: EXACT_DIGITS + 1 }, (_, k) => 10 ** k)

export function parseDecimal(text: string): Decimal {
  const negative = text.charCodeAt(0) === 45 // '-'
  const unsigned = negative ? text.slice(1) : text
  const point = unsigned.indexOf('.')
  const digits = point === -1 ? unsigned : unsigned.slice(0, point) + unsigned.slice(point + 1)
  const units = digits.length <= EXACT_DIGITS ? Number(digits) : BigInt(digits)
  return { units: negative ? -units : units, scale: point === -1 ? 0 : unsigned.length - point - 1 }
}

/** The units of `value` at a scale no smaller than its own. */
function rescale(value: Decimal, scale: number): number | bigint {
  const shift = scale - value.scale
  if (shift === 0) return value.units
  if (typeof value.units === 'number' && shift < POWERS.length) {
    const units = value.units * POWERS[shift]
    // Both factors are exact, so a product within the safe range is exact too.
    if (Number.isSafeInteger(units)) return units
  }
  return BigInt(value.units) * 10n ** BigInt(shift)
}

/** -1, 0 or 1, as numbers (`1.50` equals `1.5`, `-0` equals `0`). */
export function compare(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale)
  const x = rescale(a, scale)
  const y = rescale(b, scale)
  // A number and a bigint compare by their mathematical values.
  return x < y ? -1 : x > y ? 1 : 0
}

export function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale)
  const x = rescale(a, scale)
  const y = rescale(b, scale)
  if (typeof x === 'number' && typeof y === 'number') {
    const sum = x + y
    if (Number.isSafeInteger(sum)) return { units: sum, scale }
  }
  return { units: BigInt(x) + BigInt(y), scale }
}

export function subtract(a: Decimal, b: Decimal): Decimal {
  return add(a, { units: -b.units, scale: b.scale })
}

/** The absolute value. */
export function magnitude(a: Decimal): Decimal {
  return a.units < 0 ? { units: -a.units, scale: a.scale } : a
}
