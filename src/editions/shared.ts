// The skeleton both editions are composed on (enterprise.ts, park.ts): the HTTP concerns every
// request walks through (each a named plugin under http/plugins/ that declares its dependencies),
// the stores and operations both editions serve, the background jobs, and the order in which all of
// it starts and stops. An edition gives its name (its migrations, its tokens' audience, the
// operations the document binds to it with `x-edition`) and composes its own parts over these.
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import pino from 'pino'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, LogController } from 'fastify'
import type { Redis } from 'ioredis'
import { AuthState } from '../auth/auth-state.ts'
import type { Role } from '../auth/auth-service.ts'
import { deploymentId, jwtSecret } from '../auth/jwt-secret.ts'
import type { Config } from '../config.ts'
import { CompileOnFirstUse } from '../contract/compile-on-first-use.ts'
import { loadOpenApi, openApiYaml, type OpenApiDocument } from '../contract/openapi-document.ts'
import { createAjv } from '../contract/validation.ts'
import { BusinessError, Code } from '../errors.ts'
import { answerClientError, answerFrameworkError } from '../http/client-errors.ts'
import { eventHandlers } from '../http/event-handlers.ts'
import { type Handler, resourceHandlers, systemHandlers, type WriteOptions } from '../http/handlers.ts'
import { type OperationPolicy, operationPolicies } from '../http/operation-policy.ts'
import authentication, { type Refusal, tokenAudience } from '../http/plugins/authentication.ts'
import docs from '../http/plugins/docs.ts'
import envelope from '../http/plugins/envelope.ts'
import health from '../http/plugins/health.ts'
import jsonBody from '../http/plugins/json-body.ts'
import metrics from '../http/plugins/metrics.ts'
import operations from '../http/plugins/operations.ts'
import rateLimits from '../http/plugins/rate-limits.ts'
import requestLog from '../http/plugins/request-log.ts'
import securityHeaders from '../http/plugins/security-headers.ts'
import { operationIdOf } from '../http/routing.ts'
import { sharedSerializers } from '../http/shared-serializers.ts'
import { AttachmentOperations } from '../operations/attachment-operations.ts'
import { withAlarms } from '../operations/alarm-operations.ts'
import { eventParts, type EventParts } from '../operations/event-wiring.ts'
import { historyRetention } from '../operations/history-retention.ts'
import { Idempotency } from '../operations/idempotency.ts'
import { ResourceOperations } from '../operations/resource-operations.ts'
import { type ReconcileRunner, SystemOperations } from '../operations/system-operations.ts'
import type { ParkPush } from '../park/park-push.ts'
import { registerPushMetrics } from '../park/push-metrics.ts'
import { ResourceRegistry } from '../resources/resource-registry.ts'
import { AttachmentStore } from '../store/attachment-store.ts'
import { Background } from '../store/background.ts'
import type { Database } from '../store/database.ts'
import { HistoryStore } from '../store/history-store.ts'
import { type InstantFormatter, instantFormatter } from '../store/instant-format.ts'
import { Housekeeping } from '../store/housekeeping.ts'
import { migrate, type MigrationEdition } from '../store/migrate.ts'
import { ResourceStore } from '../store/resource-store.ts'
import type { RecordScope } from '../store/record-scope.ts'
import { SyncStore } from '../store/sync-store.ts'
import { message } from '../messages/message.ts'

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

/** What both editions share, built before an edition composes its own parts over it. */
export interface SharedParts {
  config: Config
  pool: Database['pool']
  document: OpenApiDocument
  registry: ResourceRegistry
  format: InstantFormatter
  compiles: CompileOnFirstUse
  /** Milliseconds since the epoch (tests inject their own to move time). */
  clock: () => number
  /** What the document says of each operation: roles, x-action, x-edition, body. */
  policies: Map<string, OperationPolicy>
  log: FastifyBaseLogger
  /** One pg-boss for the process: the push's retries and schedules, housekeeping, history retention. */
  background: Background
  sync: SyncStore
  attachmentStore: AttachmentStore
  /** Events out: the feed, and the webhooks' deliveries; both editions emit them. */
  events: EventParts
}

/** A write, a request's or a timer's, wakes the push and the events' numbering (both coalesced, never awaited). */
export function wakeAfterWrite(push: { wake(): unknown } | undefined, events: { wake(): void }): void {
  void push?.wake()
  events.wake()
}

/** What an edition adds to the skeleton. */
export interface EditionParts {
  /** The push to the park, started before the HTTP layer registers (a backlog starts draining at once), stopped after it. */
  push?: ParkPush
  /** Reconciliation with the park (answered in /system/sync/status). */
  reconciler?: ReconcileRunner
  /** Refusals beyond the roles and the document's `x-edition`. */
  refuse?: Refusal
  /** Requests the rate limit does not count. */
  unlimited?: (request: FastifyRequest) => boolean
  /** Background work of the edition's own (schedules, upkeep): started with the skeleton's, stopped before pg-boss. */
  services?: { start(): Promise<void>; stop(): Promise<void> }[]
  /** The roles an admin may grant. */
  grantableRoles: ReadonlySet<Role>
  /** Whose records the tables hold: the enterprise's own, or many enterprises' as pushed, keyed by (companyCode, id). */
  records: RecordScope
  /** Every version arrives with its history entry, adds included. */
  addsHaveEntries: boolean
  /**
   * The handlers of the edition's own operation classes, beside those of the shared ones: an
   * operation class is constructed here and its handlers listed (http/park-handlers.ts is one).
   */
  handlers(context: HandlerContext): [string, Handler][]
}

