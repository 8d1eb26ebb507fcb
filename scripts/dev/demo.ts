// The zero-setup demo of `npm start` (scripts/start.ts, without DATABASE_URL): an embedded
// PostgreSQL (data in DATA_DIR, default ./.data), the park edition (PARK_PORT, default 3100) and the
// enterprise edition (PORT, default 3000) pushing to it, run by the supervisor in supervisor.ts.
// Loaded only for the demo: a single edition's start does not wait for these modules.

import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { type DemoEdition, demoEditions } from './editions.ts'
import { type EmbeddedPostgres, ensureDatabase, PortInUseError, startEmbeddedPostgres } from './embedded-postgres/index.ts'
import { ensureEnterpriseAccount, type ParkAccount } from './park-account.ts'
import { portIsFree } from './ports.ts'
import { fail, onSignals } from './signals.ts'
import { Supervisor } from './supervisor.ts'

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

/** The enterprise's account on the park: one per companyCode, its password kept across restarts. */
async function parkEnterpriseAccount(dataDir: string): Promise<ParkAccount> {
  const companyCode = /^[0-9]{9}$/.test(process.env.COMPANY_CODE ?? '') ? process.env.COMPANY_CODE! : '000000000'
  const file = path.join(dataDir, 'park-enterprise-password')
  let password = existsSync(file) ? readFileSync(file, 'utf8').trim() : ''
  if (password === '') {
    password = randomBytes(15).toString('base64url')
    await fs.writeFile(file, password + '\n', { mode: 0o600 })
  }
  return { userName: `enterprise-${companyCode}`, password, companyCode }
}

/** The park's admin password, kept across restarts. */
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

function banner(settings: DemoSettings, db: EmbeddedPostgres, park: { password: string; isNew: boolean }, account: ParkAccount): string {
  const { dataDir, pgPort, parkPort, enterprisePort } = settings
  const rel = path.relative(process.cwd(), dataDir) || '.'
  const shown = rel.startsWith('..') ? dataDir : rel
  const passwordFile = path.join(shown, 'park-admin-password')
  const pgData = db.dataDir === path.join(dataDir, 'pg') ? '' : `; its data in ${db.dataDir}`
  const lines = [
    `  enterprise edition  http://localhost:${enterprisePort}   (Swagger UI: http://localhost:${enterprisePort}/docs)`,
    `  park edition        http://localhost:${parkPort}   (Swagger UI: http://localhost:${parkPort}/docs)`,
    `  park login          admin / ${park.isNew ? `${park.password}   (generated; kept in ${passwordFile})` : `password in ${passwordFile}`}`,
    `  pushes as           ${account.userName} (role enterprise, companyCode ${account.companyCode}; password in ${path.join(shown, 'park-enterprise-password')})`,
    `  data                ${shown}/  (PostgreSQL 17 on 127.0.0.1:${pgPort}, databases safety_enterprise and safety_park${pgData})`,
  ]
  if (process.env.ADMIN_PASSWORD && process.env.ADMIN_PASSWORD !== park.password) {
    lines.push(`  note                both editions keep the admin password they were first started with (not ADMIN_PASSWORD)`)
  }
  return ['', ...lines, '  stop with Ctrl+C', '', ''].join('\n')
}

/**
 * Before anything starts: each edition's settings are valid and its port is free. Answers the
 * reason it cannot start, in one line with the fix, or undefined.
 */
async function whyEditionCannotStart(edition: DemoEdition): Promise<string | undefined> {
  let host: string
  try {
    host = loadConfig({ ...edition.env, DATABASE_URL: 'postgresql://127.0.0.1/placeholder' }).host
  } catch (error) {
    if (error instanceof ConfigError) return `${error.message} (for the ${edition.name} edition)`
    throw error
  }
  if (await portIsFree(edition.port, host)) return undefined
  return (
    `port ${edition.port} (${edition.portSetting}, the ${edition.name} edition) is already in use: ` +
    `stop the process listening on it (another npm start?), or set ${edition.portSetting} to a free port`
  )
}

/** Embedded PostgreSQL + park edition + enterprise edition wired to it. */
export async function runDemo(): Promise<void> {
  const settings = await demoSettings()
  const park = await parkAdminPassword(settings.dataDir)
  const account = await parkEnterpriseAccount(settings.dataDir)
  const editions = demoEditions(settings.enterprisePort, settings.parkPort, park.password, account)
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
  process.stdout.write(banner(settings, supervisor.db, park, account))
  // The park first: the enterprise pushes with an account the park must have.
  const [parkEdition, enterpriseEdition] = editions
  supervisor.launch(parkEdition.name, { ...parkEdition.env, DATABASE_URL: urls.get(parkEdition) })
  try {
    await ensureEnterpriseAccount(`http://127.0.0.1:${settings.parkPort}`, park.password, account)
  } catch (err) {
    if (supervisor.shuttingDown) return
    process.stderr.write(`start: ${(err as Error).message}\n`)
    return supervisor.shutdown(1)
  }
  if (supervisor.shuttingDown) return
  supervisor.launch(enterpriseEdition.name, { ...enterpriseEdition.env, DATABASE_URL: urls.get(enterpriseEdition) })
}
