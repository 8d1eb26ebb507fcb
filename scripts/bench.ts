// `npm run bench`: the service's write path against a bare Fastify + pg server doing the same
// durable write in one statement. The target is 70 % of the baseline's req/s. Machines are shared
// and noisy, so only the ratio within one run means anything; this prints figures, it asserts none.
//
// 1. PostgreSQL: DATABASE_URL (an admin URL) when set, else a throw-away embedded server. Two fresh
//    databases (baseline, service), dropped at the end.
// 2. Each server runs in its own process (scripts/bench/server.ts), the load generator
//    (autocannon) in this one: baseline POST /bench/add, service POST /prevent/riskUnit/add with
//    an admin token; every request carries a fresh id. Same connections and duration for both.
// 3. A warm-up per server (whose answers are checked: business code 0), then the write runs
//    alternately (baseline, service, baseline, service, ...); the best run of each counts. Then a
//    read (getById of one id), for information.
// 4. Checks that each table holds a row for every successful write, and that nothing failed.
//
// Exit code: 0 whatever the figures; 1 when something broke (a server error or crash, a failed
// login, a successful answer without its row).
//
// Settings (environment): BENCH_SECONDS (10) per run, BENCH_CONNECTIONS (50), BENCH_ROUNDS (2),
// BENCH_WARMUP_SECONDS (2), BENCH_READS=0 (writes only), BENCH_ONLY=service|baseline (one side
// only: no ratio), and BENCH_CPU_PROF=<dir> to run the servers under `node --cpu-prof`
// (<dir>/<baseline|service>-<time>.cpuprofile, written when they stop).
import { type ChildProcess, fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { type EmbeddedPostgres, EmbeddedPostgresError, startEmbeddedPostgres } from './dev/embedded-postgres/index.ts'
import { freePort } from './dev/ports.ts'

// ---- autocannon (no type declarations shipped): the part used here ----
interface LoadRequest {
  method?: string
  path?: string
  headers?: Record<string, string>
  body?: string
  setupRequest?: (request: LoadRequest, context: object) => LoadRequest
  onResponse?: (status: number, body: string) => void
}
interface LoadResult {
  requests: { average: number; sent: number }
  latency: { average: number; p50: number; p99: number }
  duration: number
  '2xx': number
  non2xx: number
  errors: number
  timeouts: number
  statusCodeStats: Record<string, { count: number }>
}
type Autocannon = (
  options: { url: string; connections: number; duration: number; pipelining: number; timeout: number; requests: LoadRequest[] },
  done: (error: Error | null, result: LoadResult) => void,
) => { stop(): void }
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon

// ---- settings ----
function setting(name: string, fallback: number, min: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < min) {
    console.error(`bench: ${name} must be a number >= ${min}, got "${raw}"`)
    process.exit(2)
  }
  return value
}
const SECONDS = setting('BENCH_SECONDS', 10, 1)
const CONNECTIONS = Math.round(setting('BENCH_CONNECTIONS', 50, 1))
const ROUNDS = Math.round(setting('BENCH_ROUNDS', 2, 1))
const WARMUP_SECONDS = setting('BENCH_WARMUP_SECONDS', 2, 0)
const ONLY = process.env.BENCH_ONLY || undefined
const READS = process.env.BENCH_READS !== '0'
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined
const TARGET_RATIO = 0.7
const ADMIN_PASSWORD = `bench-${randomBytes(9).toString('base64url')}`
const READ_ID = 'bench-read-1'
const WRITE_ID_PREFIX = 'w-'
if (ONLY !== undefined && ONLY !== 'service' && ONLY !== 'baseline') {
  console.error(`bench: BENCH_ONLY must be service or baseline, got "${ONLY}"`)
  process.exit(2)
}

const note = (line: string) => process.stderr.write(`# bench: ${line}\n`)

/** Something broke: reported at the end, exit code 1. */
const failures: string[] = []
let interrupted = false
let currentLoad: { stop(): void } | undefined

// ---- servers ----
type Kind = 'baseline' | 'service'

