// The processes under load, each in its own process (the load generator runs in the bench's):
// the baseline (baseline-server.ts, forked) and the service's editions (src/main.ts, as `npm start`
// runs them, configured by the environment). BENCH_CPU_PROF=<dir> runs them under `node --cpu-prof`
// (<dir>/<name>-<time>.cpuprofile, written when they stop).
import { type ChildProcess, fork, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { MAIN, MAIN_V8_FLAGS, mainEnv } from '../dev/editions.ts'
import { ensureEnterpriseAccount, type ParkAccount } from '../dev/park-account.ts'
import { freePort } from '../dev/ports.ts'
import { fail, note } from './common.ts'
import { settings } from './settings.ts'

export interface Proc {
  name: string
  url: string
  pid: number
  child: ChildProcess
  stopping: boolean
  /** The last lines it wrote on stderr (shown when it dies). */
  stderr: string[]
}

const STOP_TIMEOUT_MS = 20_000

function execArgv(name: string): string[] {
  const dir = settings.cpuProfDir
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : []
}

function watch(proc: Proc): void {
  proc.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    proc.stderr.push(...chunk.split('\n').filter(Boolean))
    proc.stderr.splice(0, Math.max(0, proc.stderr.length - 20))
  })
  proc.child.once('exit', (code, signal) => {
    if (proc.stopping) return
    fail(
      `the ${proc.name} process exited during the bench (${code ?? signal})${proc.stderr.length ? `:\n      ${proc.stderr.join('\n      ')}` : ''}`,
    )
  })
}

/** Resolves with the first IPC message, rejects if the child exits first. */
function firstMessage(child: ChildProcess, name: string, stderr: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null, signal: string | null) =>
      reject(new Error(`the ${name} process exited while starting (${code ?? signal}): ${stderr.join(' | ')}`))
    child.once('exit', onExit)
    child.once('error', reject)
    child.once('message', (message) => {
      child.removeListener('exit', onExit)
      resolve(message)
    })
  })
}

export async function startBaseline(databaseUrl: string): Promise<Proc> {
  const child = fork(path.join(import.meta.dirname, 'baseline-server.ts'), [], {
    execArgv: [...process.execArgv, ...execArgv('baseline')],
    env: { ...process.env, BENCH_SERVER_DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  })
  const proc: Proc = { name: 'baseline', url: '', pid: child.pid!, child, stopping: false, stderr: [] }
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => proc.stderr.push(chunk.trim()))
  const message = (await firstMessage(child, 'baseline', proc.stderr)) as { url?: string }
  if (typeof message?.url !== 'string') throw new Error(`the baseline server sent ${JSON.stringify(message)}`)
  proc.url = message.url
  proc.stderr.length = 0
  watch(proc)
  return proc
}

/** Settings of the editions under load, on top of the project's defaults. */
export const EDITION_PASSWORD = `bench-${Math.random().toString(36).slice(2)}-admin`
export const COMPANY_CODE = '000000000'

/**
 * An edition (src/main.ts) on a free port with the project's default settings, but: its database,
 * the admin password and, when `raisedLimits` (a load or a series of reads from one account), rate
 * limits out of the way (a per-user limit of 1 200 a minute would answer 429). A park receiving
 * pushes keeps the default limits: the push is what it serves. `extra`: more settings (the park
 * client's). `port`: the port of an edition started again (by default a free one).
 */
export async function startEdition(
  name: string,
  edition: 'enterprise' | 'park',
  databaseUrl: string,
  options: { raisedLimits: boolean; extra?: NodeJS.ProcessEnv; port?: number },
): Promise<Proc> {
  const port = options.port ?? (await freePort())
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const key of Object.keys(env)) if (key.startsWith('BENCH_') || key.startsWith('PARK_') || key === 'DATABASE_URL') delete env[key]
  Object.assign(env, {
    EDITION: edition,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    ADMIN_PASSWORD: EDITION_PASSWORD,
    COMPANY_CODE,
    ...(options.raisedLimits ? { RATE_LIMIT_MAX: '1000000000', RATE_LIMIT_LOGIN_MAX: '100000' } : {}),
    ...options.extra,
  })
  // As `npm start` runs it (its V8 heap settings and malloc's arenas included).
  const child = spawn(process.execPath, [...MAIN_V8_FLAGS, ...execArgv(name), MAIN], {
    cwd: path.resolve(import.meta.dirname, '..', '..'),
    env: mainEnv(env),
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  })
  const proc: Proc = { name, url: `http://127.0.0.1:${port}`, pid: child.pid!, child, stopping: false, stderr: [] }
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => proc.stderr.push(chunk.trim()))
  const message = await firstMessage(child, name, proc.stderr)
  if (message !== 'ready') throw new Error(`the ${name} edition sent ${JSON.stringify(message)} instead of 'ready'`)
  child.channel?.unref()
  proc.stderr.length = 0
  watch(proc)
  note(`${name} edition ready at ${proc.url} (pid ${proc.pid})`)
  return proc
}

/**
 * A park edition (default limits: it receives pushes), the enterprise's account on it, then an
 * enterprise edition pushing to it with that account; both into `procs`, which the caller stops.
 */
export async function startPushingPair(
  names: { park: string; enterprise: string },
  databaseUrls: { park: string; enterprise: string },
  account: ParkAccount,
  procs: Proc[],
): Promise<{ park: Proc; enterprise: Proc }> {
  const park = await startEdition(names.park, 'park', databaseUrls.park, { raisedLimits: false })
  procs.push(park)
  await ensureEnterpriseAccount(park.url, EDITION_PASSWORD, account)
  const enterprise = await startEdition(names.enterprise, 'enterprise', databaseUrls.enterprise, {
    raisedLimits: true,
    extra: { PARK_URL: park.url, PARK_USER: account.userName, PARK_PASSWORD: account.password },
  })
  procs.push(enterprise)
  return { park, enterprise }
}

export async function stop(proc: Proc | undefined): Promise<void> {
  if (!proc) return
  const { child } = proc
  if (child.exitCode !== null || child.signalCode !== null) return
  proc.stopping = true
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  if (proc.name === 'baseline') child.send('stop')
  else child.kill('SIGTERM')
  let timer: NodeJS.Timeout | undefined
  const code = await Promise.race([exited, new Promise<'timeout'>((resolve) => (timer = setTimeout(resolve, STOP_TIMEOUT_MS, 'timeout')))])
  clearTimeout(timer)
  if (code === 'timeout') {
    fail(`the ${proc.name} process did not stop within ${STOP_TIMEOUT_MS / 1000} s`)
    child.kill('SIGKILL')
    await exited
  } else if (code !== 0) {
    fail(`the ${proc.name} process stopped with exit code ${code}: ${proc.stderr.join(' | ')}`)
  }
}

/** Resident memory now and its peak (MB), from /proc/<pid>/status. */
export function memory(proc: Proc): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8')
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
  } catch {
    return undefined
  }
}

/** CPU time the process has used so far (s, all its threads), from /proc/<pid>/stat (Linux's 100 ticks a second). */
export function cpuSeconds(proc: Pick<Proc, 'pid'>): number | undefined {
  try {
    const stat = readFileSync(`/proc/${proc.pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

/** CPU seconds of the local PostgreSQL backends serving `url`'s database (0 when it is not local). */
export function backendCpuSeconds(url: string): number {
  const database = new URL(url).pathname.slice(1)
  let total = 0
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${database} `)) continue
      total += cpuSeconds({ pid: Number(pid) }) ?? 0
    } catch {
      // gone meanwhile
    }
  }
  return total
}
