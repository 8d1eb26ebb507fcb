// Unit tier (no database): Ajv's errors described as the `msg` of a 1002, and a body that is not an
// object told apart (1000).
import t from 'tap'
import { createAjv, describeErrors, isNotAnObject } from '../../src/contract/validation.ts'

const ajv = createAjv()
const validate = ajv.compile({
  type: 'object',
  additionalProperties: false,
  required: ['id', 'list'],
  properties: {
    id: { type: 'string', pattern: '^[A-Z]+$' },
    kind: { enum: ['a', 'b', null] },
    at: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    list: { type: 'array', items: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } },
    maybe: { oneOf: [{ type: 'integer' }, { type: 'null' }] },
    either: { type: ['string', 'null'] },
    several: { type: ['string', 'integer', 'null'] },
  },
})

function message(value: unknown, prefix?: string): string {
  if (validate(value)) return 'valid'
  return describeErrors(validate.errors, prefix)
}

t.test('each error names its field and the rule broken', async (t) => {
  t.equal(message({ list: [] }), 'id: required')
  t.equal(message({ id: 'A', list: [], extra: 1 }), 'extra: unknown field')
  t.equal(message({ id: 'a', list: [] }), 'id: must match the pattern ^[A-Z]+$')
  t.equal(message({ id: 'A', list: [], kind: 'c' }), 'kind: must be one of a, b')
  t.equal(
    message({ id: 'A', list: [], at: '2026-11-21 10:00' }),
    'at: must be a valid ISO 8601 instant with offset (2026-11-21T13:02:35+08:00)',
  )
  for (const at of ['2026-11-21T10:00:00+08', '2026-11-21T10:00:00+0800', '2026-11-21 10:00:00+08:00']) {
    t.equal(
      message({ id: 'A', list: [], at }),
      'at: must be a valid ISO 8601 instant with offset (2026-11-21T13:02:35+08:00)',
      `${at}: not RFC 3339`,
    )
  }
  t.equal(message({ id: 'A', list: [], at: '2026-11-21t10:00:00.5z' }), 'valid', 'RFC 3339 allows t and z')
  t.equal(message({ id: 'A', list: [], at: '2026-12-31T23:59:60Z' }), 'valid', 'a leap second, at 23:59:60 UTC')
  t.not(message({ id: 'A', list: [], at: '2026-12-31T22:59:60Z' }), 'valid', 'a leap second at another time')
  t.equal(message({ id: 'A', list: [], day: '21.11.2026' }), 'day: must be a valid date (YYYY-MM-DD)')
  t.equal(message({ id: 'A', list: [{ n: 1 }, {}] }), 'list[1].n: required')
  t.equal(message({ id: 'A', list: [{ n: 'x' }] }, 'body'), 'body.list[0].n: must be integer')
})

t.test('a nullable value: the branch about the value, not "must be null"', async (t) => {
  t.equal(message({ id: 'A', list: [], maybe: 'x' }), 'maybe: must be integer')
})

t.test('a list of types reads as words', async (t) => {
  t.equal(message({ id: 'A', list: [], either: 1 }), 'either: must be string or null')
  t.equal(message({ id: 'A', list: [], several: true }), 'several: must be string, integer or null')
})

t.test('at most five messages, joined', async (t) => {
  const many = message({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 })
  t.equal(many.split('; ').length, 5)
})

t.test('a body that is not an object', async (t) => {
  validate([])
  t.ok(isNotAnObject(validate.errors))
  validate({ list: [] })
  t.notOk(isNotAnObject(validate.errors))
})
