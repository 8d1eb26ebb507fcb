// The one place that reads process.env: every variable is parsed and validated here, at start.
// Ajv validates the variables against the schema below: text coerced to the declared type,
// defaults applied, the environment's other variables dropped.
import Ajv2020Module, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import { CronExpressionParser } from 'cron-parser'

export type Edition = 'enterprise' | 'park'

export interface Config {
  databaseUrl: string
  edition: Edition
  port: number
  host: string
  parkUrl: string | undefined
  parkUser: string | undefined
  parkPassword: string | undefined
  adminPassword: string | undefined
  jwtSecret: string | undefined
  companyCode: string
  /** Offset (`+08:00`) or IANA zone name in which instants are written back. */
  timeZone: string
  rateLimitMax: number
  rateLimitLoginMax: number
  rateLimitWindowMs: number
  bodyLimit: number
  idempotencyTtlHours: number
  logLevel: string
  /** HTTP: a request must arrive whole within requestTimeoutMs, its headers within headersTimeoutMs; an idle keep-alive connection closes after keepAliveTimeoutMs, any silent one after connectionTimeoutMs. */
  requestTimeoutMs: number
  headersTimeoutMs: number
  keepAliveTimeoutMs: number
  connectionTimeoutMs: number
  dbStatementTimeoutMs: number
  dbConnectTimeoutMs: number
  /** Connections the requests' pool opens at most (the background's and the events' small pools come beside it). */
  dbPoolMax: number
  /** Redis counting the rate limits of every instance; none: they are counted in the database. */
  redisUrl: string | undefined
  /** Browser origins allowed to call (CORS); empty: CORS off. */
  corsOrigins: string[]
  /** Days record history is kept; undefined: forever. */
  historyRetentionDays: number | undefined
  /** READINGS_RETENTION_DAYS: monitoring readings are kept this many days (at least 30). */
  readingsRetentionDays: number
  /** Largest attachment, decoded, in bytes. */
  attachmentMaxBytes: number
  /** Days events are kept in the feed; the webhooks' finished deliveries of them go with them. */
  eventRetentionDays: number
  /** Webhook endpoints may be on loopback and private networks (a test or an isolated deployment). */
  webhookAllowPrivate: boolean
  push: {
    retryLimit: number
    retryDelayMaxSeconds: number
    /** Records per push call; attachments per page read for the push. */
    batchSize: number
    /** Bytes per push call or attachment page (one record or attachment at least, however large). */
    batchBytes: number
    /** Pages of one resource pushed at once. */
    concurrency: number
    /** How long a woken drain waits for more writes to join it (fuller pages, fewer calls). */
    debounceMs: number
    /** A retry job that died with its process is retried after this long (pg-boss expiry). */
    expireInSeconds: number
    /** Failed records are queued again by the sweep after resting this long, */
    failedRetrySeconds: number
    /** at most this many times (then they stay failed until an operator or a reconciliation). */
    failedRequeueRounds: number
    /** When reconciliation runs (cron, pg-boss schedule). */
    reconcileCron: string
    superviseSeconds: number
    parkTimeoutMs: number
    /** While the park is unreachable, how often its liveness is looked at (a drain at once when it answers again). */
    probeMs: number
  }
}

