// Every schema the service compiles does compile. Request validators and response serializers are
// compiled on their first use (src/contract/compile-on-first-use.ts), so a schema that cannot compile
// would otherwise show only on the first request that needs it: here each edition compiles them all.
// And every schema of the document is a valid JSON Schema 2020-12: the service's Ajv does not check
// that itself (src/contract/validation.ts), and an unknown keyword is ignored, not refused.
import t from 'tap'
import { listOperations, loadOpenApi } from '../../src/contract/openapi-document.ts'
import { createAjv } from '../../src/contract/validation.ts'
import { startService } from '../helpers/service.ts'

const { document } = loadOpenApi()

/** Every schema of the document, by where it is: each component schema, and each `schema` of a parameter or a body. */
function documentSchemas(value: unknown, at: string, found: [string, object][] = []): [string, object][] {
  if (!value || typeof value !== 'object') return found
  for (const [key, child] of Object.entries(value)) {
    const where = `${at}/${key}`
    if (child && typeof child === 'object' && (key === 'schema' || at === '#/components/schemas')) found.push([where, child])
    else documentSchemas(child, where, found)
  }
  return found
}

t.test('every schema of the document is a valid JSON Schema 2020-12', async (t) => {
  const ajv = createAjv()
  const schemas = documentSchemas(document, '#')
  t.ok(schemas.length > Object.keys(document.components.schemas).length, `${schemas.length} schemas`)
  const invalid = schemas.filter(([, schema]) => !ajv.validateSchema(schema)).map(([where]) => `${where}: ${ajv.errorsText()}`)
  t.same(invalid, [], 'none refused by the meta-schema')
  t.notOk(ajv.validateSchema({ type: 'object', properties: { name: { type: 'strin' } } }), 'as a misspelt type is')
})

for (const edition of ['enterprise', 'park']) {
  t.test(`${edition} edition: every request validator, response serializer and batch item validator compiles`, async (t) => {
    const service = await startService(t, { env: { EDITION: edition } })
    const compiled = service.app.compileAll()
    // Each operation has its request body's validator and its responses' serializers, at least.
    t.ok(compiled > 2 * listOperations(document).length, `${compiled} compiled`)
    t.equal(service.app.compileAll(), 0, 'each once')
    const login = await service.call('/system/login', { userName: 'admin', password: 'wrong' })
    t.equal(login.body.code, 2004, 'and they answer as before')
  })
}
