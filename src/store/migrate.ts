// Applies the reviewed SQL migrations of prisma/migrations at start, and on the park edition then
// those of prisma/park-migrations (its own key and constraints, tracked in park_schema_version).
// Several instances may start at once: a session-level advisory lock makes them take turns, and the
// later ones find nothing to do.
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import Postgrator from 'postgrator'

const SETS = {
  common: { pattern: fileURLToPath(new URL('../../prisma/migrations/*.do.*.sql', import.meta.url)), table: 'schema_version' },
  park: { pattern: fileURLToPath(new URL('../../prisma/park-migrations/*.do.*.sql', import.meta.url)), table: 'park_schema_version' },
}
const LOCK_KEY = 'safety-platform:migrate'

export type MigrationEdition = 'enterprise' | 'park'

function postgrator(db: pg.Pool | pg.PoolClient, set: keyof typeof SETS): Postgrator {
  return new Postgrator({
    migrationPattern: SETS[set].pattern,
    driver: 'pg',
    schemaTable: SETS[set].table,
    // A migration may take long (an index over millions of rows): no statement timeout for it.
    execQuery: (query: string) => db.query({ text: query, query_timeout: 0 } as never),
  })
}

const setsOf = (edition: MigrationEdition): (keyof typeof SETS)[] => (edition === 'park' ? ['common', 'park'] : ['common'])

export async function migrate(pool: pg.Pool, edition: MigrationEdition = 'enterprise'): Promise<{ from: number; to: number }> {
  const client = await pool.connect()
  try {
    await client.query('SET statement_timeout = 0')
    await client.query({ text: 'SELECT pg_advisory_lock(hashtext($1))', values: [LOCK_KEY], query_timeout: 0 } as never)
    try {
      const common = postgrator(client, 'common')
      const from = Number(await common.getDatabaseVersion())
      for (const set of setsOf(edition)) await postgrator(client, set).migrate()
      return { from, to: Number(await common.getDatabaseVersion()) }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_KEY])
    }
  } finally {
    await client.query('RESET statement_timeout').catch(() => {})
    client.release()
  }
}

/** The newest migration version shipped with this code (what /health/ready expects to find), of each set the edition applies. */
export async function latestMigrationVersion(
  pool: pg.Pool,
  edition: MigrationEdition = 'enterprise',
): Promise<{ expected: number; actual: number }> {
  let result = { expected: 0, actual: 0 }
  for (const set of setsOf(edition)) {
    const migrator = postgrator(pool, set)
    const expected = Number(await migrator.getMaxVersion())
    const actual = Number(await migrator.getDatabaseVersion())
    // A set behind is what readiness reports; otherwise the common set's versions.
    if (set === 'common' || actual < expected) result = { expected, actual }
    if (actual < expected) break
  }
  return result
}
