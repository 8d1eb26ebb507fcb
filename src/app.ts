// The composition root: builds the service from its parts and wires them, nothing more. Each HTTP
// concern is a named plugin under http/plugins/ that declares what it depends on (Fastify refuses
// to register one before its dependencies); the operations are generic over the resource registry.
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import pino from 'pino'
import Fastify, { type FastifyInstance, type FastifyRequest, LogController } from 'fastify'
import type { Redis } from 'ioredis'
import { AuthState } from './auth/auth-state.ts'
import { deploymentId, jwtSecret } from './auth/jwt-secret.ts'
import type { Config } from './config.ts'
import { CompileOnFirstUse } from './contract/compile-on-first-use.ts'
import { loadOpenApi, openApiYaml, type OpenApiDocument } from './contract/openapi-document.ts'
import { createAjv } from './contract/validation.ts'
import { answerClientError, answerFrameworkError } from './http/client-errors.ts'
import { operationHandlers } from './http/handlers.ts'
import { operationPolicies } from './http/operation-policy.ts'
import authentication, { tokenAudience } from './http/plugins/authentication.ts'
import docs from './http/plugins/docs.ts'
import envelope from './http/plugins/envelope.ts'
import health from './http/plugins/health.ts'
import jsonBody from './http/plugins/json-body.ts'
import metrics from './http/plugins/metrics.ts'
import operations from './http/plugins/operations.ts'
import rateLimits from './http/plugins/rate-limits.ts'
import requestLog from './http/plugins/request-log.ts'
import securityHeaders from './http/plugins/security-headers.ts'
import { sharedSerializers } from './http/shared-serializers.ts'
import { operationIdOf } from './http/routing.ts'
import { AttachmentOperations } from './operations/attachment-operations.ts'
import { historyRetention } from './operations/history-retention.ts'
import { Idempotency } from './operations/idempotency.ts'
import { ResourceOperations } from './operations/resource-operations.ts'
import { SystemOperations } from './operations/system-operations.ts'
import { eventParts } from './operations/event-wiring.ts'
import type { ParkPush } from './park/park-push.ts'
import { isPush } from './park/park-policy.ts'
import { parkPush } from './park/park-wiring.ts'
import { registerPushMetrics } from './park/push-metrics.ts'
import { ResourceRegistry } from './resources/resource-registry.ts'
import { AttachmentStore } from './store/attachment-store.ts'
import { Background } from './store/background.ts'
import type { Database } from './store/database.ts'
import { HistoryStore } from './store/history-store.ts'
import { type InstantFormatter, instantFormatter } from './store/instant-format.ts'
import { Housekeeping } from './store/housekeeping.ts'
import { migrate } from './store/migrate.ts'
import { ParkStore } from './store/park-store.ts'
import { ResourceStore } from './store/resource-store.ts'
import { SyncStore } from './store/sync-store.ts'

export interface AppOptions {
  config: Config
  database: Database
  /** Milliseconds since the epoch; tests inject their own to move time. */
  clock?: () => number
  logger?: boolean | Record<string, unknown>
}

export interface App {
  fastify: FastifyInstance
  /** The admin password generated on this first start (none configured), to be shown once. */
  generatedAdminPassword: string | undefined
  /** The park push (enterprise edition with a park configured). */
  push: ParkPush | undefined
  /** The scheduled pruning of expired keys, sessions and counters. */
  housekeeping: Housekeeping
  /** Compiles now the validators and serializers no request has needed yet (each compiles on first use); how many. */
  compileAll(): number
  close(): Promise<void>
}

function createFastify(config: Config, logger: AppOptions['logger'], compiles: CompileOnFirstUse): FastifyInstance {
  return Fastify({
    // Lines are written asynchronously: a write in flight gathers the lines logged meanwhile into
    // one system call (a synchronous write per request line cost 5–20 % of a write's throughput);
    // pino flushes what is left when the process exits.
    logger: logger ?? { level: config.logLevel, stream: pino.destination({ dest: 1, sync: false }) },
    bodyLimit: config.bodyLimit,
    // Slow or silent clients hold nothing for long.
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.connectionTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    // One line per request instead, written by the request-log plugin.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    // Refusals before routing answered as the envelope too.
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    // Request ids for the log lines, unique across instances; never trust a caller's.
    genReqId: () => randomUUID(),
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers(compiles) } },
    // fast-json-stringify's own Ajv (for the envelopes' oneOf) logged "strict mode: missing type
    // object" on stderr for schemas it merges itself: not ours to fix, and harmless.
    serializerOpts: { ajv: { strictTypes: false } },
  })
}

