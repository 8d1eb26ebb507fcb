// Keyset cursors: a page's `next` is its last record's sort values, opaque to callers (base64url of
// JSON). A cursor is only taken back if it fits the sort keys of the query it is sent with.
import { BusinessError, Code } from '../errors.ts'
import type { FieldKind } from '../resources/resource-registry.ts'

/** One key of a page's order. `id` sorts in the database's collation (as its primary key index). */
export interface SortKey {
  name: string
  kind: FieldKind | 'id'
  desc: boolean
  nullable: boolean
}

export function encodeCursor(values: unknown[]): string {
  return Buffer.from(JSON.stringify(values.map((value) => (value instanceof Date ? value.toISOString() : value)))).toString('base64url')
}

/** The sort values of a cursor, or 1002 when it is not one of a query with these keys. */
export function decodeCursor(cursor: string, keys: SortKey[]): unknown[] {
  let values: unknown
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    values = undefined
  }
  if (!Array.isArray(values) || values.length !== keys.length || !values.every((value, i) => fits(value, keys[i]))) {
    throw new BusinessError(
      Code.badParameter,
      'after: not a cursor of this query (pass the `next` of the previous page, with the same orderBy)',
    )
  }
  return values
}

function fits(value: unknown, key: SortKey): boolean {
  if (value === null) return key.nullable
  if (key.kind === 'number') return typeof value === 'number' && Number.isFinite(value)
  if (key.kind === 'integer') return Number.isSafeInteger(value)
  if (key.kind === 'instant') return typeof value === 'string' && !Number.isNaN(Date.parse(value))
  return typeof value === 'string' && !value.includes('\u0000')
}
