// Unit tier (no database): validators and serializers compiled on their first call behave as the
// compiled ones, compile once, and a schema that cannot compile is found by compileAll.
import t from 'tap'
import { CompileOnFirstUse } from '../../src/contract/compile-on-first-use.ts'
import { createAjv } from '../../src/contract/validation.ts'

const schema = { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string' } } }

/** An Ajv counting its compiles. */
function countingAjv() {
  const ajv = createAjv()
  const compile = ajv.compile.bind(ajv)
  const counter = { compiled: 0 }
  ajv.compile = ((...args: Parameters<typeof compile>) => {
    counter.compiled++
    return compile(...args)
  }) as typeof ajv.compile
  return { ajv, counter }
}

t.test('a validator compiles on its first call and answers as the compiled one, its errors included', async (t) => {
  const { ajv, counter } = countingAjv()
  const compiles = new CompileOnFirstUse(ajv)
  const validate = compiles.validator(schema)
  t.equal(counter.compiled, 0, 'nothing compiled before the first call')
  const direct = createAjv().compile(schema)
  for (const value of [{ id: 'a' }, {}, { id: 1, extra: true }, 'text', { id: 'b\u0000' }, { id: 'c' }]) {
    t.equal(validate(value), direct(value), JSON.stringify(value))
    t.same(validate.errors, direct.errors, `${JSON.stringify(value)}: the same errors`)
  }
  t.equal(counter.compiled, 1, 'compiled once')
  t.equal(compiles.compileAll(), 0, 'nothing left to compile')
})

t.test('a serializer compiles on its first call', async (t) => {
  const compiles = new CompileOnFirstUse(createAjv())
  let compiled = 0
  const serialize = compiles.serializer((): ((data: { id: string }) => string) => {
    compiled++
    return (data) => `<${data.id}>`
  })
  t.equal(compiled, 0)
  t.equal(serialize({ id: 'a' }), '<a>')
  t.equal(serialize({ id: 'b' }), '<b>')
  t.equal(compiled, 1)
})

t.test('compileAll compiles what no call has needed yet, once, and throws for a schema that cannot compile', async (t) => {
  const { ajv, counter } = countingAjv()
  const compiles = new CompileOnFirstUse(ajv)
  compiles.validator(schema)({ id: 'a' })
  compiles.validator(schema)
  compiles.serializer(() => JSON.stringify)
  t.equal(compiles.compileAll(), 2)
  t.equal(counter.compiled, 2)
  t.equal(compiles.compileAll(), 0)

  const broken = new CompileOnFirstUse(createAjv())
  const validate = broken.validator({ type: 'object', properties: { id: { $ref: '#/components/schemas/Missing' } } })
  t.throws(() => broken.compileAll(), /can't resolve reference/)
  t.throws(() => validate({ id: 'a' }), /can't resolve reference/, 'and on its call, each time')
  t.throws(() => broken.compileAll(), /can't resolve reference/, 'still to compile')
})
