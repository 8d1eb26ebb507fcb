// Everything bounded: per-operation body limits (413/1010 before parsing), request, header
// and keep-alive timeouts, a statement and a connection timeout on the database (503/4001 in
// bounded time), and /metrics and /health/ready that cannot be used to load the database.
import { AsyncLocalStorage } from 'node:async_hooks'
import net from 'node:net'
import t from 'tap'
import { type App, buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { loadOpenApi, listOperations } from '../../src/contract/openapi-document.ts'
import { BODY_LIMITS, effectiveBodyLimit, operationPolicies } from '../../src/http/operation-policy.ts'
import { cachedRead, PAGE_READ_TTL_MS } from '../../src/store/cached-read.ts'
import { openDatabase } from '../../src/store/database.ts'
import { eventually, whenEmitted } from '../helpers/eventually.ts'
import { record } from '../helpers/fixtures.ts'
import { ADMIN_PASSWORD, freshDatabase, startService } from '../helpers/service.ts'

// The service's clock: real time until a test freezes it (the page reads' cache is kept by it).
let frozenAt: number | undefined
const service = await startService(t, {
  env: { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000', KEEP_ALIVE_TIMEOUT_MS: '500' },
  clock: () => frozenAt ?? Date.now(),
})
const token = await service.login()
const refreshToken = (await service.call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })).body.data.refresh_token
const { document } = loadOpenApi()
const policies = operationPolicies(document)

const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body,
  })
  return { status: response.status, body: (await response.json()) as { code: number } }
}

t.test('every operation has a body limit of its kind, as the document tables them', async (t) => {
  for (const { operationId, path, spec } of listOperations(document)) {
    const limit = effectiveBodyLimit(policies.get(operationId)!, 32 * 1024 * 1024, 7 * 1024 * 1024)
    const declared = spec['x-body-limit']
    const kind = declared === 'batch' || declared === 'attachment' ? declared : undefined
    const expected =
      (typeof declared === 'number' ? declared : undefined) ??
      (spec['x-action'] === 'addBatch' || kind === 'batch'
        ? 32 * 1024 * 1024
        : spec['x-action'] === 'attachmentAdd' || kind === 'attachment'
          ? 7 * 1024 * 1024
          : operationId === 'systemSyncRetry'
            ? BODY_LIMITS.syncRetry
            : path.startsWith('/system/')
              ? BODY_LIMITS.system
              : BODY_LIMITS.oneRecord)
    t.equal(limit, expected, operationId)
  }
  t.equal(effectiveBodyLimit(policies.get('systemLogin')!, 32 * 1024 * 1024, 7 * 1024 * 1024), 4096, 'login: 4 KiB')
  t.equal(effectiveBodyLimit(policies.get('preventRiskUnitAddBatch')!, 1_000_000, 7 * 1024 * 1024), 1_000_000, 'batches: BODY_LIMIT')
  t.equal(effectiveBodyLimit(policies.get('preventRiskUnitAdd')!, 100_000, 7 * 1024 * 1024), 100_000, 'BODY_LIMIT caps the others')
  t.match(document.info.description, /\| `add-batch`, `\/system\/push\/records` \| 32 MiB/, 'the table is in the document')
})

t.test('a body over its operation limit is 413/1010 before it is parsed (not even JSON)', async (t) => {
  const junk = (bytes: number) => '{' + 'x'.repeat(bytes - 1)
  const cases: [string, number, Record<string, string>?][] = [
    ['/system/login', 4097, { authorization: '' }],
    ['/system/logout', 4097],
    ['/system/refresh', 4097, { authorization: `Bearer ${refreshToken}` }],
    ['/system/user/add', 4097],
    ['/system/sync/status', 4097],
    ['/system/sync/retry', 65537],
    ['/prevent/riskUnit/add', 256 * 1024 + 1],
    ['/prevent/riskUnit/search', 256 * 1024 + 1],
  ]
  for (const [path, bytes, headers] of cases) {
    const reply = await post(path, junk(bytes), headers)
    t.same([reply.status, reply.body.code], [413, 1010], `${path}: ${bytes} bytes`)
  }
  const justUnder = await post('/system/login', JSON.stringify({ userName: 'admin', password: 'p'.repeat(4000) }), { authorization: '' })
  t.not(justUnder.status, 413, 'login under 4 KiB is read (and refused for its schema)')
  const batch = Array.from({ length: 500 }, (_, i) => record('riskUnit', `RU-LIMIT-${i}`, { riskUnitName: 'n'.repeat(1000) }))
  const large = await post('/prevent/riskUnit/add-batch', JSON.stringify({ list: batch }))
  t.ok(JSON.stringify({ list: batch }).length > 256 * 1024, 'the batch is larger than one record may be')
  t.same([large.status, large.body.code], [200, 0], 'a batch keeps the large limit')
})

