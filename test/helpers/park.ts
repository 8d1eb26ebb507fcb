// Real editions as their own processes (node src/main.ts), that a test can stop, kill and start
// again on the same port and database: the park, or enterprise instances pushing to it.
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { freePort } from '../../scripts/dev/ports.ts'
import { eventually, pace } from './eventually.ts'
import { RESOURCE_PATHS } from './fixtures.ts'
import { ADMIN_PASSWORD, freshDatabase } from './service.ts'

interface TestContext {
  after(fn: () => unknown): void
}

export interface EditionProcess {
  url: string
  databaseUrl: string
  start(): Promise<void>
  /** SIGTERM (graceful) or SIGKILL; resolves on the process's exit event with its exit code (no waiting by time). */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

export { eventually }

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url))

export async function startEdition(
  t: TestContext,
  options: { edition: 'park' | 'enterprise'; databaseUrl?: string; env?: Record<string, string> },
): Promise<EditionProcess> {
  const databaseUrl = options.databaseUrl ?? (await freshDatabase(t))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  let child: ChildProcess | undefined
  let exited: Promise<number | null> | undefined

  const start = async () => {
    child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        EDITION: options.edition,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        ADMIN_PASSWORD,
        LOG_LEVEL: 'warn',
        // Every client of a test (its editions pushing to each other, the test itself) comes from one
        // address: limits meant for one client's address would be shared by all of them.
        RATE_LIMIT_MAX: '1000000',
        RATE_LIMIT_LOGIN_MAX: '1000000',
        // Tests run two files at once, each with several editions, against one server's connections.
        DB_POOL_MAX: '6',
        ...options.env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const current = child
    exited = new Promise((resolve) => current.once('exit', (code) => resolve(code)))
    // If the test process itself ends abruptly (a timeout), its editions go with it.
    const reap = () => current.kill('SIGKILL')
    process.once('exit', reap)
    current.once('exit', () => process.off('exit', reap))
    await eventually(
      async () => {
        // An edition that could not start (it said why on stderr) is not waited for.
        if (current.exitCode !== null || current.signalCode !== null) {
          throw new Error(`the ${options.edition} edition exited (${current.exitCode ?? current.signalCode}) before it was ready`)
        }
        return (await fetch(`${url}/health/ready`).catch(() => undefined))?.ok
      },
      {
        // A start takes seconds alone, much longer on a machine busy with other editions under load.
        timeoutMs: 120_000,
        what: `the ${options.edition} edition to be ready`,
      },
    )
  }
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null
    child.kill(signal)
    return exited!
  }
  t.after(() => stop('SIGKILL'))
  await start()
  return { url, databaseUrl, start, stop }
}

/** An enterprise's settings pushing to the park at `url` as its admin, with these others. */
export function pushingTo(url: string, settings: Record<string, string> = {}): Record<string, string> {
  return { PARK_URL: url, PARK_USER: 'admin', PARK_PASSWORD: ADMIN_PASSWORD, ...settings }
}

export const startParkProcess = (t: TestContext, env: Record<string, string> = {}) => startEdition(t, { edition: 'park', env })

/** A JSON POST with an optional bearer token; answers the envelope. */
export async function post(url: string, body: unknown, token?: string, headers: Record<string, string> = {}): Promise<any> {
  const reply = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  })
  return reply.json()
}

/**
 * A POST answered with anything but 4001 (the database unavailable or busy, 503: to be retried),
 * which is asked again: after a fault test, an edition on a machine busy with other tests may answer
 * it for a while.
 */
export async function postUntilServed(url: string, body: unknown, token?: string): Promise<any> {
  return eventually(
    async () => {
      const reply = await post(url, body, token)
      return reply.code === 4001 ? undefined : reply
    },
    { timeoutMs: 60_000, everyMs: 200, what: `${url} to answer other than 4001` },
  )
}

/** The access token of a login to the edition at `url` (the admin's by default), asked again while it answers 4001. */
export async function loginTo(url: string, userName = 'admin', password = ADMIN_PASSWORD): Promise<string> {
  const reply = await postUntilServed(`${url}/system/login`, { userName, password })
  if (reply.code !== 0) throw new Error(`the login of ${userName} to ${url} answered ${reply.code}: ${reply.msg}`)
  return reply.data.token
}

