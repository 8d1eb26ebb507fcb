// Starts the real service on a fresh database over real HTTP, and checks every response it gives
// against the OpenAPI document: a test that calls an operation also proves its response shape.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { eventually } from './eventually.ts'
import { type Config, loadConfig } from '../../src/config.ts'
import { listOperations, loadOpenApi, resolveRef } from '../../src/contract/openapi-document.ts'
import { createAjv, describeErrors, type Validator } from '../../src/contract/validation.ts'
import { type App, type AppOptions, buildApp } from '../../src/app.ts'
import { type Database, openDatabase } from '../../src/store/database.ts'

export const ADMIN_PASSWORD = 'admin-password-for-tests'

interface TestContext {
  after(fn: () => unknown): void
}

export interface Reply<T = any> {
  status: number
  headers: Headers
  body: { msg: string; code: number; data: T; success: boolean }
}

export function adminDatabaseUrl(): string {
  const url = process.env.DATABASE_URL
  if (!url) throw new Error('DATABASE_URL must name a PostgreSQL server (npm test starts one when it is not set)')
  return url
}

/** A fresh, empty database for one test file; dropped when the test ends. */
export async function freshDatabase(t: TestContext): Promise<string> {
  const admin = adminDatabaseUrl()
  const name = `test_${randomBytes(6).toString('hex')}`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  await client.query(`CREATE DATABASE ${name}`)
  await client.end()
  t.after(async () => {
    const dropper = new pg.Client({ connectionString: admin })
    await dropper.connect()
    // A pool's end() resolves before its connections have closed: let them close before the drop
    // forces the rest, or a closing one hears "terminating connection" as an error of its own.
    const connected = async () =>
      (await dropper.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name])).rows[0].n > 0
    await eventually(async () => !(await connected()), { timeoutMs: 10_000, everyMs: 20, what: `${name} left by its connections` }).catch(
      () => undefined,
    )
    await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await dropper.end()
  })
  const url = new URL(admin)
  url.pathname = `/${name}`
  return url.toString()
}

// ---- response validation against the document ----
const { document } = loadOpenApi()
const ajv = createAjv()
const responseValidators = new Map<string, Validator>()
const operationsByPath = new Map(listOperations(document).map((operation) => [operation.path, operation]))

function responseValidator(path: string, status: number): Validator | undefined {
  const key = `${path} ${status}`
  if (!responseValidators.has(key)) {
    const operation = operationsByPath.get(path)
    const response = operation?.spec.responses?.[String(status)]
    if (!response) return undefined
    const schema = resolveRef(document, response).content?.['application/json']?.schema
    if (!schema) return undefined
    responseValidators.set(key, ajv.compile({ ...schema, components: document.components }))
  }
  return responseValidators.get(key)
}

export class ContractViolation extends Error {}

export interface TestService {
  url: string
  app: App
  config: Config
  database: Database
  databaseUrl: string
  /** POSTs JSON (or raw text or bytes with a content type) and validates the answer against the document. */
  call<T = any>(
    path: string,
    body?: unknown,
    options?: { token?: string; headers?: Record<string, string>; raw?: string | Uint8Array },
  ): Promise<Reply<T>>
  login(userName?: string, password?: string): Promise<string>
  /** Creates a user with the given role and returns its access token. */
  userToken(role: 'admin' | 'operator' | 'viewer' | 'collector', userName?: string): Promise<string>
}

export async function startService(
  t: TestContext,
  options: { env?: Record<string, string>; clock?: () => number; databaseUrl?: string; logger?: AppOptions['logger'] } = {},
): Promise<TestService> {
  const databaseUrl = options.databaseUrl ?? (await freshDatabase(t))
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '100000',
    RATE_LIMIT_LOGIN_MAX: '100000',
    // The test and the service share one event loop: a test busy for seconds (generating cases, say)
    // would find its idle connection closed by the service's timer as it sends on it.
    KEEP_ALIVE_TIMEOUT_MS: '120000',
    ...options.env,
  })
  const database = openDatabase(databaseUrl, { max: 10 })
  const app = await buildApp({ config, database, clock: options.clock, logger: options.logger ?? false })
  const address = await app.fastify.listen({ port: 0, host: '127.0.0.1' })
  t.after(async () => {
    await app.close()
    await database.close()
  })

  const call: TestService['call'] = async (path, body, callOptions = {}) => {
    const headers: Record<string, string> = { ...callOptions.headers }
    if (callOptions.token) headers.authorization = `Bearer ${callOptions.token}`
    let payload: string | Uint8Array | undefined
    if (callOptions.raw !== undefined) payload = callOptions.raw
    else if (body !== undefined) {
      payload = JSON.stringify(body)
      headers['content-type'] ??= 'application/json'
    }
    const response = await fetch(address + path, { method: 'POST', headers, body: payload })
    const text = await response.text()
    let parsed: any
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new ContractViolation(`${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`)
    }
    const validate = responseValidator(path, response.status)
    if (operationsByPath.has(path) && !validate && response.status !== 404) {
      throw new ContractViolation(`${path} answered HTTP ${response.status}, which the document does not list`)
    }
    if (validate && !validate(parsed)) {
      throw new ContractViolation(
        `${path} answered ${response.status} off the document: ${describeErrors(validate.errors)}: ${text.slice(0, 300)}`,
      )
    }
    return { status: response.status, headers: response.headers, body: parsed }
  }

  const login = async (userName = 'admin', password = ADMIN_PASSWORD) => {
    const reply = await call('/system/login', { userName, password })
    if (reply.body.code !== 0) throw new Error(`login of ${userName} failed: ${reply.body.msg}`)
    return reply.body.data.token as string
  }

  let adminToken: string | undefined
  const userToken: TestService['userToken'] = async (role, userName = `${role}-${randomBytes(3).toString('hex')}`) => {
    adminToken ??= await login()
    const password = `pw-${userName}-secret`
    const created = await call('/system/user/add', { userName, password, role }, { token: adminToken })
    if (created.body.code !== 0) throw new Error(`user/add failed: ${created.body.msg}`)
    return login(userName, password)
  }

  return { url: address, app, config, database, databaseUrl, call, login, userToken }
}
