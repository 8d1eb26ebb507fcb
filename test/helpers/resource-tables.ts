// A resource's table, as its migration built it, against its schema in the document: a column per
// field with the type of the field's kind, NOT NULL exactly when `add` requires the field, and the
// columns the store keeps beside them. Used for the nine resources (test/store/prisma-schema.test.ts)
// and for a tenth one (test/operations/tenth-resource.test.ts).
import type pg from 'pg'
import type { OpenApiDocument } from '../../src/contract/openapi-document.ts'
import { type FieldKind, type ResourceDef, SERVER_FIELDS } from '../../src/resources/resource-registry.ts'

interface TestContext {
  same(found: unknown, wanted: unknown, message: string): unknown
}

const COLUMN_TYPE: Record<FieldKind, string> = {
  string: 'text',
  number: 'float8',
  integer: 'int4',
  instant: 'timestamptz',
  date: 'date',
  boolean: 'bool',
}

/** Written by the store (src/store/resource-sql.ts), not by callers: version, tombstone, push bookkeeping. */
const STORE_COLUMNS: Record<string, { type: string; nullable: boolean }> = {
  version: { type: 'int8', nullable: false },
  live: { type: 'bool', nullable: true },
  deleteTime: { type: 'timestamptz', nullable: true },
  sync_attempts: { type: 'int4', nullable: false },
  sync_rounds: { type: 'int4', nullable: false },
  sync_error: { type: 'text', nullable: true },
}

/** Server-kept fields every record has; only sync_time (until the first push) and sync_error (until a push fails) are unset. */
const SERVER_NULLABLE = new Set(['sync_time', 'sync_error'])

export async function checkResourceTable(t: TestContext, pool: pg.Pool, document: OpenApiDocument, resource: ResourceDef): Promise<void> {
  const { rows } = await pool.query<{ column_name: string; udt_name: string; is_nullable: string }>(
    `SELECT column_name, udt_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
    [resource.table],
  )
  const found = Object.fromEntries(rows.map((row) => [row.column_name, { type: row.udt_name, nullable: row.is_nullable === 'YES' }]))
  const required = new Set(document.components.schemas[resource.schemaName].required ?? [])
  const wanted: Record<string, { type: string; nullable: boolean }> = { ...STORE_COLUMNS }
  for (const field of resource.fields) wanted[field.name] = { type: COLUMN_TYPE[field.kind], nullable: !required.has(field.name) }
  for (const field of SERVER_FIELDS) wanted[field.name] = { type: COLUMN_TYPE[field.kind], nullable: SERVER_NULLABLE.has(field.name) }
  t.same(
    Object.keys(found).sort(),
    Object.keys(wanted).sort(),
    `${resource.table}: a column per field of ${resource.schemaName}, and the store's own`,
  )
  for (const [name, column] of Object.entries(wanted)) {
    if (!found[name]) continue
    t.same(found[name], column, `${resource.table}.${name}: type and nullability`)
  }
}
