// Applies the reviewed SQL migrations of prisma/migrations at start. Several instances may start at
// once: a session-level advisory lock makes them take turns, and the later ones find nothing to do.
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import Postgrator from 'postgrator'

const MIGRATIONS = fileURLToPath(new URL('../../prisma/migrations/*.do.*.sql', import.meta.url))
const LOCK_KEY = 'safety-platform:migrate'

function postgrator(db: pg.Pool | pg.PoolClient): Postgrator {
  return new Postgrator({
    migrationPattern: MIGRATIONS,
    driver: 'pg',
    schemaTable: 'schema_version',
    // A migration may take long (an index over millions of rows): no statement timeout for it.
    execQuery: (query: string) => db.query({ text: query, query_timeout: 0 } as never),
  })
}

export async function migrate(pool: pg.Pool): Promise<{ from: number; to: number }> {
  const client = await pool.connect()
  try {
    await client.query('SET statement_timeout = 0')
    await client.query({ text: 'SELECT pg_advisory_lock(hashtext($1))', values: [LOCK_KEY], query_timeout: 0 } as never)
    try {
      const migrator = postgrator(client)
      const from = Number(await migrator.getDatabaseVersion())
      await migrator.migrate()
      return { from, to: Number(await migrator.getDatabaseVersion()) }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_KEY])
    }
  } finally {
    await client.query('RESET statement_timeout').catch(() => {})
    client.release()
  }
}

/** The newest migration version shipped with this code (what /health/ready expects to find). */
export async function latestMigrationVersion(pool: pg.Pool): Promise<{ expected: number; actual: number }> {
  const migrator = postgrator(pool)
  const expected = Number(await migrator.getMaxVersion())
  const actual = Number(await migrator.getDatabaseVersion())
  return { expected, actual }
}
