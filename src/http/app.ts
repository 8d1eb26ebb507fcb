// Builds the HTTP service: Fastify with the document's routes (fastify-openapi-glue), one Ajv that
// neither coerces nor strips, authentication and roles in onRequest (so 401 and 403 come before
// any parsing), rate limits, and one error handler that answers every failure with the envelope.

import { randomBytes, randomUUID } from 'node:crypto'
import fastifyJwt from '@fastify/jwt'
import fastifyRateLimit from '@fastify/rate-limit'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify'
import openapiGlue from 'fastify-openapi-glue'
import { PgBoss } from 'pg-boss'
import { AuthService, type Caller } from '../auth/auth-service.ts'
import { AuthState } from '../auth/auth-state.ts'
import type { Config } from '../config.ts'
import { listOperations, loadOpenApi, type OpenApiDocument } from '../contract/openapi-document.ts'
import { pushItemSchema } from '../contract/push-item-schema.ts'
import { decodeUtf8, withDeclaredBodies } from '../contract/request-bodies.ts'
import { createAjv, type Validator } from '../contract/validation.ts'
import { Idempotency } from '../operations/idempotency.ts'
import { operationHandlers } from '../operations/operation-handlers.ts'
import { ResourceOperations } from '../operations/resource-operations.ts'
import { SystemOperations } from '../operations/system-operations.ts'
import { ParkClient } from '../park/park-client.ts'
import { ParkPush } from '../park/park-push.ts'
import { registerPushMetrics } from '../park/push-metrics.ts'
import { ResourceRegistry } from '../resources/resource-registry.ts'
import type { Database } from '../store/database.ts'
import { instantFormatter } from '../store/instant-format.ts'
import { latestMigrationVersion, migrate } from '../store/migrate.ts'
import { ResourceStore } from '../store/resource-store.ts'
import { SyncStore } from '../store/sync-store.ts'
import { BusinessError, Code, failure, success } from './business-error.ts'
import { sendFailure } from './error-handler.ts'
import { registerMetrics } from './metrics.ts'
import { operationIdOf, registerRequestLog } from './request-log.ts'
import { registerSwaggerUi } from './swagger-ui.ts'

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null
  }
}

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
  close(): Promise<void>
}

/** What the document says of each operation that matters before its handler runs. */
interface OperationPolicy {
  roles: string[]
  authenticated: boolean
  tokenKind: 'access' | 'refresh'
  bodyRequired: boolean
}

