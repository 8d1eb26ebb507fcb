// Applies the reviewed SQL migrations of prisma/migrations at start. Several instances may start at
// once: a session-level advisory lock makes them take turns, and the later ones find nothing to do.
import { fileURLToPath } from 'node:url'
import Postgrator from 'postgrator'
import type pg from 'pg'

const MIGRATIONS = fileURLToPath(new URL('../../prisma/migrations/*.do.*.sql', import.meta.url))
const LOCK_KEY = 'safety-platform:migrate'

export async function migrate(pool: pg.Pool): Promise<{ from: number; to: number }> {
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [LOCK_KEY])
    try {
      const postgrator = new Postgrator({
        migrationPattern: MIGRATIONS,
        driver: 'pg',
        schemaTable: 'schema_version',
        execQuery: (query: string) => client.query(query),
      })
      const from = Number(await postgrator.getDatabaseVersion())
      await postgrator.migrate()
      return { from, to: Number(await postgrator.getDatabaseVersion()) }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_KEY])
    }
  } finally {
    client.release()
  }
}

/** The newest migration version shipped with this code (what /health/ready expects to find). */
export async function latestMigrationVersion(pool: pg.Pool): Promise<{ expected: number; actual: number }> {
  const postgrator = new Postgrator({
    migrationPattern: MIGRATIONS,
    driver: 'pg',
    schemaTable: 'schema_version',
    execQuery: (query: string) => pool.query(query),
  })
  const expected = Number(await postgrator.getMaxVersion())
  const actual = Number(await postgrator.getDatabaseVersion())
  return { expected, actual }
}
