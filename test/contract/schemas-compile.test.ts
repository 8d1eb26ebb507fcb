// Every schema the service compiles does compile. Request validators and response serializers are
// compiled on their first use (src/contract/compile-on-first-use.ts), so a schema that cannot compile
// would otherwise show only on the first request that needs it: here each edition compiles them all.
import t from 'tap'
import { listOperations, loadOpenApi } from '../../src/contract/openapi-document.ts'
import { startService } from '../helpers/service.ts'

const { document } = loadOpenApi()

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
