// Unit tier (no database): the decimal arithmetic evaluation compares readings and thresholds with
// is exact for every numeral the document allows, short ones (held as numbers) and long ones (past
// a double's exact integers) alike, and mixed.
import fc from 'fast-check'
import t from 'tap'
import { add, compare, type Decimal, magnitude, parseDecimal, subtract } from '../../src/domain/monitoring/decimal.ts'

/** A numeral of the document's grammar, up to its 32 characters. */
const numeral = fc
  .tuple(fc.boolean(), fc.stringMatching(/^(0|[1-9][0-9]{0,17})$/), fc.option(fc.stringMatching(/^[0-9]{1,12}$/), { nil: undefined }))
  .map(([negative, whole, fraction]) => `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}`)

/** The exact value as a fraction over 10^24 (every numeral here has at most 12 decimals). */
const SCALE = 24
function exact(text: string): bigint {
  const negative = text.startsWith('-')
  const [whole, fraction = ''] = (negative ? text.slice(1) : text).split('.')
  const units = BigInt(whole + fraction.padEnd(SCALE, '0'))
  return negative ? -units : units
}
const exactOf = (value: Decimal): bigint => BigInt(value.units) * 10n ** BigInt(SCALE - value.scale)
const sign = (value: bigint): number => (value === 0n ? 0 : value < 0n ? -1 : 1)

t.test('comparison is that of the exact values', async () => {
  fc.assert(
    fc.property(numeral, numeral, (a, b) => compare(parseDecimal(a), parseDecimal(b)) === sign(exact(a) - exact(b))),
    { numRuns: 2000 },
  )
})

t.test('sums, differences and magnitudes are exact', async () => {
  fc.assert(
    fc.property(numeral, numeral, (a, b) => {
      const [x, y] = [parseDecimal(a), parseDecimal(b)]
      return (
        exactOf(add(x, y)) === exact(a) + exact(b) &&
        exactOf(subtract(x, y)) === exact(a) - exact(b) &&
        exactOf(magnitude(x)) === (exact(a) < 0n ? -exact(a) : exact(a))
      )
    }),
    { numRuns: 2000 },
  )
})

t.test('equal values of other scales or signs of zero compare equal', async (t) => {
  t.equal(compare(parseDecimal('1.50'), parseDecimal('1.5')), 0)
  t.equal(compare(parseDecimal('-0'), parseDecimal('0.000')), 0)
  t.equal(compare(parseDecimal('1.6'), add(parseDecimal('1.5'), parseDecimal('0.1'))), 0)
  t.equal(compare(parseDecimal('9007199254740993'), parseDecimal('9007199254740992')), 1)
  t.equal(compare(parseDecimal('12345678901234567890.5'), parseDecimal('12345678901234567890.4999999')), 1)
})
