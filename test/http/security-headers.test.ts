// Security headers: `X-Content-Type-Options: nosniff` on every answer, refusals included; a strict CSP with
// frame-ancestors on /docs and a CSP that loads nothing on API answers (helmet); CORS off
// unless CORS_ORIGINS names the origins allowed (@fastify/cors).
import t from 'tap'
import { loadConfig } from '../../src/config.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t, { env: { BODY_LIMIT: '2048' } })
const token = await service.login()
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

t.test('nosniff and a CSP on every answer: successes, refusals, pages, metrics', async (t) => {
  const answers: Record<string, Response> = {
    ok: await post('/prevent/riskUnit/list', '{}', { authorization: `Bearer ${token}` }),
    'not logged in (401)': await post('/prevent/riskUnit/list', '{}'),
    'bad token (401)': await post('/prevent/riskUnit/list', '{}', { authorization: 'Bearer x.y.z' }),
    'malformed (400)': await post('/system/login', '{"userName":'),
    'too large (413)': await post('/prevent/riskUnit/add', JSON.stringify({ id: 'x'.repeat(5000) }), { authorization: `Bearer ${token}` }),
    'no such path (404)': await post('/nowhere', '{}'),
    'wrong method (404)': await fetch(`${service.url}/prevent/riskUnit/list`),
    'health/live': await fetch(`${service.url}/health/live`),
    'health/ready': await fetch(`${service.url}/health/ready`),
    metrics: await fetch(`${service.url}/metrics`),
    'openapi.json': await fetch(`${service.url}/openapi.json`),
    'openapi.yaml': await fetch(`${service.url}/openapi.yaml`),
    docs: await fetch(`${service.url}/docs`),
    'docs asset': await fetch(`${service.url}/docs/static/swagger-ui-bundle.js`),
  }
  t.equal(answers['too large (413)'].status, 413, 'the 413 is really a 413')
  for (const [name, response] of Object.entries(answers)) {
    await response.arrayBuffer()
    t.equal(response.headers.get('x-content-type-options'), 'nosniff', name)
    t.ok(response.headers.get('content-security-policy'), `${name}: a CSP`)
    t.match(response.headers.get('content-security-policy'), /frame-ancestors 'none'/, `${name}: framed by no one`)
  }
  t.equal(answers.ok.headers.get('content-security-policy'), "default-src 'none';frame-ancestors 'none'", 'an API answer loads nothing')
})

t.test('/docs: a strict policy, scripts from this server only, never framed', async (t) => {
  for (const path of ['/docs', '/docs/', '/docs/static/swagger-initializer.js', '/docs/json']) {
    const response = await fetch(`${service.url}${path}`)
    await response.arrayBuffer()
    const policy = response.headers.get('content-security-policy') ?? ''
    const directives = new Map(policy.split(';').map((part) => [part.trim().split(' ')[0], part.trim().split(' ').slice(1)]))
    t.same(directives.get('default-src'), ["'none'"], path)
    t.same(directives.get('script-src'), ["'self'"], `${path}: no inline script, no eval`)
    t.same(directives.get('frame-ancestors'), ["'none'"], path)
    t.same(directives.get('object-src'), ["'none'"], path)
    t.notMatch(policy, /unsafe-inline|unsafe-eval|https:|\*/, `${path}: nothing loose`)
    t.equal(response.headers.get('x-frame-options'), 'SAMEORIGIN', `${path}: old browsers too`)
  }
})

t.test('CORS is off without CORS_ORIGINS: no allow headers, a preflight is not answered', async (t) => {
  const simple = await post('/system/login', '{}', { origin: 'https://evil.example' })
  await simple.arrayBuffer()
  t.equal(simple.headers.get('access-control-allow-origin'), null)
  const preflight = await fetch(`${service.url}/prevent/riskUnit/list`, {
    method: 'OPTIONS',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  })
  await preflight.arrayBuffer()
  t.equal(preflight.headers.get('access-control-allow-origin'), null)
  t.equal(preflight.status, 404)
})

t.test('with CORS_ORIGINS: those origins only', async (t) => {
  const cors = await startService(t, { env: { CORS_ORIGINS: 'https://app.example, http://localhost:8080' } })
  const preflight = (origin: string) =>
    fetch(`${cors.url}/prevent/riskUnit/list`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    })
  const allowed = await preflight('https://app.example')
  t.equal(allowed.status, 204)
  t.equal(allowed.headers.get('access-control-allow-origin'), 'https://app.example')
  t.match(allowed.headers.get('access-control-allow-headers'), /authorization/)
  t.equal((await preflight('http://localhost:8080')).headers.get('access-control-allow-origin'), 'http://localhost:8080')
  const refused = await preflight('https://evil.example')
  t.equal(refused.headers.get('access-control-allow-origin'), null, 'another origin gets no allow header')
  const call = await fetch(`${cors.url}/prevent/riskUnit/list`, {
    method: 'POST',
    headers: { origin: 'https://app.example', 'content-type': 'application/json', authorization: `Bearer ${await cors.login()}` },
    body: '{}',
  })
  t.equal(call.headers.get('access-control-allow-origin'), 'https://app.example')
  t.equal(((await call.json()) as { code: number }).code, 0)
})

t.test('CORS_ORIGINS must be a list of origins', async (t) => {
  const base = { DATABASE_URL: 'postgresql://localhost/x' }
  t.same(loadConfig({ ...base, CORS_ORIGINS: 'https://a.example,http://b.example:81' }).corsOrigins, [
    'https://a.example',
    'http://b.example:81',
  ])
  t.same(loadConfig(base).corsOrigins, [])
  for (const bad of ['*', 'https://a.example/path', 'a.example', 'https://a.example,,']) {
    t.throws(() => loadConfig({ ...base, CORS_ORIGINS: bad }), /CORS_ORIGINS/, bad)
  }
})

t.end()
