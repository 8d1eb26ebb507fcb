// Prometheus metrics at GET /metrics (unauthenticated: no business data; not rate limited). Each app
// has its own registry (several apps run in one test process; prom-client's global default registry
// would collide). Other modules add their own metrics to `app.metrics.registry`, e.g. a Gauge with
// a `collect()` that reads its value on each scrape.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type pg from 'pg'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { OUTSIDE_CONTRACT, operationOf } from '../routing.ts'

export interface Metrics {
  registry: Registry
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics
  }
}

export const METRICS_PATH = '/metrics'

async function metricsPlugin(app: FastifyInstance, options: { pool: pg.Pool }): Promise<void> {
  const registry = new Registry()
  const requests = new Counter({
    name: 'api_requests_total',
    help: 'Requests answered, by operation (operationId; the route of pages outside the contract; "unmatched" for unknown paths) and business code of the envelope ("none" when the answer is no envelope).',
    labelNames: ['operation', 'code'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'api_request_duration_seconds',
    help: 'Time from receiving a request to having sent its answer, by operation.',
    labelNames: ['operation'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  const { pool } = options
  new Gauge({
    name: 'db_pool_connections',
    help: 'Connections the database pool holds (in use and idle).',
    registers: [registry],
    collect() {
      this.set(pool.totalCount)
    },
  })
  new Gauge({
    name: 'db_pool_idle_connections',
    help: 'Connections of the database pool not in use.',
    registers: [registry],
    collect() {
      this.set(pool.idleCount)
    },
  })
  new Gauge({
    name: 'db_pool_waiting_clients',
    help: 'Queries waiting for a connection of the database pool (all in use).',
    registers: [registry],
    collect() {
      this.set(pool.waitingCount)
    },
  })

  app.addHook('onResponse', (request, reply, done) => {
    const operation = operationOf(request)
    const code = request.envelopeCode
    requests.inc({ operation, code: code === undefined ? 'none' : String(code) })
    duration.observe({ operation }, reply.elapsedTime / 1000)
    done()
  })

  // One scrape at a time: scrapes arriving meanwhile share its text (the database reads behind
  // it are cached a second by their collectors, see cachedRead).
  let scraping: Promise<string> | undefined
  app.get(METRICS_PATH, OUTSIDE_CONTRACT, async (_request, reply) => {
    reply.type(registry.contentType)
    scraping ??= scrape(registry).finally(() => (scraping = undefined))
    return scraping
  })

  const metrics: Metrics = { registry }
  app.decorate('metrics', metrics)
}

/**
 * The registry's text, less the metrics whose collection failed (a database read while the database
 * is out of reach): a scraper keeps the others, the pool's and the requests' above all, exactly
 * when they matter, and a metric's absence says its read failed.
 */
async function scrape(registry: Registry): Promise<string> {
  const texts = await Promise.all(
    registry.getMetricsAsArray().map((metric) => registry.getSingleMetricAsString(metric.name).catch(() => undefined)),
  )
  return `${texts.filter((text) => text !== undefined).join('\n\n')}\n`
}

// The code of each request is the envelope's, which the request log reads.
export default fp(metricsPlugin, { name: 'metrics', fastify: '5.x', dependencies: ['request-log'] })