/** A raw connection: sends `text`, then reports what the server answered and when it closed. */
function rawConnection(text: string): Promise<{ answer: string; closedAfterMs: number }> {
  const { port } = new URL(service.url)
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text))
    let answer = ''
    socket.on('data', (chunk) => (answer += chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }))
  })
}

t.test('a client that never finishes its headers is cut off (HEADERS_TIMEOUT_MS)', async (t) => {
  const { answer, closedAfterMs } = await rawConnection('POST /system/login HTTP/1.1\r\nHost: x\r\n')
  t.match(answer, /^HTTP\/1\.1 408/)
  t.ok(closedAfterMs < 9000, `closed after ${closedAfterMs} ms, before the default of 10 s`)
})

t.test('a client that never finishes its body is cut off (REQUEST_TIMEOUT_MS)', async (t) => {
  const { answer, closedAfterMs } = await rawConnection(
    'POST /system/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"userName":',
  )
  t.match(answer, /^HTTP\/1\.1 408/)
  t.ok(closedAfterMs < 30_000, `closed after ${closedAfterMs} ms, well before the default of 60 s`)
})

t.test('an idle keep-alive connection is closed (KEEP_ALIVE_TIMEOUT_MS)', async (t) => {
  const { answer, closedAfterMs } = await rawConnection('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n')
  t.match(answer, /^HTTP\/1\.1 200/)
  t.ok(closedAfterMs < 4500, `closed after ${closedAfterMs} ms, before the default of 5 s`)
})

/** A proxy in front of PostgreSQL that can go silent: it keeps connections open and forwards nothing. */
async function silentProxy(databaseUrl: string) {
  const target = new URL(databaseUrl)
  let silent = false
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    sockets.add(client)
    client.on('close', () => sockets.delete(client))
    client.on('error', () => {})
    if (silent) return // accepted, never answered
    const upstream = net.connect(Number(target.port || 5432), target.hostname)
    sockets.add(upstream)
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.destroy())
    client.on('data', (chunk) => silent || upstream.write(chunk))
    upstream.on('data', (chunk) => silent || client.write(chunk))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = new URL(databaseUrl)
  url.hostname = '127.0.0.1'
  url.port = String((server.address() as net.AddressInfo).port)
  return {
    url: url.toString(),
    silence: () => (silent = true),
    speak: () => (silent = false),
    dropAll: () => sockets.forEach((socket) => socket.destroy()),
    close: () => new Promise<void>((resolve) => (sockets.forEach((socket) => socket.destroy()), server.close(() => resolve()))),
  }
}

async function appOn(
  t: { teardown(fn: () => unknown): void },
  databaseUrl: string,
  options: { statementTimeoutMs: number; connectTimeoutMs: number },
) {
  const config = loadConfig({ DATABASE_URL: databaseUrl, ADMIN_PASSWORD, LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '100000' })
  const database = openDatabase(databaseUrl, { max: 4, ...options })
  // The connections the pool made and still holds: a connection that failed while being made
  // leaves the pool with no event (its `remove` is for connections that were made).
  const held = new Set<unknown>()
  database.pool.on('connect', (client) => held.add(client))
  database.pool.on('remove', (client) => held.delete(client))
  const app: App = await buildApp({ config, database, logger: false })
  const url = await app.fastify.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(async () => {
    await app.close()
    await database.close()
  })
  const call = async (path: string, body: unknown, bearer?: string) => {
    const started = Date.now()
    const response = await fetch(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(bearer && { authorization: `Bearer ${bearer}` }) },
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as { code: number; msg: string }, ms: Date.now() - started }
  }
  const login = async () => (await call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })).body as any
  return { app, database, held, url, call, token: (await login()).data.token as string }
}

t.test('a statement running past DB_STATEMENT_TIMEOUT_MS is cancelled: 503/4001, promptly', async (t) => {
  const databaseUrl = await freshDatabase(t)
  const { call, token, database } = await appOn(t, databaseUrl, { statementTimeoutMs: 500, connectTimeoutMs: 1000 })
  const locker = await database.pool.connect()
  t.teardown(() => locker.release())
  await locker.query('BEGIN')
  await locker.query('SET LOCAL statement_timeout = 0')
  await locker.query('LOCK TABLE risk_unit IN ACCESS EXCLUSIVE MODE')
  const reply = await call('/prevent/riskUnit/list', {}, token)
  await locker.query('ROLLBACK')
  t.same([reply.status, reply.body.code], [503, 4001])
  t.ok(reply.ms < 10_000, `answered after ${reply.ms} ms, well before the default of 15 s`)
  t.equal((await call('/prevent/riskUnit/list', {}, token)).body.code, 0, 'answers again once the lock is gone')
})