export async function buildApp(options: AppOptions): Promise<App> {
  const { config, database } = options
  const { document, yaml } = loadOpenApi()

  await migrate(database.pool)
  const registry = new ResourceRegistry(document)
  const format = instantFormatter(config.timeZone)
  const ajv = createAjv()
  const authState = new AuthState(database.prisma, config.databaseUrl)
  await authState.start()

  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    // One line per request instead, written by request-log.ts.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    // Request ids for the log lines, unique across instances; never trust a caller's.
    genReqId: () => randomUUID(),
  })
  app.decorateRequest('caller', null)
  registerRequestLog(app)
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema))

  // JSON only. An empty body is "no body" (logout, refresh); a route that needs one says 1000 below.
  app.removeAllContentTypeParsers()
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined)
    parseJson(request, decodeUtf8(body as Buffer), done)
  })

  app.setErrorHandler((error, request, reply) => sendFailure(request, reply, error))
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(failure(Code.noSuchPath, `no such path: ${request.method} ${request.url.split('?')[0]}`)),
  )

  await app.register(fastifyJwt, {
    secret: config.jwtSecret ?? (await storedJwtSecret(database)),
    sign: { algorithm: 'HS256' },
    // Verified tokens are cached (until they expire): revocation, disabled users and roles are
    // checked after verification, on every request, from AuthState.
    verify: { algorithms: ['HS256'], cache: 10_000 },
  })
  const auth = new AuthService({ prisma: database.prisma, state: authState, jwt: app.jwt, clock: options.clock })
  const generatedAdminPassword = await auth.ensureAdmin(config.adminPassword)

  const policies = operationPolicies(document)
  // Callback-style hooks: checked synchronously, no promise per request on the hot path.
  app.addHook('onRequest', (request, _reply, done) => {
    const operationId = operationIdOf(request)
    const policy = operationId ? policies.get(operationId) : undefined
    if (!policy?.authenticated) return done()
    const header = request.headers.authorization
    const match = typeof header === 'string' ? /^Bearer ([^\s]+)$/.exec(header) : null
    if (!match) return done(new BusinessError(Code.notLoggedIn, 'not logged in'))
    try {
      request.caller = auth.authenticate(match[1], policy.tokenKind)
    } catch (error) {
      return done(error as Error)
    }
    if (!policy.roles.includes(request.caller.role)) {
      return done(new BusinessError(Code.forbidden, `permission denied: role ${request.caller.role} may not call ${operationId}`))
    }
    done()
  })
  app.addHook('preValidation', (request, _reply, done) => {
    const operationId = operationIdOf(request)
    if (operationId && policies.get(operationId)?.bodyRequired && request.body === undefined) {
      return done(new BusinessError(Code.malformed, 'request body must be a JSON object'))
    }
    if (operationId && request.body === undefined) request.body = {} // no body where it is optional: as `{}`
    done()
  })

  // Swagger UI first: its pages are not operations, and the rate limiter registered next only
  // limits the routes registered after it.
  await registerSwaggerUi(app, document)
  await app.register(fastifyRateLimit, {
    global: true,
    hook: 'preParsing',
    max: config.rateLimitMax,
    timeWindow: config.rateLimitWindowMs,
    keyGenerator: (request) => (request.caller ? `user:${request.caller.userName}` : `ip:${request.ip}`),
    errorResponseBuilder: (_request, context) =>
      new BusinessError(Code.rateLimited, `rate limit exceeded: retry in ${Math.ceil(context.ttl / 1000)} s`),
  })
  // Login counts against two limits at once, the user name's and the address's. (The plugin's own
  // route hooks run one limiter per request, so both are checked here.)
  const loginLimiters = [
    app.createRateLimit({
      max: config.rateLimitLoginMax,
      timeWindow: config.rateLimitWindowMs,
      keyGenerator: (request) => `login-ip:${request.ip}`,
    }),
    app.createRateLimit({
      max: config.rateLimitLoginMax,
      timeWindow: config.rateLimitWindowMs,
      keyGenerator: (request) => `login-user:${String((request.body as { userName?: unknown } | undefined)?.userName ?? '')}`,
    }),
  ]
  const loginLimit = async (request: FastifyRequest, reply: FastifyReply) => {
    const results = await Promise.all(loginLimiters.map((limiter) => limiter(request)))
    const exceeded = results.flatMap((result) => (!result.isAllowed && result.isExceeded ? [result] : []))
    if (exceeded.length > 0) {
      const retryAfter = Math.max(...exceeded.map((result) => result.ttlInSeconds))
      reply.header('retry-after', String(retryAfter))
      throw new BusinessError(Code.rateLimited, `too many logins: retry in ${retryAfter} s`)
    }
  }

  const itemValidators = new Map<string, Validator>(
    registry.all.map((resource) => [
      resource.key,
      ajv.compile({ ...document.components.schemas[resource.schemaName], components: document.components }),
    ]),
  )
  const pushItemValidators = new Map<string, Validator>(
    registry.all.map((resource) => [resource.key, ajv.compile(pushItemSchema(document, resource.schemaName))]),
  )
  const store = new ResourceStore({ pool: database.pool, registry, companyCode: config.companyCode, format })
  const sync = new SyncStore({ pool: database.pool, store })
  const push = parkPush(config, database, sync, registry, app.log)
  const wakePush = () => push?.wake()
  const resources = new ResourceOperations({ store, itemValidators, pushItemValidators, log: app.log })
  const system = new SystemOperations({ auth, sync, registry, format, wakePush })
  const idempotency = new Idempotency({ pool: database.pool, ttlHours: config.idempotencyTtlHours })
  const handlers = operationHandlers({ document, registry, resources, system, idempotency, edition: config.edition, wakePush })

  await app.register(openapiGlue, {
    specification: withDeclaredBodies(runtimeSpecification(document)),
    // glue's typings want full route options; at run time it takes any subset (handler, hooks, config).
    operationResolver: ((operationId: string) => {
      const handler = handlers.get(operationId)
      if (!handler) throw new Error(`no handler for operation ${operationId}`)
      if (operationId === 'systemLogin') {
        return { handler, config: { rateLimit: false }, preValidation: loginLimit }
      }
      return { handler }
    }) as never,
  })

  const outsideContract = { config: { rateLimit: false } }
  app.get('/openapi.yaml', outsideContract, async (_request, reply) => reply.type('application/yaml; charset=utf-8').send(yaml))
  app.get('/openapi.json', outsideContract, async () => document)
  app.get('/health/live', outsideContract, async () => success({ status: 'live' }))
  app.get('/health/ready', outsideContract, async (_request, reply) => {
    try {
      const { expected, actual } = await latestMigrationVersion(database.pool)
      if (actual < expected)
        return reply.code(503).send(failure(Code.databaseUnavailable, `database not migrated: version ${actual} of ${expected}`))
      if (push && !(await push.ready()))
        return reply.code(503).send(failure(Code.databaseUnavailable, 'the push queue (pg-boss) is not ready'))
      return success({ status: 'ready', migration: actual, push: push ? 'ready' : 'not configured' })
    } catch {
      return reply.code(503).send(failure(Code.databaseUnavailable, 'database unavailable'))
    }
  })

  // --- operator surfaces (Swagger UI, metrics): registered here, implemented in their own modules ---
  registerPushMetrics(registerMetrics(app, { pool: database.pool }).registry, { sync, resources: registry, push })
  // --- end of operator surfaces ---

  await app.ready()
  await push?.start()
  return {
    fastify: app,
    generatedAdminPassword,
    push,
    async close() {
      // In-flight requests finish first, then the push in progress, then the database listeners.
      await app.close()
      await push?.stop()
      await authState.close()
    },
  }
}

