// Swagger UI at /docs, served offline, without a token and without rate limit;
// /openapi.json and /openapi.yaml stay the published document. (The page itself, driven in a real
// browser, is test/browser/swagger-ui.browser.ts: `npm run test:browser`.)
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { loadOpenApi, OPENAPI_PATH } from '../../src/contract/openapi-document.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t, { env: { RATE_LIMIT_MAX: '2' } })
const { document } = loadOpenApi()

t.test('/docs serves the UI page, its assets and the document, without a token', async (t) => {
  for (const path of ['/docs', '/docs/']) {
    const page = await fetch(`${service.url}${path}`)
    t.equal(page.status, 200, path)
    t.match(page.headers.get('content-type'), /^text\/html/)
    t.match(await page.text(), /swagger-ui-bundle\.js/)
  }
  for (const asset of ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css', 'swagger-initializer.js']) {
    t.equal((await fetch(`${service.url}/docs/static/${asset}`)).status, 200, asset)
  }
  const json = await fetch(`${service.url}/docs/json`)
  t.same(await json.json(), document, 'the UI renders the document as loaded')
})

t.test('the UI keeps the token of "Authorize" and calls the serving edition', async (t) => {
  const initializer = await (await fetch(`${service.url}/docs/static/swagger-initializer.js`)).text()
  t.match(initializer, /"persistAuthorization":\s*true/)
  t.same(
    document.servers?.map((server: { url: string }) => server.url),
    ['/'],
    'a relative server: "Try it out" goes to the origin serving the page',
  )
  t.same(document.components.securitySchemes?.bearerAuth, {
    ...document.components.securitySchemes?.bearerAuth,
    type: 'http',
    scheme: 'bearer',
  })
})

t.test('the published document keeps its own paths', async (t) => {
  t.same(await (await fetch(`${service.url}/openapi.json`)).json(), document)
  t.equal(await (await fetch(`${service.url}/openapi.yaml`)).text(), await readFile(OPENAPI_PATH, 'utf8'))
})

t.test('/docs is not rate limited (while the operations are)', async (t) => {
  const token = await service.login()
  const statuses = []
  for (let i = 0; i < 3; i++) statuses.push((await service.call('/prevent/riskUnit/list', {}, { token })).status)
  t.same(statuses, [200, 200, 429])
  for (let i = 0; i < 5; i++) {
    for (const path of ['/docs', '/docs/json', '/docs/static/swagger-ui.css'])
      t.equal((await fetch(`${service.url}${path}`)).status, 200, path)
  }
})

t.end()