/** The HTTP concerns every request walks through before its operation, in their order. */
async function registerHttp(
  app: FastifyInstance,
  options: {
    config: Config
    database: Database
    policies: ReturnType<typeof operationPolicies>
    authState: AuthState
    document: ReturnType<typeof loadOpenApi>['document']
    clock: AppOptions['clock']
  },
): Promise<void> {
  const { config, database, policies } = options
  await app.register(envelope)
  // First of the hooks: its headers are on every answer, refusals included.
  await app.register(securityHeaders, { corsOrigins: config.corsOrigins })
  await app.register(jsonBody, { policies })
  await app.register(authentication, {
    policies,
    edition: config.edition,
    prisma: database.prisma,
    state: options.authState,
    secret: await jwtSecret(config.jwtSecret, database.prisma),
    audience: tokenAudience(config.edition, config.companyCode),
    clock: options.clock,
  })
  await app.register(requestLog)
  await app.register(docs, { document: options.document, yaml: openApiYaml })
  await app.register(rateLimits, {
    max: config.rateLimitMax,
    loginMax: config.rateLimitLoginMax,
    windowMs: config.rateLimitWindowMs,
    pool: database.pool,
    redis: await rateLimitRedis(app, config),
    namespace: `safety-platform:${await deploymentId(database.prisma)}:`,
    unlimited: config.edition === 'park' ? (request) => parkPushRequest(policies, request) : undefined,
  })
}

/** A push the park takes (park/park-policy.ts), by its operation and caller. */
function parkPushRequest(policies: ReturnType<typeof operationPolicies>, request: FastifyRequest): boolean {
  const role = request.caller?.role
  const policy = policies.get(operationIdOf(request) ?? '')
  return role !== undefined && isPush({ action: policy?.action, role, pushHeader: request.headers['x-sync-push'] })
}

/** Redis counting the rate limits, when configured: a slow or absent Redis never holds a request up. */
async function rateLimitRedis(app: FastifyInstance, config: Config): Promise<Redis | undefined> {
  if (!config.redisUrl) return undefined
  // Loaded only when configured: loading ioredis took some 80 ms of every start.
  const { Redis } = await import('ioredis')
  // Offline (unreachable, reconnecting), a count fails at once rather than queueing: the limiter
  // lets the request through (skipOnError) without waiting. Slow, it fails after commandTimeout.
  const redis = new Redis(config.redisUrl, {
    maxRetriesPerRequest: 1,
    commandTimeout: 500,
    connectTimeout: 2000,
    enableOfflineQueue: false,
  })
  redis.on('error', (error) => app.log.warn({ err: error }, 'redis'))
  app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())))
  // Connected before the first request is counted, when it can be within the connect timeout.
  await once(redis, 'ready', { signal: AbortSignal.timeout(2000) }).catch(() =>
    app.log.warn('redis not ready: rate limits not counted until it is'),
  )
  return redis
}

export async function buildApp(options: AppOptions): Promise<App> {
  const { config, database } = options
  const { pool, prisma } = database
  const { document } = loadOpenApi()
  await migrate(pool, config.edition)
  const registry = new ResourceRegistry(document)
  const format = instantFormatter(config.timeZone)
  const compiles = new CompileOnFirstUse(createAjv())
  const policies = operationPolicies(document)
  const authState = new AuthState(prisma, config.databaseUrl)
  const app = createFastify(config, options.logger, compiles)
  // The park push starts first, once the schema is there: a backlog an earlier run left starts
  // draining while the users load and the HTTP layer registers (database round trips, mostly),
  // not after them.
  const pushing = pushParts(app, { config, pool, registry, format })
  const pushStarted = inBackground(pushing.push?.start() ?? Promise.resolve())
  try {
    await authState.start()
    await registerHttp(app, { config, database, policies, authState, document, clock: options.clock })
  } catch (error) {
    await pushStarted.catch(() => undefined)
    await pushing.push?.stop()
    await pushing.background.stop()
    await authState.close()
    throw error
  }

  const parts = businessOperations(app, {
    config,
    pool,
    registry,
    format,
    compiles,
    document,
    pushing,
    deploymentSecret: () => jwtSecret(config.jwtSecret, prisma),
  })
  const { background, push, history, events } = parts
  const retention = historyRetention(config, history, background, app.log)
  const housekeeping = new Housekeeping({ background, pool, log: app.log })
  const close = async () => {
    // In-flight requests finish first, then the push in progress, then the database listeners.
    await app.close()
    await push?.stop()
    await retention?.stop()
    await events.stop()
    await housekeeping.stop()
    await background.stop()
    await authState.close()
  }
  // What waits mostly on the database or a worker thread starts now (the push already has), and
  // runs while the operations are registered on this thread (the largest part of a start):
  // pg-boss's schedules, the first admin's password hash. Awaited once the app is ready.
  const started = inBackground(
    Promise.all([pushStarted, retention?.start(), housekeeping.start(), app.auth.ensureAdmin(config.adminPassword), events.start()]),
  )
  try {
    await registerOperations(app, { config, pool, document, registry, compiles, policies, clock: options.clock, parts })
    await app.ready()
    const [, , , generatedAdminPassword] = await started
    return { fastify: app, generatedAdminPassword, push, housekeeping, compileAll: () => compiles.compileAll(), close }
  } catch (error) {
    // What was started is stopped before the failure is reported.
    await started.catch(() => undefined)
    await close().catch(() => undefined)
    throw error
  }
}