/** Every variable the service reads, its type, its bounds and its default. */
export const schema = {
  type: 'object',
  required: ['DATABASE_URL'],
  properties: {
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    EDITION: { type: 'string', enum: ['enterprise', 'park'], default: 'enterprise' },
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
    HOST: { type: 'string', minLength: 1, default: '0.0.0.0' },
    PARK_URL: { type: 'string', pattern: '^https?://' },
    PARK_USER: { type: 'string', minLength: 1 },
    PARK_PASSWORD: { type: 'string', minLength: 1 },
    ADMIN_PASSWORD: { type: 'string', minLength: 8, maxLength: 128 },
    JWT_SECRET: { type: 'string', minLength: 32 },
    COMPANY_CODE: { type: 'string', pattern: '^[0-9]{9}$', default: '000000000' },
    TZ: { type: 'string', minLength: 1, default: '+08:00' },
    RATE_LIMIT_MAX: { type: 'integer', minimum: 1, default: 1200 },
    RATE_LIMIT_LOGIN_MAX: { type: 'integer', minimum: 1, default: 10 },
    RATE_LIMIT_WINDOW_MS: { type: 'integer', minimum: 1000, default: 60000 },
    BODY_LIMIT: { type: 'integer', minimum: 1024, default: 32 * 1024 * 1024 },
    IDEMPOTENCY_TTL_HOURS: { type: 'number', exclusiveMinimum: 0, default: 24 },
    SYNC_RETRY_LIMIT: { type: 'integer', minimum: 0, maximum: 1000, default: 10 },
    SYNC_RETRY_DELAY_MAX_SECONDS: { type: 'integer', minimum: 1, default: 30 },
    SYNC_BATCH_SIZE: { type: 'integer', minimum: 1, maximum: 500, default: 500 },
    SYNC_BATCH_BYTES: { type: 'integer', minimum: 1, default: 16 * 1024 * 1024 },
    SYNC_PUSH_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 16, default: 3 },
    SYNC_PUSH_DEBOUNCE_MS: { type: 'integer', minimum: 0, maximum: 10000, default: 50 },
    HISTORY_RETENTION_DAYS: { type: 'integer', minimum: 1 },
    READINGS_RETENTION_DAYS: { type: 'integer', minimum: 30, default: 90 },
    EVENT_RETENTION_DAYS: { type: 'integer', minimum: 1, maximum: 36500, default: 30 },
    WEBHOOK_ALLOW_PRIVATE: { type: 'boolean', default: false },
    ATTACHMENT_MAX_BYTES: { type: 'integer', minimum: 1, maximum: 1024 * 1024 * 1024, default: 5 * 1024 * 1024 },
    SYNC_JOB_EXPIRE_SECONDS: { type: 'integer', minimum: 1, default: 30 },
    SYNC_SUPERVISE_SECONDS: { type: 'integer', minimum: 1, maximum: 3600, default: 10 },
    SYNC_FAILED_RETRY_SECONDS: { type: 'integer', minimum: 0, default: 60 },
    SYNC_FAILED_REQUEUE_ROUNDS: { type: 'integer', minimum: 0, maximum: 1000, default: 5 },
    SYNC_RECONCILE_CRON: { type: 'string', pattern: '^\\S+( \\S+){4,5}$', default: '17 3 * * *' },
    PARK_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 10000 },
    SYNC_PARK_PROBE_MS: { type: 'integer', minimum: 100, maximum: 60000, default: 500 },
    REQUEST_TIMEOUT_MS: { type: 'integer', minimum: 1000, default: 60000 },
    HEADERS_TIMEOUT_MS: { type: 'integer', minimum: 500, default: 10000 },
    KEEP_ALIVE_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 5000 },
    CONNECTION_TIMEOUT_MS: { type: 'integer', minimum: 1000, default: 120000 },
    DB_STATEMENT_TIMEOUT_MS: { type: 'integer', minimum: 0, default: 15000 },
    DB_CONNECT_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 5000 },
    DB_POOL_MAX: { type: 'integer', minimum: 2, maximum: 1000, default: 20 },
    REDIS_URL: { type: 'string', pattern: '^rediss?://' },
    CORS_ORIGINS: { type: 'string', pattern: '^\\s*https?://[^/\\s,]+\\s*(,\\s*https?://[^/\\s,]+\\s*)*$' },
    LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
  },
} as const

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** The environment as the schema above validated it (defaults applied). */
interface Environment {
  DATABASE_URL: string
  EDITION: Edition
  PORT: number
  HOST: string
  PARK_URL?: string
  PARK_USER?: string
  PARK_PASSWORD?: string
  ADMIN_PASSWORD?: string
  JWT_SECRET?: string
  COMPANY_CODE: string
  TZ: string
  RATE_LIMIT_MAX: number
  RATE_LIMIT_LOGIN_MAX: number
  RATE_LIMIT_WINDOW_MS: number
  BODY_LIMIT: number
  IDEMPOTENCY_TTL_HOURS: number
  SYNC_RETRY_LIMIT: number
  SYNC_RETRY_DELAY_MAX_SECONDS: number
  SYNC_BATCH_SIZE: number
  SYNC_BATCH_BYTES: number
  SYNC_PUSH_CONCURRENCY: number
  SYNC_PUSH_DEBOUNCE_MS: number
  HISTORY_RETENTION_DAYS?: number
  READINGS_RETENTION_DAYS: number
  EVENT_RETENTION_DAYS: number
  WEBHOOK_ALLOW_PRIVATE: boolean
  ATTACHMENT_MAX_BYTES: number
  SYNC_JOB_EXPIRE_SECONDS: number
  SYNC_SUPERVISE_SECONDS: number
  SYNC_FAILED_RETRY_SECONDS: number
  SYNC_FAILED_REQUEUE_ROUNDS: number
  SYNC_RECONCILE_CRON: string
  PARK_TIMEOUT_MS: number
  SYNC_PARK_PROBE_MS: number
  REQUEST_TIMEOUT_MS: number
  HEADERS_TIMEOUT_MS: number
  KEEP_ALIVE_TIMEOUT_MS: number
  CONNECTION_TIMEOUT_MS: number
  DB_STATEMENT_TIMEOUT_MS: number
  DB_CONNECT_TIMEOUT_MS: number
  DB_POOL_MAX: number
  REDIS_URL?: string
  CORS_ORIGINS?: string
  LOG_LEVEL: string
}

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module