t.test('a database gone silent, or not answering new connections: 503/4001 within bounded time', async (t) => {
  const databaseUrl = await freshDatabase(t)
  const proxy = await silentProxy(databaseUrl)
  t.teardown(() => proxy.close())
  const { call, token, database, held } = await appOn(t, proxy.url, { statementTimeoutMs: 500, connectTimeoutMs: 500 })
  t.equal((await call('/prevent/riskUnit/list', {}, token)).body.code, 0)

  proxy.silence()
  const hung = await call('/prevent/riskUnit/list', {}, token)
  t.same([hung.status, hung.body.code], [503, 4001], 'mid-connection silence')
  t.ok(hung.ms < 10_000, `answered after ${hung.ms} ms, well before the default of 15 s`)

  proxy.dropAll()
  await whenEmitted(database.pool, 'remove', () => held.size === 0, { what: 'the pool to see its connections dropped' })
  const unreachable = await call('/prevent/riskUnit/add', record('riskUnit', 'RU-NEVER'), token)
  t.same([unreachable.status, unreachable.body.code], [503, 4001], 'new connections never answered')
  t.ok(unreachable.ms < 4500, `answered after ${unreachable.ms} ms, before the default of 5 s`)

  proxy.speak()
  proxy.dropAll()
  // The pool may still hand out a connection that died with the drop: the next ones are new.
  await eventually(async () => (await call('/prevent/riskUnit/list', {}, token)).body.code === 0, {
    everyMs: 0,
    what: 'an answer once the database speaks',
  })
  t.pass('answers again once the database speaks')
})

t.test('/health/ready and /metrics: one database read at a time, kept a second', async (t) => {
  // Only the queries made for the pages' requests count: the service's background work (users
  // reloaded, partitions made, webhooks repaired) queries the same pool on timers of its own.
  const forPages = new AsyncLocalStorage<true>()
  const server = service.app.fastify.server
  const enter = () => forPages.enterWith(true)
  server.prependListener('request', enter)
  t.teardown(() => void server.off('request', enter))
  let queries = 0
  const pool = service.database.pool
  const query = pool.query.bind(pool)
  pool.query = ((...args: Parameters<typeof pool.query>) => (forPages.getStore() && queries++, query(...args))) as typeof pool.query
  t.teardown(() => void (pool.query = query as typeof pool.query))
  /** The queries `calls` concurrent calls of `path` made; each answered 200. */
  const queriesOf = async (path: string, calls: number) => {
    queries = 0
    const answers = await Promise.all(Array.from({ length: calls }, () => fetch(`${service.url}${path}`).then((r) => r.status)))
    t.same(new Set(answers), new Set([200]), `${path}: ${calls} calls answered`)
    return queries
  }
  // Time stands still from a point past what earlier tests kept, and moves only by a second.
  let now = Date.now() + PAGE_READ_TTL_MS
  t.teardown(() => void (frozenAt = undefined))
  for (const path of ['/health/ready', '/metrics']) {
    frozenAt = now
    const one = await queriesOf(path, 1)
    t.ok(one > 0, `${path}: a call reads the database`)
    frozenAt = now += PAGE_READ_TTL_MS
    t.equal(await queriesOf(path, 50), one, `${path}: 50 concurrent calls read it as one call does`)
    let more = 0
    for (let i = 0; i < 20; i++) more += await queriesOf(path, 1)
    t.equal(more, 0, `${path}: 20 more within the second read nothing`)
    frozenAt = now += PAGE_READ_TTL_MS
    t.equal(await queriesOf(path, 1), one, `${path}: a second later, a call reads the database again`)
    now += PAGE_READ_TTL_MS
  }
})

t.test('cachedRead: shared while in flight, kept for its ttl, failures not kept', async (t) => {
  let now = 0
  let reads = 0
  let fail = false
  const read = cachedRead(
    async () => {
      reads++
      if (fail) throw new Error('down')
      return reads
    },
    1000,
    () => now,
  )
  t.same(await Promise.all([read(), read(), read()]), [1, 1, 1])
  now = 999
  t.equal(await read(), 1)
  now = 1000
  t.equal(await read(), 2)
  now = 5000
  fail = true
  await t.rejects(read())
  fail = false
  t.equal(await read(), 4, 'a failure is retried at once')
})

t.test('timeouts are validated', async (t) => {
  const base = { DATABASE_URL: 'postgresql://localhost/x' }
  t.throws(() => loadConfig({ ...base, HEADERS_TIMEOUT_MS: '70000' }), /HEADERS_TIMEOUT_MS/)
  t.throws(() => loadConfig({ ...base, DB_CONNECT_TIMEOUT_MS: '0' }), /DB_CONNECT_TIMEOUT_MS/)
  t.match(loadConfig(base), { requestTimeoutMs: 60000, headersTimeoutMs: 10000, dbStatementTimeoutMs: 15000, dbConnectTimeoutMs: 5000 })
})

t.end()
