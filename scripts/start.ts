// `npm start`.
//
// With DATABASE_URL set: runs one edition (src/main.ts, configured by the environment).
// Without it: the zero-setup demo. An embedded PostgreSQL (data in DATA_DIR, default ./.data),
// the park edition (PARK_PORT, default 3100) and the enterprise edition (PORT, default 3000)
// pushing to it, run by the supervisor in scripts/dev/supervisor.ts.
//
// A start that cannot proceed (a bad setting, a port in use, PostgreSQL that cannot start) prints
// one line naming the cause and the fix and exits 1.

import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { type DemoEdition, demoEditions, MAIN, spawnMain, whyEditionCannotStart } from './dev/editions.ts'
import { type EmbeddedPostgres, ensureDatabase, PortInUseError, startEmbeddedPostgres } from './dev/embedded-postgres/index.ts'
import { exitCodeOf, fail, onSignals } from './dev/signals.ts'
import { Supervisor } from './dev/supervisor.ts'

interface DemoSettings {
  dataDir: string
  pgPort: number
  parkPort: number
  enterprisePort: number
}

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const port = Number(raw)
  if (!/^\d+$/.test(raw) || !Number.isInteger(port) || port < 1 || port > 65535) {
    fail(`${name} must be a port number from 1 to 65535 (got "${raw}"): correct ${name}`)
  }
  return port
}

/** One edition, configured entirely by the environment: its exit code is ours. */
function runSingle(): void {
  const child = spawnMain(process.env, 'inherit')
  onSignals((signal) => child.kill(signal))
  process.on('exit', () => child.kill('SIGTERM'))
  child.on('error', (err) => fail(`cannot run ${MAIN}: ${err.message}`))
  child.on('exit', (code, signal) => process.exit(exitCodeOf(code, signal)))
}

async function demoSettings(): Promise<DemoSettings> {
  const rawDataDir = process.env.DATA_DIR ?? './.data'
  if (rawDataDir.trim() === '') fail('DATA_DIR must not be empty: unset it, or name a directory')
  const settings = {
    dataDir: path.resolve(rawDataDir),
    pgPort: portFromEnv('EMBEDDED_PG_PORT', 54329),
    parkPort: portFromEnv('PARK_PORT', 3100),
    enterprisePort: portFromEnv('PORT', 3000),
  }
  const { dataDir, pgPort, parkPort, enterprisePort } = settings
  if (new Set([pgPort, parkPort, enterprisePort]).size !== 3) {
    fail(`PORT (${enterprisePort}), PARK_PORT (${parkPort}) and EMBEDDED_PG_PORT (${pgPort}) must all differ: change one`)
  }
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) fail(`DATA_DIR ${dataDir} is not a directory: set DATA_DIR to one`)
  try {
    await fs.mkdir(dataDir, { recursive: true })
    await fs.access(dataDir, fs.constants.W_OK)
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    fail(`DATA_DIR ${dataDir} is not a writable directory (${why}): set DATA_DIR to one`)
  }
  return settings
}

/** The park's admin password, kept across restarts since the enterprise logs in with it. */
async function parkAdminPassword(dataDir: string): Promise<{ password: string; isNew: boolean }> {
  const file = path.join(dataDir, 'park-admin-password')
  const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : ''
  if (kept !== '') return { password: kept, isNew: false }
  const password = process.env.ADMIN_PASSWORD || randomBytes(15).toString('base64url')
  await fs.writeFile(file, password + '\n', { mode: 0o600 })
  return { password, isNew: !process.env.ADMIN_PASSWORD }
}

async function startDatabase(supervisor: Supervisor, { dataDir, pgPort }: DemoSettings): Promise<EmbeddedPostgres> {
  try {
    return await startEmbeddedPostgres({
      dataDir: path.join(dataDir, 'pg'),
      port: pgPort,
      persistent: true,
      onUnexpectedExit: (reason) => {
        process.stderr.write(`start: ${reason}\n`)
        void supervisor.shutdown(1)
      },
    })
  } catch (err) {
    if (err instanceof PortInUseError) {
      fail(
        `port ${pgPort} (EMBEDDED_PG_PORT, the embedded PostgreSQL) is already in use: stop what listens on it, or set EMBEDDED_PG_PORT to a free port`,
      )
    }
    fail(`the embedded PostgreSQL cannot start: ${(err as Error).message}`)
  }
}

function banner(settings: DemoSettings, db: EmbeddedPostgres, park: { password: string; isNew: boolean }): string {
  const { dataDir, pgPort, parkPort, enterprisePort } = settings
  const rel = path.relative(process.cwd(), dataDir) || '.'
  const shown = rel.startsWith('..') ? dataDir : rel
  const passwordFile = path.join(shown, 'park-admin-password')
  const pgData = db.dataDir === path.join(dataDir, 'pg') ? '' : `; its data in ${db.dataDir}`
  const lines = [
    `  enterprise edition  http://localhost:${enterprisePort}   (Swagger UI: http://localhost:${enterprisePort}/docs)`,
    `  park edition        http://localhost:${parkPort}   (Swagger UI: http://localhost:${parkPort}/docs)`,
    `  park login          admin / ${park.isNew ? `${park.password}   (generated; kept in ${passwordFile})` : `password in ${passwordFile}`}`,
    `  data                ${shown}/  (PostgreSQL 17 on 127.0.0.1:${pgPort}, databases safety_enterprise and safety_park${pgData})`,
  ]
  if (process.env.ADMIN_PASSWORD && process.env.ADMIN_PASSWORD !== park.password) {
    lines.push(`  note                the park keeps the admin password it was first started with (not ADMIN_PASSWORD)`)
  }
  return ['', ...lines, '  stop with Ctrl+C', '', ''].join('\n')
}

/** Embedded PostgreSQL + park edition + enterprise edition wired to it. */
async function runDemo(): Promise<void> {
  const settings = await demoSettings()
  const park = await parkAdminPassword(settings.dataDir)
  const editions = demoEditions(settings.enterprisePort, settings.parkPort, park.password)
  for (const edition of editions) {
    const why = await whyEditionCannotStart(edition)
    if (why) fail(why)
  }
  const supervisor = new Supervisor()
  onSignals((signal, repeated) => supervisor.onSignal(signal, repeated))
  supervisor.db = await startDatabase(supervisor, settings)
  if (supervisor.shuttingDown) return supervisor.shutdown(0)
  const urls = new Map<DemoEdition, string>()
  try {
    for (const edition of editions) urls.set(edition, await ensureDatabase(supervisor.db.adminUrl, `safety_${edition.name}`))
  } catch (err) {
    process.stderr.write(`start: cannot create the databases: ${(err as Error).message}\n`)
    return supervisor.shutdown(1)
  }
  if (supervisor.shuttingDown) return
  process.stdout.write(banner(settings, supervisor.db, park))
  for (const edition of editions) supervisor.launch(edition.name, { ...edition.env, DATABASE_URL: urls.get(edition) })
}

if (!existsSync(MAIN)) fail(`${path.relative(process.cwd(), MAIN)} not found`)
if (process.env.DATABASE_URL) runSingle()
else await runDemo()
