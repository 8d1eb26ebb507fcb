// `npm start`.
//
// With DATABASE_URL set: runs one edition (src/main.ts, configured by the environment).
// Without it: the zero-setup demo. An embedded PostgreSQL (data in DATA_DIR, default ./.data),
// the park edition (PARK_PORT, default 3100) and the enterprise edition (PORT, default 3000)
// pushing to it. Ctrl+C / SIGTERM stops both editions, then PostgreSQL. An edition that dies (a
// crash, a kill from outside) is started again after a second; only a crash loop stops everything.

import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import readline from 'node:readline'
import { type EmbeddedPostgres, ensureDatabase, startEmbeddedPostgres } from './dev/embedded-postgres/index.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
const MAIN = path.join(ROOT, 'src', 'main.ts')
const CHILD_STOP_TIMEOUT_MS = 30_000
/** An edition that exits unexpectedly is started again after this long... */
const RESTART_DELAY_MS = 1_000
/** ...unless it already did so more than this many times within the window: then everything stops. */
const RESTART_LIMIT = 5
const RESTART_WINDOW_MS = 60_000
// npm forwards the terminal's Ctrl+C to us on top of the one the terminal sends: one Ctrl+C can
// arrive twice. The same signal again within this time counts as one.
const SIGNAL_DEDUP_MS = 1500

/** Calls handler for a signal, except for a repeat of the same signal within SIGNAL_DEDUP_MS. */
function onSignals(handler: (signal: NodeJS.Signals, repeated: boolean) => void): void {
  const last = new Map<NodeJS.Signals, number>()
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      const now = Date.now()
      if (now - (last.get(signal) ?? 0) < SIGNAL_DEDUP_MS) return
      const repeated = last.size > 0
      last.set(signal, now)
      handler(signal, repeated)
    })
  }
}

function fail(message: string): never {
  process.stderr.write(`start: ${message}\n`)
  process.exit(1)
}

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const port = Number(raw)
  if (!/^\d+$/.test(raw) || !Number.isInteger(port) || port < 1 || port > 65535) {
    fail(`${name} must be a port number from 1 to 65535 (got "${raw}")`)
  }
  return port
}

// Preloaded into each edition: if this process dies without stopping it (kill -9), the edition
// is re-parented; it then stops itself instead of holding its port for the next start.
const EXIT_WITH_PARENT =
  'data:text/javascript,const p=process.ppid;setInterval(()=>{if(process.ppid!==p)process.kill(process.pid,"SIGTERM")},1000).unref()'

function spawnMain(env: NodeJS.ProcessEnv, stdout: 'inherit' | 'pipe'): ChildProcess {
  return spawn(process.execPath, [`--import=${EXIT_WITH_PARENT}`, MAIN], {
    cwd: ROOT,
    env,
    stdio: ['ignore', stdout, stdout],
    // Own process group: a terminal Ctrl+C reaches only this process, which then stops the
    // children in order (editions first, database last) and only once.
    detached: process.platform !== 'win32',
  })
}

function signalNumber(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1
}

if (!existsSync(MAIN)) fail(`${path.relative(process.cwd(), MAIN)} not found`)

if (process.env.DATABASE_URL) {
  runSingle()
} else {
  await runDemo()
}

/** One edition, configured entirely by the environment. */
function runSingle(): void {
  const child = spawnMain(process.env, 'inherit')
  onSignals((signal) => child.kill(signal))
  process.on('exit', () => child.kill('SIGTERM'))
  child.on('error', (err) => fail(`cannot run ${MAIN}: ${err.message}`))
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal ? 128 + signalNumber(signal) : 1))
  })
}

