// prisma/schema.prisma holds only what the Prisma client serves (the models src/ reads through
// `prisma.`), and each of its models agrees with the migrated table (columns, types, nullability).
// The resource tables are not in it: each is checked against its schema in the document instead.

import { readdir, readFile } from 'node:fs/promises'
import t from 'tap'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'
import { ResourceRegistry } from '../../src/resources/resource-registry.ts'
import { openDatabase } from '../../src/store/database.ts'
import { migrate } from '../../src/store/migrate.ts'
import { checkResourceTable } from '../helpers/resource-tables.ts'
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
    `SELECT table_name, column_name, udt_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`,
  )
  const tables = new Map<string, Map<string, { type: string; nullable: boolean }>>()
  for (const row of rows) {
    if (!tables.has(row.table_name)) tables.set(row.table_name, new Map())
    tables.get(row.table_name)!.set(row.column_name, { type: row.udt_name, nullable: row.is_nullable === 'YES' })
  }
  const models = await prismaModels()
  t.ok(models.length > 0)
  for (const model of models) {
    const columns = tables.get(model.table)
    if (!columns) {
      t.fail(`${model.name}: no table ${model.table} in the migrated database`)
      continue
    }
    t.same(model.fields.map((field) => field.name).sort(), [...columns.keys()].sort(), `${model.name}: the same columns`)
    for (const field of model.fields) {
      const column = columns.get(field.name)
      if (!column) continue
      t.equal(column.type, field.date ? 'date' : PRISMA_TO_PG[field.type], `${model.name}.${field.name} type`)
      t.equal(column.nullable, field.optional, `${model.name}.${field.name} nullability`)
    }
  }
})

/** The Prisma client's model accessors src/ uses: `prisma.appUser.…`, `this.prisma.revokedSession.…`. */
async function modelsUsedBySrc(): Promise<Set<string>> {
  const root = new URL('../../src/', import.meta.url)
  const used = new Set<string>()
  for (const file of await readdir(root, { recursive: true })) {
    if (!file.endsWith('.ts')) continue
    const text = await readFile(new URL(file, root), 'utf8')
    for (const [, accessor] of text.matchAll(/\bprisma\.([a-z]\w*)\./g)) used.add(accessor)
  }
  return used
}

t.test('schema.prisma holds only the models src/ reads through the Prisma client, and all of them', async (t) => {
  const declared = (await prismaModels()).map((model) => model.name[0].toLowerCase() + model.name.slice(1)).sort()
  t.same(declared, [...(await modelsUsedBySrc())].sort())
})

t.test('every resource table has the columns of its schema in the document (no Prisma model)', async (t) => {
  const { document } = loadOpenApi()
  const registry = new ResourceRegistry(document)
  const models = new Set((await prismaModels()).map((model) => model.table))
  for (const resource of registry.all) {
    t.notOk(models.has(resource.table), `${resource.table} is served by the store, not by Prisma`)
    await checkResourceTable(t, database.pool, document, resource)
  }
})

t.test('migrations run again find nothing to do (several instances may start at once)', async (t) => {
  const results = await Promise.all([migrate(database.pool), migrate(database.pool)])
  for (const result of results) t.equal(result.from, result.to)
})

t.end()
