// Unit tier (no database): the text an Idempotency-Key's body is hashed from.
import t from 'tap'
import { canonicalJson } from '../../src/operations/canonical-json.ts'

t.test('keys sorted at every depth; arrays keep their order', async (t) => {
  t.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}')
  t.equal(canonicalJson({ a: { c: null, d: [2, 1] }, b: 1 }), canonicalJson({ b: 1, a: { d: [2, 1], c: null } }))
  t.not(canonicalJson([1, 2]), canonicalJson([2, 1]))
  t.equal(canonicalJson('x"y'), '"x\\"y"')
  t.equal(canonicalJson(null), 'null')
  t.equal(canonicalJson({ é: 1, e: 2, Z: 3 }), '{"Z":3,"e":2,"é":1}', 'code-unit order')
})

t.test('any depth: no recursion, so a body nested as deep as its size allows is hashed', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [true, null, { d: 'x', c: 2 }] }), '{"a":[true,null,{"c":2,"d":"x"}],"b":1}')
  let deep: unknown = 1
  for (let i = 0; i < 100_000; i++) deep = [deep]
  t.equal(canonicalJson(deep).length, 200_001)
})
