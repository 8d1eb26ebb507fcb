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

/**
 * Applied migrations whose comments were reworded later, their SQL unchanged: [version, the
 * checksum recorded for the old text, the new text's]. postgrator refuses to start on a checksum
 * that differs, so the old one is replaced first (only where it is the one recorded).
 */
export const REWORDED: Record<keyof typeof SETS, [number, string, string][]> = {
  common: [
    [2, 'bef859094ada8f5f661dbfa680eef086', '11a8b96546e42f9d78c458e45707c231'],
    [3, '90ce4e945dd15fbc2cc62c74ce68d7de', 'd79dd0a1355bf4c26044f26f3b33b282'],
    [50, '88bd6ced42e63db5f161f19e8c42bee8', '188e39e0aaf0fddd6cb2d89ee78ea8c1'],
    [60, '5222a51ba2ac0456631317b5ef85d82b', '243a81c7e7ca928398e7b7211ad12568'],
    [61, '2d622068b7712f1bd2dae4ec974fd98e', '61e6e9b98aec0615df1868c65e303e94'],
    [70, '039f18d8b5432cad30630b921f31ad99', '2db6b988f6c6594667217c87f0e5a95b'],
    [80, 'a3c782232050ad27c281b3b9cb764f9c', '1d5573374f9d441ac66a5e33b2d3e0db'],
    [81, '7b532e000e51587b2ed306566dea6910', 'ba78420864424d53faf7c19e69a014d9'],
  ],
  park: [
    [71, 'a1788be58da86dc3722c68333be5aeb0', '268835586cdb6082991e8f08959f0349'],
    [72, '39880d29208ba7f5054f72bc94744811', '3fbd4f6c2cf15f5d909502b2e724956e'],
  ],
}

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
      for (const set of setsOf(edition)) {
        await recordRewording(client, set)
        await postgrator(client, set).migrate()
      }
      return { from, to: Number(await common.getDatabaseVersion()) }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_KEY])
    }
  } finally {
    await client.query('RESET statement_timeout').catch(() => {})
    client.release()
  }
}

async function recordRewording(client: pg.PoolClient, set: keyof typeof SETS): Promise<void> {
  const table = SETS[set].table
  const { rows } = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [table])
  if (!rows[0].present) return
  for (const [version, before, now] of REWORDED[set]) {
    await client.query(`UPDATE ${table} SET md5 = $3 WHERE version = $1 AND md5 = $2`, [version, before, now])
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