/** The enterprise edition pushes to its park when one is configured. */
function parkPush(
  config: Config,
  database: Database,
  sync: SyncStore,
  registry: ResourceRegistry,
  log: FastifyInstance['log'],
): ParkPush | undefined {
  if (config.edition !== 'enterprise' || !config.parkUrl) return undefined
  const boss = new PgBoss({
    connectionString: config.databaseUrl,
    schema: 'pgboss',
    max: 4,
    useListenNotify: true,
    superviseIntervalSeconds: config.push.superviseSeconds,
  })
  boss.on('error', (error) => log.warn({ err: error }, 'pg-boss'))
  const client = new ParkClient({
    url: config.parkUrl,
    userName: config.parkUser!,
    password: config.parkPassword!,
    timeoutMs: config.push.parkTimeoutMs,
  })
  return new ParkPush({ boss, sync, registry, client, settings: config.push, log })
}

function operationPolicies(document: OpenApiDocument): Map<string, OperationPolicy> {
  return new Map(
    listOperations(document).map(({ operationId, spec }) => {
      const security = spec.security ?? document.security ?? []
      return [
        operationId,
        {
          roles: spec['x-roles'] ?? [],
          authenticated: security.length > 0,
          tokenKind: operationId === 'systemRefresh' ? 'refresh' : 'access',
          bodyRequired: spec.requestBody?.required === true,
        },
      ]
    }),
  )
}

/**
 * The document as the router uses it: batch items are validated one by one by the handler (a bad
 * item fails alone, with its own code), so the request schema accepts any item; header parameters
 * are named as Node presents them, in lower case, so their schemas apply.
 */
function runtimeSpecification(document: OpenApiDocument): OpenApiDocument {
  const specification = structuredClone(document)
  for (const parameter of Object.values<Record<string, any>>(specification.components.parameters ?? {})) {
    if (parameter.in === 'header') parameter.name = parameter.name.toLowerCase()
  }
  for (const schema of Object.values<Record<string, any>>(specification.components.schemas)) {
    for (const property of Object.values<Record<string, any>>(schema.properties ?? {})) {
      if (property['x-batch-items']) property.items = {}
    }
  }
  return specification
}

/** The JWT secret kept in the database when none is configured, so every instance signs alike. */
async function storedJwtSecret(database: Database): Promise<string> {
  const generated = randomBytes(48).toString('base64url')
  await database.prisma.appSetting.createMany({ data: [{ key: 'jwt_secret', value: generated }], skipDuplicates: true })
  const stored = await database.prisma.appSetting.findUniqueOrThrow({ where: { key: 'jwt_secret' } })
  return stored.value
}
