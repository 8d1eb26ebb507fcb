// Migrations whose comments were reworded after they were applied: a database that applied the
// old text starts as before (its recorded checksums are replaced), and each new checksum is the
// file's as it is, so that a later edit of an applied migration is still refused.
import { createHash } from 'node:crypto'
import { glob, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import t from 'tap'
import { migrate, REWORDED } from '../../src/store/migrate.ts'
import { freshDatabase } from '../helpers/service.ts'

const FOLDERS = { common: 'migrations', park: 'park-migrations' } as const
const TABLES = { common: 'schema_version', park: 'park_schema_version' } as const

async function fileOf(set: keyof typeof FOLDERS, version: number): Promise<string> {
  const folder = fileURLToPath(new URL(`../../prisma/${FOLDERS[set]}/`, import.meta.url))
  for await (const name of glob(`${String(version).padStart(3, '0')}.do.*.sql`, { cwd: folder })) return folder + name
  throw new Error(`no migration ${version} in ${folder}`)
}

t.test('each reworded migration is recorded with the checksum of its file as it is', async (t) => {
  for (const set of ['common', 'park'] as const) {
    for (const [version, , now] of REWORDED[set]) {
      const text = await readFile(await fileOf(set, version), 'utf8')
      t.equal(createHash('md5').update(text, 'utf8').digest('hex'), now, `${set} ${version}`)
    }
  }
})

t.test('a database that applied the old texts starts, and records the new checksums', async (t) => {
  const pool = new pg.Pool({ connectionString: await freshDatabase(t), max: 2 })
  t.teardown(() => pool.end())
  await migrate(pool, 'park')
  for (const set of ['common', 'park'] as const) {
    for (const [version, before] of REWORDED[set])
      await pool.query(`UPDATE ${TABLES[set]} SET md5 = $2 WHERE version = $1`, [version, before])
  }
  await t.resolves(migrate(pool, 'park'))
  for (const set of ['common', 'park'] as const) {
    const { rows } = await pool.query(`SELECT version, md5 FROM ${TABLES[set]} WHERE version = ANY ($1::int[]) ORDER BY version`, [
      REWORDED[set].map(([version]) => version),
    ])
    t.same(
      rows.map((row) => [Number(row.version), row.md5]),
      REWORDED[set].map(([version, , now]) => [version, now]),
    )
  }
})

t.test('another edit of an applied migration is still refused', async (t) => {
  const pool = new pg.Pool({ connectionString: await freshDatabase(t), max: 2 })
  t.teardown(() => pool.end())
  await migrate(pool, 'enterprise')
  await pool.query(`UPDATE schema_version SET md5 = 'not the file' WHERE version = 2`)
  await t.rejects(migrate(pool, 'enterprise'), /checksum failed for migration \[2\]/)
})