/** What the skeleton's operations give an edition's own: writes (idempotency, the push's wake-up), history, attachments. */
export interface HandlerContext {
  writes: WriteOptions
  history: HistoryStore
  attachments: AttachmentOperations
}

export interface Edition {
  /** Its migrations, its tokens' audience, and the operations (`x-edition`) it serves. */
  name: MigrationEdition
  /** Composes the edition's parts over the shared ones (the schema migrated). */
  compose(shared: SharedParts): EditionParts
}

function sharedParts(
  options: Pick<SharedParts, 'config' | 'pool' | 'document' | 'compiles' | 'log' | 'clock'> & {
    /** The deployment's JWT secret: the webhooks' secrets are encrypted under a key derived from it. */
    deploymentSecret: () => Promise<string>
  },
): SharedParts {
  const { config, pool, document, log, clock, deploymentSecret } = options
  const registry = new ResourceRegistry(document)
  const format = instantFormatter(config.timeZone)
  const background = new Background({ databaseUrl: config.databaseUrl, log, superviseSeconds: config.push.superviseSeconds })
  return {
    config,
    pool,
    document,
    compiles: options.compiles,
    log,
    clock,
    registry,
    format,
    policies: operationPolicies(document),
    background,
    events: eventParts({ config, pool, registry: withAlarms(registry, document), format, background, log, deploymentSecret }),
    sync: new SyncStore({ pool, registry }),
    attachmentStore: new AttachmentStore({ pool, companyCode: config.companyCode, format }),
  }
}

/** Builds the service of one edition: the shared skeleton with the edition's parts. */
export async function buildEdition(options: AppOptions, edition: Edition): Promise<App> {
  const { config, database } = options
  const { pool, prisma } = database
  const { document } = loadOpenApi()
  await migrate(pool, edition.name)
  const compiles = new CompileOnFirstUse(createAjv())
  const app = createFastify(config, options.logger, compiles)
  const shared = sharedParts({
    config,
    pool,
    document,
    compiles,
    log: app.log,
    clock: options.clock ?? Date.now,
    deploymentSecret: () => jwtSecret(config.jwtSecret, prisma),
  })
  const { policies, background, events } = shared
  const authState = new AuthState(prisma, config.databaseUrl)
  const parts = edition.compose(shared)
  const { push } = parts
  const pushStarted = inBackground(push?.start() ?? Promise.resolve())
  try {
    await authState.start()
    await registerHttp(app, { config, database, policies, authState, document, clock: options.clock, edition: edition.name, parts })
  } catch (error) {
    await pushStarted.catch(() => undefined)
    await push?.stop()
    await background.stop()
    await authState.close()
    throw error
  }
  const { historyRetentionDays: retentionDays } = config
  const history = new HistoryStore({ pool, format: shared.format, retentionDays, addsHaveEntries: parts.addsHaveEntries })
  const housekeeping = new Housekeeping({ background, pool, log: app.log })
  // The background work beside the push, stopped in this order before pg-boss.
  const retention = historyRetention(config, history, background, app.log)
  const services = [...(retention ? [retention] : []), housekeeping, ...(parts.services ?? []), events]
  const close = async () => {
    // In-flight requests finish first, then the push in progress, then the database listeners.
    await app.close()
    await push?.stop()
    for (const service of services) await service.stop()
    await background.stop()
    await authState.close()
  }
  let started: Promise<[string | undefined, ...unknown[]]> | undefined
  try {
    await registerOperations(app, { shared, parts, history, edition: edition.name, clock: options.clock })
    // The background work (pg-boss's schedules, the first admin) starts once the operations are
    // registered: registering them holds this thread for the longest part of a start, and a query
    // waiting across it would see its database timeouts expire on the service's own busy time.
    started = inBackground(
      Promise.all([app.auth.ensureAdmin(config.adminPassword), pushStarted, ...services.map((service) => service.start())]),
    )
    await app.ready()
    const [generatedAdminPassword] = await started
    return { fastify: app, generatedAdminPassword, push, housekeeping, compileAll: () => compiles.compileAll(), close }
  } catch (error) {
    // What was started is stopped before the failure is reported.
    await started?.catch(() => undefined)
    await pushStarted.catch(() => undefined)
    await close().catch(() => undefined)
    throw error
  }
}