/** Every live record of an edition, by resource and id, with every field but the sync state. */
export async function liveRecords(url: string, token: string): Promise<Record<string, any[]>> {
  const all: Record<string, any[]> = {}
  for (const [resource, path] of Object.entries(RESOURCE_PATHS)) {
    all[resource] = []
    for (let pageNum = 1; ; pageNum++) {
      const page = await postUntilServed(`${url}${path}/list`, { pageNum, pageSize: 500 }, token)
      if (page.code !== 0) throw new Error(`${url}${path}/list: ${page.code} ${page.msg}`)
      all[resource].push(...page.data.list.map(({ sync_time, sync_status, ...fields }: any) => fields))
      if (page.data.list.length < 500) break
    }
    all[resource].sort((a, b) => (a.id < b.id ? -1 : 1))
  }
  return all
}

/**
 * True of an enterprise's `/system/sync/status` data when everything is pushed: nothing pending or
 * failed, and its zone too, which its first upkeep writes a moment after it started.
 */
export function everythingPushed(status: { resources: any[] }): boolean {
  return status.resources.every(
    (counts) => counts.pending === 0 && counts.failed === 0 && (counts.resource !== 'enterpriseZone' || counts.synced === 1),
  )
}

/** True when the enterprise has everything pushed. */
export async function allSynced(url: string, token: string): Promise<boolean> {
  const status = await post(`${url}/system/sync/status`, {}, token)
  return status.code === 0 && everythingPushed(status.data)
}

/** No sweep from now on: its schedule gone, its queued runs removed, the one running (if any) ended. */
export async function holdSweep(db: pg.Pool): Promise<void> {
  await db.query(`DELETE FROM pgboss.schedule WHERE name = 'park-sweep'`)
  await eventually(
    async () => {
      await db.query(`DELETE FROM pgboss.job WHERE name = 'park-sweep' AND state IN ('created', 'retry')`)
      const { rows } = await db.query(`SELECT count(*)::int AS running FROM pgboss.job WHERE name = 'park-sweep' AND state = 'active'`)
      return rows[0].running === 0
    },
    { what: 'no sweep queued or running' },
  )
}

/** Pushes a few records would wait an hour for: only the probe can explain them arriving within a test's timeouts. */
export async function holdBackoffAndSweep(db: pg.Pool): Promise<void> {
  await holdSweep(db)
  // A retry running meanwhile fails (the park is down) and comes back due soon: moved again until none is.
  await eventually(
    async () => {
      await db.query(
        `UPDATE pgboss.job SET start_after = now() + interval '1 hour' WHERE name = 'park-push' AND state IN ('created', 'retry')`,
      )
      const { rows } = await db.query(
        `SELECT count(*)::int AS soon FROM pgboss.job WHERE name = 'park-push'
           AND (state = 'active' OR (state IN ('created', 'retry') AND start_after < now() + interval '30 minutes'))`,
      )
      return rows[0].soon === 0
    },
    { what: 'every push retry deferred by an hour' },
  )
}

/** The `park-push` jobs not ended, by state: queued, waiting out a retry's backoff, running. */
export async function unendedPushJobs(db: pg.Pool): Promise<{ created: number; retry: number; active: number; total: number }> {
  const { rows } = await db.query(
    `SELECT count(*) FILTER (WHERE state = 'created')::int AS created, count(*) FILTER (WHERE state = 'retry')::int AS retry,
            count(*) FILTER (WHERE state = 'active')::int AS active, count(*)::int AS total
       FROM pgboss.job WHERE name = 'park-push' AND state IN ('created', 'retry', 'active')`,
  )
  return rows[0]
}

/**
 * Writes from `concurrency` clients until `until()` says stop: adds of risk units, and updates of
 * earlier ones. Returns the ids whose add was acknowledged (code 0) and the last acknowledged name
 * of every record; failures (the service killed, the database cut) are simply not acknowledged.
 */
