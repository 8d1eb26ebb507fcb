// prisma/schema.prisma (what the Prisma client believes) and the migrated database (what the SQL
// migrations built) must agree: same tables, columns, types and nullability.

import { readFile } from 'node:fs/promises'
import t from 'tap'
import { openDatabase } from '../../src/store/database.ts'
import { migrate } from '../../src/store/migrate.ts'
import { freshDatabase } from '../helpers/service.ts'

interface ModelField {
  name: string
  type: string
  optional: boolean
  date: boolean
}

/** The models of schema.prisma: table name (@@map), scalar fields with type, `?` and @db.Date. */
async function prismaModels(): Promise<{ name: string; table: string; fields: ModelField[] }[]> {
  const text = await readFile(new URL('../../prisma/schema.prisma', import.meta.url), 'utf8')
  return [...text.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)].map(([, name, body]) => ({
    name,
    table: /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? name,
    fields: [...body.matchAll(/^\s+(\w+)\s+(\w+)(\?)?(.*)$/gm)]
      .filter(([, field]) => !field.startsWith('@@'))
      .map(([, field, type, optional, rest]) => ({ name: field, type, optional: optional === '?', date: rest.includes('@db.Date') })),
  }))
}
const url = await freshDatabase(t)
const database = openDatabase(url)
t.after(() => database.close())
await migrate(database.pool)

const PRISMA_TO_PG: Record<string, string> = {
  String: 'text',
  Int: 'int4',
  Float: 'float8',
  Boolean: 'bool',
  BigInt: 'int8',
  DateTime: 'timestamptz',
  Json: 'jsonb',
}

t.test('every Prisma model is a table with the same columns, types and nullability', async (t) => {
  const { rows } = await database.pool.query(
    // History and attachments (migrations 080, 081) are served by their SQL stores only, not by Prisma.
    `SELECT table_name, column_name, udt_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'schema_version' ` +
      `AND table_name <> 'record_history' AND table_name NOT LIKE '%\\_attachment'`,
  )
  const tables = new Map<string, Map<string, { type: string; nullable: boolean }>>()
  for (const row of rows) {
    if (!tables.has(row.table_name)) tables.set(row.table_name, new Map())
    tables.get(row.table_name)!.set(row.column_name, { type: row.udt_name, nullable: row.is_nullable === 'YES' })
  }
  const models = await prismaModels()
  t.equal(models.length, 14)
  t.same(models.map((model) => model.table).sort(), [...tables.keys()].sort(), 'the same tables')
  for (const model of models) {
    const columns = tables.get(model.table)!
    t.same(model.fields.map((field) => field.name).sort(), [...columns.keys()].sort(), `${model.name}: the same columns`)
    for (const field of model.fields) {
      const column = columns.get(field.name)
      if (!column) continue
      t.equal(column.type, field.date ? 'date' : PRISMA_TO_PG[field.type], `${model.name}.${field.name} type`)
      t.equal(column.nullable, field.optional, `${model.name}.${field.name} nullability`)
    }
  }
})

t.test('migrations run again find nothing to do (several instances may start at once)', async (t) => {
  const results = await Promise.all([migrate(database.pool), migrate(database.pool)])
  for (const result of results) t.equal(result.from, result.to)
})

t.end()