/** The operations (the handlers over the business parts), then the probes: health, metrics. */
async function registerOperations(
  app: FastifyInstance,
  options: {
    config: Config
    pool: Database['pool']
    document: OpenApiDocument
    registry: ResourceRegistry
    compiles: CompileOnFirstUse
    policies: ReturnType<typeof operationPolicies>
    clock: AppOptions['clock']
    parts: ReturnType<typeof businessOperations>
  },
): Promise<void> {
  const { config, pool, document, registry, compiles, policies, clock } = options
  const { resources, attachments, system, wakePush, push, sync, events } = options.parts
  const idempotency = new Idempotency({ pool, ttlHours: config.idempotencyTtlHours })
  const handlers = operationHandlers({
    document,
    registry,
    resources,
    attachments,
    system,
    idempotency,
    edition: config.edition,
    wakePush,
    events,
  })
  await app.register(operations, {
    document,
    compiles,
    handlers,
    policies,
    bodyLimit: config.bodyLimit,
    attachmentBodyLimit: attachmentBodyLimit(config),
  })
  await app.register(health, { pool, push, edition: config.edition, clock })
  await app.register(metrics, { pool })
  registerPushMetrics(app.metrics.registry, { sync, resources: registry, push, clock })
}

/** A promise awaited later: its failure is reported where it is awaited, not as an unhandled rejection meanwhile. */
function inBackground<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined)
  return promise
}

/** The process's background jobs and the park push (when configured), with the stores the push reads. */
function pushParts(
  app: FastifyInstance,
  options: { config: Config; pool: Database['pool']; registry: ResourceRegistry; format: InstantFormatter },
) {
  const { config, pool, registry, format } = options
  const sync = new SyncStore({ pool, registry })
  // One pg-boss for the process: the push's retries and schedules, housekeeping, history retention.
  const background = new Background({ databaseUrl: config.databaseUrl, log: app.log, superviseSeconds: config.push.superviseSeconds })
  const parkStore = new ParkStore({ pool, registry })
  const attachmentStore = new AttachmentStore({ pool, companyCode: config.companyCode, format })
  const push = parkPush(config, pool, sync, attachmentStore, parkStore, registry, background, app.log)
  return { sync, background, parkStore, attachmentStore, push }
}

/** The stores and operations behind the handlers, over the push's parts. */
function businessOperations(
  app: FastifyInstance,
  options: {
    config: Config
    pool: Database['pool']
    registry: ResourceRegistry
    format: InstantFormatter
    compiles: CompileOnFirstUse
    document: OpenApiDocument
    pushing: ReturnType<typeof pushParts>
    deploymentSecret: () => Promise<string>
  },
) {
  const { config, pool, registry, format, compiles, document } = options
  const { sync, background, parkStore, attachmentStore, push } = options.pushing
  const store = new ResourceStore({
    pool,
    registry,
    companyCode: config.companyCode,
    format,
    countsByEnterprise: config.edition === 'park',
  })
  const events = eventParts({ config, pool, registry, format, background, log: app.log, deploymentSecret: options.deploymentSecret })
  const wakePush = () => {
    push?.wake()
    events.wake()
  }
  const history = new HistoryStore({ pool, format, retentionDays: config.historyRetentionDays, park: config.edition === 'park' })
  const resources = new ResourceOperations({
    store,
    history,
    compiles,
    document,
    registry,
    log: app.log,
    park: config.edition === 'park' ? parkStore : undefined,
  })
  const attachments = new AttachmentOperations({ store: attachmentStore, maxBytes: config.attachmentMaxBytes })
  const system = new SystemOperations({
    auth: app.auth,
    sync,
    registry,
    format,
    retryPush: () => push?.retryNow(),
    edition: config.edition,
    park: parkStore,
    reconciler: push?.reconciler,
    failedRequeueRounds: config.push.failedRequeueRounds,
  })
  return { background, push, wakePush, sync, history, resources, attachments, system, events }
}

/** attachment/add carries a file of up to ATTACHMENT_MAX_BYTES as base64 (4/3 of it) beside its other fields. */
function attachmentBodyLimit(config: Config): number {
  return Math.ceil(config.attachmentMaxBytes / 3) * 4 + 64 * 1024
}