export async function writeLoad(
  url: () => string,
  token: string,
  options: { prefix: string; concurrency?: number; until: () => boolean },
): Promise<{ added: Set<string>; names: Map<string, string> }> {
  const added = new Set<string>()
  const names = new Map<string, string>()
  let next = 0
  const worker = async () => {
    while (!options.until()) {
      const n = next++
      const id = `${options.prefix}-${n}`
      const name = `unit ${n}`
      try {
        const reply = await post(`${url()}/prevent/riskUnit/add`, { id, riskUnitName: name }, token)
        if (reply.code === 0) {
          added.add(id)
          names.set(id, name)
        }
        if (n % 3 === 0 && added.size > 0) {
          const target = `${options.prefix}-${Math.floor(n / 2)}`
          if (added.has(target)) {
            const renamed = `renamed ${n}`
            // The outcome of an update that got no answer is unknown: forget the expectation then.
            names.delete(target)
            const update = await post(`${url()}/prevent/riskUnit/update`, { id: target, riskUnitName: renamed }, token)
            if (update.code === 0) names.set(target, renamed)
          }
        }
      } catch {
        await pace(20) // the service is down: try the next one shortly
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker))
  return { added, names }
}

/**
 * The end of every fault test: the enterprise converges (nothing pending or failed) within
 * `timeoutMs`, then the park holds exactly the enterprise's live records, field for field (no
 * duplicates: ids are unique on both sides), including every acknowledged write, at its last
 * acknowledged value.
 */
export async function assertConverged(
  t: { same(...args: any[]): unknown; ok(...args: any[]): unknown; equal(...args: any[]): unknown },
  enterprise: { url: string; token: string },
  park: { url: string; token: string },
  load: { added: Set<string>; names: Map<string, string> },
  timeoutMs = 120_000,
): Promise<void> {
  await eventually(() => allSynced(enterprise.url, enterprise.token), {
    timeoutMs,
    everyMs: 200,
    what: 'the enterprise to have nothing pending',
  })
  const [onEnterprise, onPark] = await Promise.all([liveRecords(enterprise.url, enterprise.token), liveRecords(park.url, park.token)])
  t.same(onPark, onEnterprise, 'the park holds exactly the enterprise\u2019s live records, field for field')
  const parkUnits = new Map(onPark.riskUnit.map((unit: any) => [unit.id, unit]))
  const missing = [...load.added].filter((id) => !parkUnits.has(id))
  t.same(missing, [], `all ${load.added.size} acknowledged adds reached the park`)
  const stale = [...load.names].filter(([id, name]) => parkUnits.get(id)?.riskUnitName !== name)
  t.same(stale, [], 'every acknowledged update reached the park')
}

/** Pushes records of one resource to the park (/system/push/records), as an enterprise does. */
export function pushRecords(url: string, token: string, resource: string, list: unknown[]): Promise<any> {
  return post(`${url}/system/push/records`, { resource, list }, token)
}

/** Pushes one attachment of a record of `resource` to the park (/system/push/attachment), as an enterprise does. */
export function pushAttachment(url: string, token: string, resource: string, attachment: Record<string, unknown>): Promise<any> {
  return post(`${url}/system/push/attachment`, { resource, ...attachment }, token)
}

/** An enterprise edition pushing to a park with its own `enterprise` account, logged in as its admin. */
export interface PushingEnterprise {
  companyCode: string
  edition: EditionProcess
  token: string
}

/**
 * On the park at `parkUrl` (as its admin, `parkToken`), an `enterprise` account per company; then
 * an enterprise edition per company pushing with it, one after the other, with `env` (per company).
 */
export async function startEnterprisesPushingTo(
  t: TestContext & { equal(...args: unknown[]): unknown },
  park: { url: string; token: string },
  companies: readonly string[],
  env: (companyCode: string) => Record<string, string> = () => ({}),
): Promise<PushingEnterprise[]> {
  for (const companyCode of companies) {
    const added = await post(
      `${park.url}/system/user/add`,
      { userName: `ent-${companyCode}`, password: `password-${companyCode}`, role: 'enterprise', companyCode },
      park.token,
    )
    t.equal(added.code, 0, `enterprise account of ${companyCode} created`)
  }
  const enterprises: PushingEnterprise[] = []
  for (const companyCode of companies) {
    const edition = await startEdition(t, {
      edition: 'enterprise',
      env: {
        COMPANY_CODE: companyCode,
        PARK_URL: park.url,
        PARK_USER: `ent-${companyCode}`,
        PARK_PASSWORD: `password-${companyCode}`,
        ...env(companyCode),
      },
    })
    enterprises.push({ companyCode, edition, token: await loginTo(edition.url) })
  }
  return enterprises
}

/** One statement on an edition's database, by a connection of its own (the edition may be stopped); answers the rows. */
export async function sqlOn<T = any>(databaseUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return (await client.query(text, values)).rows
  } finally {
    await client.end()
  }
}