let validateEnvironment: ValidateFunction<Environment> | undefined

/**
 * The schema's validator, compiled once per process. The schema is not checked against JSON
 * Schema's meta-schema at each start (building that check was most of the settings' cost):
 * test/config.test.ts checks it.
 */
function environmentValidator(): ValidateFunction<Environment> {
  validateEnvironment ??= new Ajv2020({
    allErrors: true,
    coerceTypes: true,
    useDefaults: true,
    removeAdditional: true,
    validateSchema: false,
  }).compile<Environment>({ ...schema, additionalProperties: false })
  return validateEnvironment
}

/** The value itself is not echoed: it may hold a password. */
const DATABASE_URL_FORM = 'DATABASE_URL must be a postgresql:// URL (postgresql://user:password@host:port/database)'

/**
 * What Ajv's coercion lets through: integers written otherwise than in decimal digits (`0x10` read
 * as 16, ` 4201`, `4.201e3`) or past what a number holds exactly, and a database URL that does not
 * parse. Each a problem, unless Ajv already named the variable.
 */
function formProblems(env: Record<string, string | undefined>, errors: ErrorObject[]): string[] {
  const named = new Set(errors.map((error) => error.instancePath.slice(1)))
  const problems: string[] = []
  for (const [name, property] of Object.entries(schema.properties)) {
    const value = env[name]
    if (property.type !== 'integer' || value === undefined || named.has(name)) continue
    if (!/^\d+$/.test(value)) problems.push(`${name} must be written in decimal digits, got "${value}"`)
    else if (!Number.isSafeInteger(Number(value))) problems.push(`${name} must be at most ${Number.MAX_SAFE_INTEGER}`)
  }
  if (!named.has('DATABASE_URL') && env.DATABASE_URL !== undefined && !URL.canParse(env.DATABASE_URL)) problems.push(DATABASE_URL_FORM)
  return problems
}

/** `PORT must be <= 65535`, `DATABASE_URL is required`, `EDITION must be one of enterprise, park`. */
function describeVariable(error: ErrorObject): string {
  const name = error.instancePath.slice(1)
  if (error.keyword === 'required') return `${String(error.params.missingProperty)} is required`
  if (error.keyword === 'enum') return `${name} must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`
  if (name === 'DATABASE_URL') return DATABASE_URL_FORM
  return `${name} ${error.message ?? 'is invalid'}`
}