interface Target {
  kind: Kind
  child: ChildProcess
  stopping: boolean
  url: string
  databaseUrl: string
  writePath: string
  readPath: string
  headers: Record<string, string>
  /** Ids handed out (one per request built). */
  idsIssued: number
  /** Successful (2xx) write answers, warm-up included. */
  writes2xx: number
  writeRuns: number
  /** Answers of the warm-ups, parsed: how many had a business code other than 0. */
  sampled: number
  sampledNonZero: number
  sampledExample: string | undefined
  writeResults: LoadResult[]
  readResults: LoadResult[]
}

const SERVER_SCRIPT = path.join(import.meta.dirname, 'bench', 'server.ts')

function startServer(kind: Kind, databaseUrl: string): Promise<Target> {
  const execArgv = [...process.execArgv]
  if (CPU_PROF_DIR) execArgv.push('--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`, `--cpu-prof-name=${kind}-${Date.now()}.cpuprofile`)
  const child = fork(SERVER_SCRIPT, [kind], {
    execArgv,
    env: { ...process.env, BENCH_SERVER_DATABASE_URL: databaseUrl, BENCH_SERVER_ADMIN_PASSWORD: ADMIN_PASSWORD },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null, signal: string | null) =>
      reject(new Error(`the ${kind} server exited while starting (${code ?? signal})`))
    child.once('exit', onExit)
    child.once('error', reject)
    child.once('message', (message: { url?: string }) => {
      child.removeListener('exit', onExit)
      if (typeof message?.url !== 'string') return reject(new Error(`the ${kind} server sent ${JSON.stringify(message)}`))
      const target: Target = {
        kind,
        child,
        stopping: false,
        url: message.url,
        databaseUrl,
        writePath: kind === 'baseline' ? '/bench/add' : '/prevent/riskUnit/add',
        readPath: kind === 'baseline' ? '/bench/getById' : '/prevent/riskUnit/getById',
        headers: { 'content-type': 'application/json' },
        idsIssued: 0,
        writes2xx: 0,
        writeRuns: 0,
        sampled: 0,
        sampledNonZero: 0,
        sampledExample: undefined,
        writeResults: [],
        readResults: [],
      }
      child.once('exit', (code, signal) => {
        if (target.stopping) return
        failures.push(`the ${kind} server exited during the benchmark (${code ?? signal})`)
        currentLoad?.stop()
      })
      resolve(target)
    })
  })
}

async function stopServer(target: Target): Promise<void> {
  const { child } = target
  if (child.exitCode !== null || child.signalCode !== null) return
  target.stopping = true
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.send('stop')
  let timer: NodeJS.Timeout | undefined
  const code = await Promise.race([exited, new Promise<'timeout'>((resolve) => (timer = setTimeout(resolve, 15_000, 'timeout')))])
  clearTimeout(timer)
  if (code === 'timeout') {
    failures.push(`the ${target.kind} server did not stop within 15 s`)
    child.kill('SIGKILL')
    await exited
  } else if (code !== 0) {
    failures.push(`the ${target.kind} server stopped with exit code ${code}`)
  }
}

async function post(target: Target, urlPath: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(target.url + urlPath, { method: 'POST', headers: target.headers, body: JSON.stringify(body) })
  const text = await response.text()
  try {
    return { status: response.status, body: JSON.parse(text) }
  } catch {
    return { status: response.status, body: text }
  }
}

async function expectOk(target: Target, urlPath: string, body: unknown, what: string): Promise<any> {
  const reply = await post(target, urlPath, body)
  if (reply.status !== 200 || reply.body?.code !== 0) {
    throw new Error(`${what} on the ${target.kind} server failed: HTTP ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`)
  }
  return reply.body
}

