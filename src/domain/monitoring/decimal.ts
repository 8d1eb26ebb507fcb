// Exact arithmetic on the document's decimal numerals (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`): readings
// and thresholds are compared as numbers, and a threshold minus a deadband must not pick up the
// binary rounding of floating point (1.6 - 0.1 is not 1.5 as a double).

/** A decimal as an integer count of 10^-scale units. */
export interface Decimal {
  units: bigint
  scale: number
}

export function parseDecimal(text: string): Decimal {
  const negative = text.startsWith('-')
  const [whole, fraction = ''] = (negative ? text.slice(1) : text).split('.')
  const units = BigInt(whole + fraction)
  return { units: negative ? -units : units, scale: fraction.length }
}

function rescale(value: Decimal, scale: number): bigint {
  return value.units * 10n ** BigInt(scale - value.scale)
}

/** -1, 0 or 1, as numbers (`1.50` equals `1.5`, `-0` equals `0`). */
export function compare(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale)
  const x = rescale(a, scale)
  const y = rescale(b, scale)
  return x === y ? 0 : x < y ? -1 : 1
}

export function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale)
  return { units: rescale(a, scale) + rescale(b, scale), scale }
}

export function subtract(a: Decimal, b: Decimal): Decimal {
  return add(a, { units: -b.units, scale: b.scale })
}

/** The absolute value. */
export function magnitude(a: Decimal): Decimal {
  return a.units < 0n ? { units: -a.units, scale: a.scale } : a
}