/** Parses the environment; throws ConfigError with a one-line reason naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // A copy: the validator coerces and fills in its data.
  const raw: Record<string, unknown> = { ...env }
  const validate = environmentValidator()
  const valid = validate(raw)
  const errors = valid ? [] : (validate.errors ?? [])
  const problems = [...errors.map(describeVariable), ...formProblems(env, errors)]
  if (!valid || problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join(', ')}`)
  const timeZone = raw.TZ
  if (!isValidTimeZone(timeZone)) {
    throw new ConfigError(`invalid configuration: TZ must be an offset like +08:00 or an IANA zone name, got "${timeZone}"`)
  }
  const config: Config = {
    databaseUrl: raw.DATABASE_URL,
    edition: raw.EDITION,
    port: raw.PORT,
    host: raw.HOST,
    parkUrl: raw.PARK_URL,
    parkUser: raw.PARK_USER,
    parkPassword: raw.PARK_PASSWORD,
    adminPassword: raw.ADMIN_PASSWORD,
    jwtSecret: raw.JWT_SECRET,
    companyCode: raw.COMPANY_CODE,
    timeZone,
    rateLimitMax: raw.RATE_LIMIT_MAX,
    rateLimitLoginMax: raw.RATE_LIMIT_LOGIN_MAX,
    rateLimitWindowMs: raw.RATE_LIMIT_WINDOW_MS,
    bodyLimit: raw.BODY_LIMIT,
    idempotencyTtlHours: raw.IDEMPOTENCY_TTL_HOURS,
    logLevel: raw.LOG_LEVEL,
    requestTimeoutMs: raw.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: raw.HEADERS_TIMEOUT_MS,
    keepAliveTimeoutMs: raw.KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeoutMs: raw.CONNECTION_TIMEOUT_MS,
    dbStatementTimeoutMs: raw.DB_STATEMENT_TIMEOUT_MS,
    dbConnectTimeoutMs: raw.DB_CONNECT_TIMEOUT_MS,
    dbPoolMax: raw.DB_POOL_MAX,
    redisUrl: raw.REDIS_URL,
    corsOrigins: raw.CORS_ORIGINS ? raw.CORS_ORIGINS.split(',').map((origin) => origin.trim()) : [],
    historyRetentionDays: raw.HISTORY_RETENTION_DAYS,
    readingsRetentionDays: raw.READINGS_RETENTION_DAYS,
    attachmentMaxBytes: raw.ATTACHMENT_MAX_BYTES,
    eventRetentionDays: raw.EVENT_RETENTION_DAYS,
    webhookAllowPrivate: raw.WEBHOOK_ALLOW_PRIVATE,
    push: pushSettings(raw),
  }
  checkTogether(config)
  return config
}

/** The rules between variables, and the values the schema cannot judge alone. */
function checkTogether(config: Config): void {
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError('invalid configuration: HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS')
  }
  if (config.parkUrl !== undefined && !isHttpUrl(config.parkUrl)) {
    throw new ConfigError(
      `invalid configuration: PARK_URL must be an http(s) URL of the park edition (http://host:port), got "${config.parkUrl}"`,
    )
  }
  const cronProblem = cronExpressionProblem(config.push.reconcileCron)
  if (cronProblem) throw new ConfigError(`invalid configuration: SYNC_RECONCILE_CRON: ${cronProblem}, got "${config.push.reconcileCron}"`)
  const parkSettings = [config.parkUrl, config.parkUser, config.parkPassword].filter((value) => value !== undefined)
  if (parkSettings.length !== 0 && parkSettings.length !== 3) {
    throw new ConfigError('invalid configuration: PARK_URL, PARK_USER and PARK_PASSWORD go together (set all three or none)')
  }
}

/** The park push settings (SYNC_*, PARK_TIMEOUT_MS). */
function pushSettings(raw: Environment): Config['push'] {
  return {
    retryLimit: raw.SYNC_RETRY_LIMIT,
    retryDelayMaxSeconds: raw.SYNC_RETRY_DELAY_MAX_SECONDS,
    batchSize: raw.SYNC_BATCH_SIZE,
    batchBytes: raw.SYNC_BATCH_BYTES,
    concurrency: raw.SYNC_PUSH_CONCURRENCY,
    debounceMs: raw.SYNC_PUSH_DEBOUNCE_MS,
    expireInSeconds: raw.SYNC_JOB_EXPIRE_SECONDS,
    failedRetrySeconds: raw.SYNC_FAILED_RETRY_SECONDS,
    failedRequeueRounds: raw.SYNC_FAILED_REQUEUE_ROUNDS,
    reconcileCron: raw.SYNC_RECONCILE_CRON,
    superviseSeconds: raw.SYNC_SUPERVISE_SECONDS,
    parkTimeoutMs: raw.PARK_TIMEOUT_MS,
    probeMs: raw.SYNC_PARK_PROBE_MS,
  }
}

/** An http or https URL with a host (a port, if any, within 1..65535: the URL parser's own rule). */
function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false
  const url = new URL(text)
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
}

/** Why a cron expression would not run, as pg-boss's parser (cron-parser) says; undefined when it would. */
function cronExpressionProblem(expression: string): string | undefined {
  try {
    // As pg-boss parses its schedules (its timekeeper: UTC, not strict).
    CronExpressionParser.parse(expression, { tz: 'UTC', strict: false })
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

function isValidTimeZone(zone: string): boolean {
  if (/^[+-](0\d|1[0-4]):[0-5]\d$/.test(zone) || zone === 'Z' || zone === 'UTC') return true
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}