/** Embedded PostgreSQL + park edition + enterprise edition wired to it. */
async function runDemo(): Promise<void> {
  const rawDataDir = process.env.DATA_DIR ?? './.data'
  if (rawDataDir.trim() === '') fail('DATA_DIR must not be empty')
  const dataDir = path.resolve(rawDataDir)
  const pgPort = portFromEnv('EMBEDDED_PG_PORT', 54329)
  const parkPort = portFromEnv('PARK_PORT', 3100)
  const enterprisePort = portFromEnv('PORT', 3000)
  if (new Set([pgPort, parkPort, enterprisePort]).size !== 3) {
    fail(`PORT (${enterprisePort}), PARK_PORT (${parkPort}) and EMBEDDED_PG_PORT (${pgPort}) must all differ`)
  }
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) fail(`DATA_DIR ${dataDir} is not a directory`)
  try {
    await fs.mkdir(dataDir, { recursive: true })
    await fs.access(dataDir, fs.constants.W_OK)
  } catch (err) {
    fail(`DATA_DIR ${dataDir} is not a writable directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }

  const children = new Map<string, ChildProcess>()
  const closed: Promise<void>[] = []
  let db: EmbeddedPostgres | undefined
  let shuttingDown = false
  let exitCode = 0

  const shutdown = async (code: number) => {
    if (shuttingDown) return
    shuttingDown = true
    exitCode = code
    for (const child of children.values()) child.kill('SIGTERM')
    const killTimer = setTimeout(() => {
      process.stderr.write(`start: editions still running after ${CHILD_STOP_TIMEOUT_MS / 1000} s; killing them\n`)
      for (const child of children.values()) child.kill('SIGKILL')
    }, CHILD_STOP_TIMEOUT_MS)
    await Promise.all(closed)
    clearTimeout(killTimer)
    try {
      await db?.stop()
    } catch (err) {
      process.stderr.write(`start: stopping PostgreSQL failed: ${(err as Error).message}\n`)
      exitCode ||= 1
    }
    process.exit(exitCode)
  }

  onSignals((signal, repeated) => {
    if (repeated) {
      process.stderr.write(`start: ${signal} again: killing the editions\n`)
      for (const child of children.values()) child.kill('SIGKILL')
      return
    }
    process.stderr.write(`start: ${signal} received, stopping\n`)
    if (db === undefined && children.size === 0) {
      // PostgreSQL is still starting: stop once it is up (see below).
      shuttingDown = true
      return
    }
    void shutdown(0)
  })
  process.on('exit', () => {
    for (const child of children.values()) child.kill('SIGTERM')
  })

  const pgDir = path.join(dataDir, 'pg')
  try {
    db = await startEmbeddedPostgres({
      dataDir: pgDir,
      port: pgPort,
      persistent: true,
      onUnexpectedExit: (reason) => {
        process.stderr.write(`start: ${reason}\n`)
        void shutdown(1)
      },
    })
  } catch (err) {
    fail(`embedded PostgreSQL did not start: ${(err as Error).message}`)
  }
  if (shuttingDown) {
    shuttingDown = false
    await shutdown(0)
    return
  }

  let enterpriseUrl: string
  let parkUrl: string
  try {
    enterpriseUrl = await ensureDatabase(db.adminUrl, 'safety_enterprise')
    parkUrl = await ensureDatabase(db.adminUrl, 'safety_park')
  } catch (err) {
    process.stderr.write(`start: cannot create the databases: ${(err as Error).message}\n`)
    await shutdown(1)
    return
  }

  if (shuttingDown) return

  // The park's admin password: kept across restarts, since the enterprise logs in with it. The
  // park edition is given it as ADMIN_PASSWORD, so it is the password of the park's first admin.
  const parkPasswordFile = path.join(dataDir, 'park-admin-password')
  let parkPassword = existsSync(parkPasswordFile) ? readFileSync(parkPasswordFile, 'utf8').trim() : ''
  let parkPasswordIsNew = false
  if (parkPassword === '') {
    parkPassword = process.env.ADMIN_PASSWORD || randomBytes(15).toString('base64url')
    parkPasswordIsNew = !process.env.ADMIN_PASSWORD
    await fs.writeFile(parkPasswordFile, parkPassword + '\n', { mode: 0o600 })
  }

  // The park edition pushes nowhere: drop the park-client settings meant for an enterprise.
  const baseEnv = { ...process.env }
  for (const name of ['PARK_URL', 'PARK_USER', 'PARK_PASSWORD']) delete baseEnv[name]
  const editions: [string, NodeJS.ProcessEnv][] = [
    ['park', { ...baseEnv, EDITION: 'park', PORT: String(parkPort), DATABASE_URL: parkUrl, ADMIN_PASSWORD: parkPassword }],
    [
      'enterprise',
      {
        ...baseEnv,
        EDITION: 'enterprise',
        PORT: String(enterprisePort),
        DATABASE_URL: enterpriseUrl,
        PARK_URL: `http://127.0.0.1:${parkPort}`,
        PARK_USER: 'admin',
        PARK_PASSWORD: parkPassword,
      },
    ],
  ]

  const rel = path.relative(process.cwd(), dataDir) || '.'
  const shown = rel.startsWith('..') ? dataDir : rel
  process.stdout.write(
    [
      '',
      `  enterprise edition  http://localhost:${enterprisePort}   (Swagger UI: http://localhost:${enterprisePort}/docs)`,
      `  park edition        http://localhost:${parkPort}   (Swagger UI: http://localhost:${parkPort}/docs)`,
      `  park login          admin / ${parkPasswordIsNew ? `${parkPassword}   (generated; kept in ${path.join(shown, 'park-admin-password')})` : `password in ${path.join(shown, 'park-admin-password')}`}`,
      `  data                ${shown}/  (PostgreSQL 17 on 127.0.0.1:${pgPort}, databases safety_enterprise and safety_park)`,
      ...(process.env.ADMIN_PASSWORD && process.env.ADMIN_PASSWORD !== parkPassword
        ? [`  note                the park keeps the admin password it was first started with (not ADMIN_PASSWORD)`]
        : []),
      '  stop with Ctrl+C',
      '',
      '',
    ].join('\n'),
  )

  // An edition that dies (a crash, a kill -9 from outside) is started again, as a supervisor would:
  // the other edition and PostgreSQL keep running. Only a crash loop stops everything.
  const exits = new Map<string, number[]>()
  const launch = (name: string, env: NodeJS.ProcessEnv) => {
    const child = spawnMain(env, 'pipe')
    children.set(name, child)
    const prefix = `[${name}] `
    const pipes: Promise<void>[] = []
    for (const [stream, out] of [
      [child.stdout!, process.stdout],
      [child.stderr!, process.stderr],
    ] as const) {
      const lines = readline.createInterface({ input: stream, crlfDelay: Infinity })
      lines.on('line', (line) => out.write(prefix + line + '\n'))
      pipes.push(new Promise((resolve) => lines.once('close', resolve)))
    }
    closed.push(
      new Promise<void>((resolve) => {
        child.once('error', (err) => {
          process.stderr.write(`start: cannot run the ${name} edition: ${err.message}\n`)
          children.delete(name)
          resolve()
          void shutdown(1)
        })
        child.once('exit', (code, signal) => {
          children.delete(name)
          void Promise.all(pipes).then(() => {
            resolve()
            if (shuttingDown) return
            const now = Date.now()
            const recent = [...(exits.get(name) ?? []), now].filter((at) => now - at < RESTART_WINDOW_MS)
            exits.set(name, recent)
            const how = signal ?? `exit code ${code}`
            if (recent.length > RESTART_LIMIT) {
              process.stderr.write(`start: the ${name} edition exited ${recent.length} times within a minute (last: ${how}); stopping\n`)
              void shutdown(code || 1)
              return
            }
            process.stderr.write(`start: the ${name} edition exited unexpectedly (${how}); starting it again\n`)
            setTimeout(() => {
              if (!shuttingDown) launch(name, env)
            }, RESTART_DELAY_MS).unref()
          })
        })
      }),
    )
  }
  for (const [name, env] of editions) launch(name, env)
}
