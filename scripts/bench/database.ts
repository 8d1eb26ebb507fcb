// PostgreSQL for the bench: DATABASE_URL (an admin URL) when set, else a throw-away embedded server.
// Each part of the bench creates its own fresh databases (bench_<random>_<name>), dropped at the end.
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../dev/embedded-postgres/index.ts'
import { freePort } from '../dev/ports.ts'
import { type MigrationEdition, migrate } from '../../src/store/migrate.ts'
import { fail, note } from './common.ts'

export class Databases {
  readonly adminUrl: string
  /** How the report names it. */
  readonly shown: string
  private readonly embedded: EmbeddedPostgres | undefined
  private readonly prefix = `bench_${randomBytes(5).toString('hex')}`
  private readonly created: string[] = []

  private constructor(adminUrl: string, shown: string, embedded: EmbeddedPostgres | undefined) {
    this.adminUrl = adminUrl
    this.shown = shown
    this.embedded = embedded
  }

  static async open(): Promise<Databases> {
    if (process.env.DATABASE_URL) {
      const adminUrl = process.env.DATABASE_URL
      return new Databases(adminUrl, `${new URL(adminUrl).host} (DATABASE_URL)`, undefined)
    }
    const port = await freePort()
    note(`starting a throw-away embedded PostgreSQL on port ${port}`)
    const embedded = await startEmbeddedPostgres({
      dataDir: path.join(os.tmpdir(), `bench-pg-${randomBytes(6).toString('hex')}`),
      port,
      persistent: false,
      onUnexpectedExit: (reason) => fail(reason),
    })
    return new Databases(embedded.adminUrl, `127.0.0.1:${port} (embedded, throw-away: fsync off)`, embedded)
  }

  /** A fresh database; with `edition`, migrated as that edition's (src/store/migrate.ts). */
  async create(name: string, edition?: MigrationEdition): Promise<string> {
    const database = `${this.prefix}_${name.replace(/[^a-z0-9_]/g, '_')}`
    await query(this.adminUrl, `CREATE DATABASE ${database}`)
    this.created.push(database)
    const url = new URL(this.adminUrl)
    url.pathname = `/${database}`
    if (edition) await withPool(url.toString(), (pool) => migrate(pool, edition))
    return url.toString()
  }

  async close(): Promise<void> {
    for (const name of this.created.splice(0)) {
      await query(this.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((error) =>
        fail(`could not drop database ${name}: ${(error as Error).message}`),
      )
    }
    await this.embedded?.stop()
  }
}

export async function withPool<T>(url: string, use: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  pool.on('error', () => {})
  try {
    return await use(pool)
  } finally {
    await pool.end().catch(() => {})
  }
}

/** One statement on a connection of its own (no statement timeout). */
export async function query<R extends pg.QueryResultRow = any>(url: string, sql: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  try {
    return (await client.query<R>(sql, values)).rows
  } finally {
    await client.end().catch(() => {})
  }
}

/** A connection kept open for polling. */
export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  return client
}
