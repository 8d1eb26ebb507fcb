// Unit tier (no database): what PostgreSQL can hold, the rule request validation applies to every
// string, integer, instant and date of the document (src/contract/storable.ts).
import t from 'tap'
import {
  dateProblem,
  findUnstorable,
  instantProblem,
  integerProblem,
  isStorableDate,
  instantSeconds,
  isStorableInstant,
  textProblem,
} from '../../src/contract/storable.ts'
import { english, message } from '../../src/messages/message.ts'

t.test('text, integers, instants, dates and values of any shape', async (t) => {
  t.equal(textProblem('ok \u4e2d \u{1f600}'), undefined)
  t.match(english(textProblem('a\u0000')!), /NUL/)
  t.match(english(textProblem('\udfff')!), /surrogate/)
  t.equal(integerProblem(2 ** 53 - 1), undefined)
  t.ok(integerProblem(2 ** 53))
  t.equal(instantProblem('2026-11-21T13:02:35+08:00'), undefined)
  t.equal(instantProblem('0001-01-02T00:00:00Z'), undefined)
  t.ok(instantProblem('0001-01-01T23:59:59Z'))
  t.ok(instantProblem('9999-12-31T00:00:00Z'))
  t.ok(instantProblem('2026-01-01T00:00:00+16:00'))
  t.equal(instantProblem('2026-01-01T00:00:00-15:59'), undefined)
  t.ok(dateProblem('0000-01-01'))
  t.equal(dateProblem('0001-01-01'), undefined)
  t.same(findUnstorable({ a: [1, 'x', { b: 'y\u0000' }] }), { path: '/a/2/b', problem: message('textNul') })
  t.same(findUnstorable([Infinity]), { path: '/0', problem: message('numberNotFinite') })
  let deep: unknown = 'z\ud800'
  for (let i = 0; i < 100_000; i++) deep = [deep]
  t.ok(findUnstorable(deep), 'any depth, no recursion')
})

t.test('the second an instant is kept as', async (t) => {
  t.equal(instantSeconds('2026-11-21T13:02:35+08:00'), Date.parse('2026-11-21T05:02:35Z') / 1000)
  t.equal(instantSeconds('2026-11-21t05:02:35.999z'), Date.parse('2026-11-21T05:02:35Z') / 1000, 'a fraction dropped; t and z')
  t.equal(
    instantSeconds('2026-12-31T23:59:60Z'),
    Date.parse('2027-01-01T00:00:00Z') / 1000,
    'a leap second is the next, as PostgreSQL keeps it',
  )
  t.equal(instantSeconds('0001-01-02T00:00:00Z'), Date.parse('0001-01-02T00:00:00Z') / 1000)
  for (const value of ['2026-11-21T13:02:35+08', '2026-11-21T13:02:35+0800', '2026-11-21 13:02:35Z', '2026-11-21T13:02:35']) {
    t.equal(instantSeconds(value), undefined, `${value}: not RFC 3339`)
  }
})

t.test('search values: storable instants and dates', async (t) => {
  t.ok(isStorableInstant('2026-11-21T13:02:35+08:00'))
  t.notOk(isStorableInstant('2026-11-21T13:02:35+20:00'), 'offset past 15:59')
  t.notOk(isStorableInstant('9999-12-31T20:00:00-08:00'), 'past the year 9999 in UTC')
  t.notOk(isStorableInstant('not an instant'))
  t.ok(isStorableDate('2026-11-21'))
  t.notOk(isStorableDate('0000-01-01'))
})
