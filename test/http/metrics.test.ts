// GET /metrics is Prometheus text, unauthenticated and not rate limited: requests by
// operationId and business code, latency by operationId, the database pool's use.

import pg from 'pg'
import { Gauge } from 'prom-client'
import t from 'tap'
import { eventually } from '../helpers/eventually.ts'
import { record } from '../helpers/fixtures.ts'
import { type Exposition, parsePrometheusText } from '../helpers/prometheus-text.ts'
import { adminDatabaseUrl, startService, type TestService } from '../helpers/service.ts'

const service = await startService(t)

async function scrape(target: TestService = service): Promise<Exposition> {
  const response = await fetch(`${target.url}/metrics`)
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`)
  return parsePrometheusText(await response.text())
}

const requests = (metrics: Exposition, operation: string, code: string) => metrics.value('api_requests_total', { operation, code }) ?? 0

t.test('/metrics answers Prometheus text without a token', async (t) => {
  const response = await fetch(`${service.url}/metrics`)
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4; charset=utf-8$/)
  const metrics = parsePrometheusText(await response.text())
  t.equal(metrics.types.get('api_requests_total'), 'counter')
  t.equal(metrics.types.get('api_request_duration_seconds'), 'histogram')
  for (const gauge of ['db_pool_connections', 'db_pool_idle_connections', 'db_pool_waiting_clients'])
    t.equal(metrics.types.get(gauge), 'gauge')
})

t.test('requests are counted by operationId and the business code of the answer', async (t) => {
  const before = await scrape()
  const token = await service.login()
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-M1'), { token })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-M2'), { token })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-M1'), { token })).body.code, 1003)
  t.equal((await service.call('/prevent/riskUnit/add', { id: 'RU-M3' }, { token })).body.code, 1002)
  t.equal((await service.call('/prevent/riskUnit/list', {})).status, 401)
  t.equal((await service.call('/prevent/nothing/list', {}, { token })).status, 404)
  const after = await scrape()

  const delta = (operation: string, code: string) => requests(after, operation, code) - requests(before, operation, code)
  t.equal(delta('systemLogin', '0'), 1)
  t.equal(delta('preventRiskUnitAdd', '0'), 2)
  t.equal(delta('preventRiskUnitAdd', '1003'), 1)
  t.equal(delta('preventRiskUnitAdd', '1002'), 1)
  t.equal(delta('preventRiskUnitList', '2001'), 1, 'a refusal before the handler is counted too')
  t.equal(delta('unmatched', '1008'), 1, 'unknown paths share one label')
  t.equal(delta('/metrics', 'none'), 1, 'the previous scrape, which is no envelope')
})

t.test('latency is a histogram by operationId, one observation per request', async (t) => {
  const metrics = await scrape()
  const added = ['0', '1002', '1003'].reduce((sum, code) => sum + requests(metrics, 'preventRiskUnitAdd', code), 0)
  t.equal(metrics.value('api_request_duration_seconds_count', { operation: 'preventRiskUnitAdd' }), added)
  t.equal(metrics.value('api_request_duration_seconds_bucket', { operation: 'preventRiskUnitAdd', le: '+Inf' }), added)
  t.ok(metrics.value('api_request_duration_seconds_sum', { operation: 'preventRiskUnitAdd' })! > 0)
})

t.test('the database pool is read on each scrape', async (t) => {
  const metrics = await scrape()
  const total = metrics.value('db_pool_connections')!
  t.equal(total, service.database.pool.totalCount)
  t.ok(total > 0, 'the requests above opened connections')
  t.ok(metrics.value('db_pool_idle_connections')! <= total)
  t.equal(metrics.value('db_pool_waiting_clients'), 0)
})

t.test('other modules add their metrics to the app registry, collected on scrape', async (t) => {
  let depth = 7
  new Gauge({
    name: 'test_queue_depth',
    help: 'a gauge another module adds',
    registers: [service.app.fastify.metrics.registry],
    collect() {
      this.set(depth)
    },
  })
  t.equal((await scrape()).value('test_queue_depth'), 7)
  depth = 9
  t.equal((await scrape()).value('test_queue_depth'), 9)
})

t.test('each app has its own registry: a second app in the process starts and counts alone', async (t) => {
  const other = await startService(t, { env: { RATE_LIMIT_MAX: '2' } })
  t.not(other.app.fastify.metrics.registry, service.app.fastify.metrics.registry)
  const metrics = await scrape(other)
  t.equal(requests(metrics, 'preventRiskUnitAdd', '0'), 0)
  t.equal(metrics.value('test_queue_depth'), undefined)
})

t.test('/metrics is not rate limited (while the operations are)', async (t) => {
  const limited = await startService(t, { env: { RATE_LIMIT_MAX: '2' } })
  const token = await limited.login()
  const statuses = []
  for (let i = 0; i < 3; i++) statuses.push((await limited.call('/prevent/riskUnit/list', {}, { token })).status)
  t.same(statuses, [200, 200, 429])
  for (let i = 0; i < 5; i++) t.equal((await fetch(`${limited.url}/metrics`)).status, 200)
  t.equal(requests(await scrape(limited), 'preventRiskUnitList', '1009'), 1)
})

t.test('the database closed to connections: /metrics still answers, without the metrics read from it', async (t) => {
  const closed = await startService(t)
  const databaseName = new URL(closed.databaseUrl).pathname.slice(1)
  const admin = new pg.Client({ connectionString: adminDatabaseUrl() })
  await admin.connect()
  t.teardown(() => admin.end())
  await admin.query(`ALTER DATABASE "${databaseName}" ALLOW_CONNECTIONS false`)
  try {
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [databaseName])
    const metrics = await scrape(closed)
    t.equal(metrics.types.get('api_requests_total'), 'counter')
    t.equal(metrics.types.get('db_pool_connections'), 'gauge')
    t.equal(metrics.types.get('sync_records'), undefined, 'the records by sync state, which it reads, are left out')
  } finally {
    await admin.query(`ALTER DATABASE "${databaseName}" ALLOW_CONNECTIONS true`)
  }
  await eventually(async () => (await scrape(closed)).types.get('sync_records') === 'gauge', {
    what: 'the records by sync state back once the database is',
  })
  t.pass('they are back with the database')
})

t.end()