// ---- load ----
function load(target: Target, mode: 'write' | 'read', seconds: number, checkAnswers: boolean): Promise<LoadResult> {
  const request: LoadRequest = {
    method: 'POST',
    path: mode === 'write' ? target.writePath : target.readPath,
    headers: target.headers,
  }
  if (mode === 'write') {
    request.setupRequest = (built) => {
      target.idsIssued++
      return { ...built, body: `{"id":"${WRITE_ID_PREFIX}${target.idsIssued}","riskUnitName":"bench risk unit"}` }
    }
  } else {
    request.body = JSON.stringify({ id: READ_ID })
  }
  if (checkAnswers) {
    request.onResponse = (status, body) => {
      target.sampled++
      let code: unknown
      try {
        code = JSON.parse(body).code
      } catch {
        code = undefined
      }
      if (status !== 200 || code !== 0) {
        target.sampledNonZero++
        target.sampledExample ??= `HTTP ${status} ${body.slice(0, 200)}`
      }
    }
  }
  return new Promise((resolve, reject) => {
    currentLoad = autocannon(
      { url: target.url, connections: CONNECTIONS, duration: seconds, pipelining: 1, timeout: 10, requests: [request] },
      (error, result) => {
        currentLoad = undefined
        if (error) return reject(error)
        if (mode === 'write') {
          target.writes2xx += result['2xx']
          target.writeRuns++
        }
        if (result.non2xx || result.errors || result.timeouts) {
          const codes = Object.entries(result.statusCodeStats)
            .filter(([status]) => !status.startsWith('2'))
            .map(([status, { count }]) => `${count} × HTTP ${status}`)
          failures.push(
            `${mode} on the ${target.kind} server: ${result.non2xx} non-2xx (${codes.join(', ') || 'none'}), ${result.errors} errors, ${result.timeouts} timeouts`,
          )
        }
        resolve(result)
      },
    )
  })
}

// ---- database ----
async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  client.on('error', () => {})
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end().catch(() => {})
  }
}