/** The operations (the handlers over the shared and the edition's parts), then the probes: health, metrics. */
async function registerOperations(
  app: FastifyInstance,
  options: { shared: SharedParts; parts: EditionParts; history: HistoryStore; edition: MigrationEdition; clock: AppOptions['clock'] },
): Promise<void> {
  const { config, pool, document, compiles, policies, sync, registry } = options.shared
  const { push } = options.parts
  const handlers = operationHandlers(app, options)
  await app.register(operations, {
    document,
    compiles,
    handlers,
    policies,
    bodyLimit: config.bodyLimit,
    attachmentBodyLimit: attachmentBodyLimit(config),
  })
  await app.register(health, { pool, push, schema: options.edition, clock: options.clock })
  await app.register(metrics, { pool })
  registerPushMetrics(app.metrics.registry, { sync, resources: registry, push, clock: options.clock })
}

/**
 * Every operation's handler: the shared operation classes', then the edition's own; an operation
 * the document binds to the other edition has one that never runs (authentication refuses it first).
 */
function operationHandlers(
  app: FastifyInstance,
  options: { shared: SharedParts; parts: EditionParts; history: HistoryStore; edition: string },
): Map<string, Handler> {
  const { config, pool, document, registry, format, compiles, sync, attachmentStore } = options.shared
  const { parts } = options
  const store = new ResourceStore({
    pool,
    registry,
    companyCode: config.companyCode,
    format,
    scope: parts.records,
    timeZone: config.timeZone,
  })
  const resources = new ResourceOperations({
    store,
    history: options.history,
    compiles,
    document,
    registry,
    log: app.log,
    scope: parts.records,
  })
  const attachments = new AttachmentOperations({ store: attachmentStore, maxBytes: config.attachmentMaxBytes })
  const system = new SystemOperations({
    auth: app.auth,
    sync,
    registry,
    format,
    retryPush: () => parts.push?.retryNow(),
    grantableRoles: parts.grantableRoles,
    reconciler: parts.reconciler,
    pushFailure: () => parts.push?.callFailure(),
    failedRequeueRounds: config.push.failedRequeueRounds,
  })
  const writes: WriteOptions = {
    idempotency: new Idempotency({ pool, ttlHours: config.idempotencyTtlHours }),
    wakePush: () => wakeAfterWrite(parts.push, options.shared.events),
  }
  const handlers = new Map([
    ...systemHandlers(system),
    ...eventHandlers(options.shared.events),
    ...resourceHandlers({ document, registry, resources, attachments, ...writes }),
    ...parts.handlers({ writes, history: options.history, attachments }),
  ])
  for (const [operationId, policy] of options.shared.policies) {
    const refusal = servedElsewhere(operationId, policy, options.edition)
    if (refusal) handlers.set(operationId, () => Promise.reject(refusal))
  }
  return handlers
}

/** An operation the document binds (`x-edition`) to another edition than this one: 403 for every role, before its body is read. */
function servedElsewhere(operationId: string, policy: OperationPolicy, edition: string): BusinessError | undefined {
  if (policy.edition === undefined || policy.edition === edition) return undefined
  return new BusinessError(Code.forbidden, message('servedByEdition', { operationId, edition: policy.edition }))
}

/** The HTTP concerns every request walks through before its operation, in their order. */
async function registerHttp(
  app: FastifyInstance,
  options: {
    config: Config
    database: Database
    policies: Map<string, OperationPolicy>
    authState: AuthState
    document: OpenApiDocument
    clock: AppOptions['clock']
    edition: string
    parts: EditionParts
  },
): Promise<void> {
  const { config, database, policies, edition, parts } = options
  await app.register(envelope)
  // First of the hooks: its headers are on every answer, refusals included.
  await app.register(securityHeaders, { corsOrigins: config.corsOrigins })
  await app.register(jsonBody, { policies })
  await app.register(authentication, {
    policies,
    prisma: database.prisma,
    state: options.authState,
    secret: await jwtSecret(config.jwtSecret, database.prisma),
    audience: tokenAudience(edition, config.companyCode),
    clock: options.clock,
    refuse: (policy, request) => servedElsewhere(operationIdOf(request) ?? '', policy, edition) ?? parts.refuse?.(policy, request),
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
    unlimited: parts.unlimited,
  })
}

function createFastify(config: Config, logger: AppOptions['logger'], compiles: CompileOnFirstUse): FastifyInstance {
  return Fastify({
    // Lines are written asynchronously: a write in flight gathers the lines logged meanwhile into
    // one system call (a synchronous write per request line costs the write path dearly); pino flushes what is left when the process exits.
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

/** Redis counting the rate limits, when configured: a slow or absent Redis never holds a request up. */
async function rateLimitRedis(app: FastifyInstance, config: Config): Promise<Redis | undefined> {
  if (!config.redisUrl) return undefined
  // Loaded only when configured: loading ioredis is a noticeable part of a start.
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

/** A promise awaited later: its failure is reported where it is awaited, not as an unhandled rejection meanwhile. */
function inBackground<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined)
  return promise
}

/** attachment/add carries a file of up to ATTACHMENT_MAX_BYTES as base64 (4/3 of it) beside its other fields. */
function attachmentBodyLimit(config: Config): number {
  return Math.ceil(config.attachmentMaxBytes / 3) * 4 + 64 * 1024
}
