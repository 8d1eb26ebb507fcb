// Unit tier: an envelope whose `data` is its payload or null is serialized by two serializers, one
// per shape, chosen by the answer (fast-json-stringify would validate the payload to choose).
import t from 'tap'
import { splitNullableData } from '../../src/http/shared-serializers.ts'

const envelope = (data: object) => ({
  type: 'object',
  allOf: [{ $ref: '#/components/schemas/Envelope' }],
  properties: { data },
})
const page = { type: 'object', properties: { list: { type: 'array' } } }

t.test('data: oneOf (or anyOf) its payload or null, annotations aside: split into both shapes', async (t) => {
  for (const data of [{ oneOf: [page, { type: 'null' }] }, { anyOf: [{ type: 'null' }, page], description: 'the page, or null' }]) {
    const split = splitNullableData(envelope(data))
    t.same(split, { withData: envelope(page), withoutData: envelope({ type: 'null' }) })
  }
})

t.test('anything else is left to fast-json-stringify as it is', async (t) => {
  t.equal(splitNullableData(envelope({ oneOf: [page, { type: 'string' }] })), undefined, 'no null option')
  t.equal(splitNullableData(envelope({ oneOf: [page, { type: 'null' }, { type: 'string' }] })), undefined, 'three options')
  t.equal(splitNullableData(envelope({ oneOf: [page, { type: 'null' }], type: 'object' })), undefined, 'a sibling keyword')
  t.equal(splitNullableData(envelope({ type: ['object', 'null'] })), undefined, 'no oneOf')
  t.equal(splitNullableData({ type: 'object' }), undefined, 'no data')
  t.equal(splitNullableData(undefined), undefined)
})