function databaseUrlOf(adminUrl: string, name: string): string {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** Rows written by the load, once the server has finished what was in flight (stable count). */
async function loadRows(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl })
  client.on('error', () => {})
  await client.connect()
  try {
    let previous = -1
    for (;;) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM risk_unit WHERE id LIKE '${WRITE_ID_PREFIX}%'`)
      if (rows[0]!.n === previous) return previous
      previous = rows[0]!.n
      await new Promise((resolve) => setTimeout(resolve, 300))
    }
  } finally {
    await client.end().catch(() => {})
  }
}

// ---- report ----
const int = (value: number) => Math.round(value).toLocaleString('en-US')
const best = (results: LoadResult[]) =>
  results.reduce<LoadResult | undefined>((a, b) => (a && a.requests.average >= b.requests.average ? a : b), undefined)

function row(label: string, result: LoadResult | undefined): string {
  if (!result) return `${label.padEnd(26)}  (not run)`
  const cells = [
    int(result.requests.average).padStart(8),
    `${result.latency.p50}`.padStart(7),
    `${result.latency.p99}`.padStart(7),
    int(result['2xx']).padStart(9),
    int(result.non2xx).padStart(7),
    int(result.errors + result.timeouts).padStart(7),
  ]
  return `${label.padEnd(26)}${cells.join('  ')}`
}

function table(targets: Target[]): string[] {
  const out = [
    `${''.padEnd(26)}${['req/s', 'p50 ms', 'p99 ms', '2xx', 'non2xx', 'errors'].map((h, i) => h.padStart(i === 0 ? 8 : i === 3 ? 9 : 7)).join('  ')}`,
  ]
  for (const mode of ['write', 'read'] as const) {
    for (const target of targets) {
      const results = mode === 'write' ? target.writeResults : target.readResults
      if (results.length === 0) continue
      results.forEach((result, i) => {
        if (results.length > 1) out.push(row(`${mode} ${target.kind} run ${i + 1}`, result))
      })
      out.push(row(`${mode} ${target.kind}${results.length > 1 ? ' (best)' : ''}`, best(results)))
    }
  }
  return out
}

const resultsOf = (target: Target, mode: 'write' | 'read') => (mode === 'write' ? target.writeResults : target.readResults)

function ratios(targets: Target[]): string[] {
  const out: string[] = []
  const baseline = targets.find((t) => t.kind === 'baseline')
  const service = targets.find((t) => t.kind === 'service')
  for (const mode of ['write', 'read'] as const) {
    const b = baseline && best(resultsOf(baseline, mode))
    const s = service && best(resultsOf(service, mode))
    if (!b || !s) continue
    // Runs alternate (baseline, service, baseline, service, ...): pairing each service run with the
    // baseline run just before it compares like with like when the machine's load drifts; the
    // median of those pairs is the figure the target is judged by, best against best is shown too.
    const baselineRuns = resultsOf(baseline!, mode)
    const pairs = resultsOf(service!, mode)
      .map((run, i) => run.requests.average / (baselineRuns[i] ?? b).requests.average)
      .sort((x, y) => x - y)
    const median = pairs.length % 2 === 1 ? pairs[(pairs.length - 1) / 2] : (pairs[pairs.length / 2 - 1] + pairs[pairs.length / 2]) / 2
    const bestRatio = s.requests.average / b.requests.average
    const verdict =
      mode === 'write' ? ` (target ${TARGET_RATIO * 100} %: ${median >= TARGET_RATIO ? 'met' : 'NOT met'})` : ' (for information)'
    out.push(
      `${mode} ratio service/baseline: ${(median * 100).toFixed(1)} % median of ${pairs.length} paired run(s) [${pairs.map((pair) => `${(pair * 100).toFixed(0)} %`).join(', ')}]; best against best ${(bestRatio * 100).toFixed(1)} %${verdict}`,
    )
  }
  return out
}

/** Rows stored against answers given, and the warm-up answers; a mismatch is a failure. */
function checks(targets: Target[], rows: Map<Kind, number>): string[] {
  const out = ['Checks:']
  if (rows.size === 0) out.push('  (skipped: the runs did not complete)')
  for (const target of targets) {
    const stored = rows.get(target.kind)
    if (stored === undefined) continue
    // A run stops with at most one request in flight per connection: written, answer not counted.
    const inFlight = stored - target.writes2xx
    const slack = CONNECTIONS * target.writeRuns
    const ok = inFlight >= 0 && inFlight <= slack && stored <= target.idsIssued
    out.push(
      `  ${target.kind}: risk_unit holds ${int(stored)} rows for ${int(target.writes2xx)} successful writes ` +
        `(+${int(inFlight)} in flight when a run stopped, at most ${int(slack)}; ${int(target.idsIssued)} ids sent): ${ok ? 'ok' : 'MISMATCH'}`,
    )
    if (!ok) failures.push(`${target.kind}: ${stored} rows for ${target.writes2xx} successful writes and ${target.idsIssued} ids sent`)
    out.push(
      `  ${target.kind}: ${int(target.sampled)} warm-up answers checked, ${int(target.sampledNonZero)} with a business code other than 0` +
        (target.sampledExample ? ` (e.g. ${target.sampledExample})` : ''),
    )
    if (target.sampledNonZero > 0)
      failures.push(`${target.kind}: ${target.sampledNonZero} warm-up answers were not code 0: ${target.sampledExample}`)
  }
  return out
}

function report(targets: Target[], rows: Map<Kind, number>, database: string): void {
  const heading = `Write path benchmark: ${SECONDS} s per run, ${CONNECTIONS} connections, ${ROUNDS} round(s) alternated, warm-up ${WARMUP_SECONDS} s; PostgreSQL ${database}`
  const out = ['', heading, ...table(targets), '', ...ratios(targets), '', ...checks(targets, rows)]
  process.stdout.write(out.join('\n') + '\n')
}

// ---- run ----
interface Database {
  adminUrl: string
  /** How the report names it. */
  shown: string
  embedded: EmbeddedPostgres | undefined
}

/** DATABASE_URL (an admin URL) when set, else a throw-away embedded server. */
async function openDatabase(): Promise<Database> {
  if (process.env.DATABASE_URL) {
    const adminUrl = process.env.DATABASE_URL
    return { adminUrl, shown: `${new URL(adminUrl).host} (DATABASE_URL)`, embedded: undefined }
  }
  const port = await freePort()
  note(`starting a throw-away embedded PostgreSQL on port ${port}`)
  const embedded = await startEmbeddedPostgres({
    dataDir: path.join(os.tmpdir(), `bench-pg-${randomBytes(6).toString('hex')}`),
    port,
    persistent: false,
    onUnexpectedExit: (reason) => {
      failures.push(reason)
      currentLoad?.stop()
    },
  })
  return { adminUrl: embedded.adminUrl, shown: `127.0.0.1:${port} (embedded, throw-away: fsync off)`, embedded }
}

/** Logs in (service) and checks a first write and read on one server. */
async function firstCalls(target: Target): Promise<void> {
  if (target.kind === 'service') {
    const login = await expectOk(target, '/system/login', { userName: 'admin', password: ADMIN_PASSWORD }, 'login as admin')
    if (typeof login.data?.token !== 'string') throw new Error('login as admin answered no token')
    target.headers.authorization = `Bearer ${login.data.token}`
  }
  await expectOk(target, target.writePath, { id: READ_ID, riskUnitName: 'bench read unit' }, 'the first write')
  const read = await expectOk(target, target.readPath, { id: READ_ID }, 'the first read')
  if (read.data?.id !== READ_ID)
    throw new Error(`the first read on the ${target.kind} server answered ${JSON.stringify(read).slice(0, 300)}`)
}

/** Warm-ups, then the write rounds alternated between the servers, then (BENCH_READS) the read. */
async function runLoads(targets: Target[]): Promise<void> {
  const step = async (target: Target, mode: 'write' | 'read', label: string, seconds: number, warmUp: boolean) => {
    if (interrupted || failures.length) return
    note(`${label}: ${mode} ${target.kind} (${seconds} s)`)
    const result = await load(target, mode, seconds, warmUp)
    if (!warmUp) resultsOf(target, mode).push(result)
  }
  for (const mode of READS ? (['write', 'read'] as const) : (['write'] as const)) {
    if (WARMUP_SECONDS > 0) for (const target of targets) await step(target, mode, 'warm-up', WARMUP_SECONDS, true)
    const rounds = mode === 'write' ? ROUNDS : 1
    for (let round = 1; round <= rounds; round++) {
      for (const target of targets) await step(target, mode, `round ${round}/${rounds}`, SECONDS, false)
    }
  }
}

async function main(): Promise<void> {
  process.on('SIGINT', () => {
    if (interrupted) return
    interrupted = true
    note('SIGINT: stopping the current run and cleaning up')
    currentLoad?.stop()
  })
  const database = await openDatabase()
  const prefix = `bench_${randomBytes(5).toString('hex')}`
  const created: string[] = []
  const targets: Target[] = []
  try {
    for (const kind of ONLY ? [ONLY as Kind] : (['baseline', 'service'] as const)) {
      await adminQuery(database.adminUrl, `CREATE DATABASE ${prefix}_${kind}`)
      created.push(`${prefix}_${kind}`)
      targets.push(await startServer(kind, databaseUrlOf(database.adminUrl, `${prefix}_${kind}`)))
    }
    for (const target of targets) await firstCalls(target)
    note(`servers ready: ${targets.map((t) => `${t.kind} ${t.url}`).join(', ')}`)
    await runLoads(targets)
    const rows = new Map<Kind, number>()
    if (!interrupted && !failures.length) {
      for (const target of targets) rows.set(target.kind, await loadRows(target.databaseUrl))
    }
    report(targets, rows, database.shown)
  } finally {
    for (const target of targets) await stopServer(target)
    for (const name of created) {
      await adminQuery(database.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((error) =>
        failures.push(`could not drop database ${name}: ${error.message}`),
      )
    }
    await database.embedded?.stop()
  }
  if (CPU_PROF_DIR) note(`CPU profiles written under ${CPU_PROF_DIR}`)
}

try {
  await main()
} catch (error) {
  // A known reason (the embedded PostgreSQL cannot start) in its one line; anything else with its stack.
  failures.push(error instanceof EmbeddedPostgresError ? error.message : ((error as Error).stack ?? String(error)))
}
if (interrupted) failures.push('interrupted')
if (failures.length) {
  process.stderr.write(`\nbench: something broke:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`)
  process.exitCode = 1
}
