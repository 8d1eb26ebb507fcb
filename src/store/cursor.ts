// Keyset cursors: a page's `next` is its last record's sort values, opaque to callers (base64url of
// JSON). A cursor is only taken back if it fits the sort keys of the query it is sent with.
import { isStorableInstant } from '../contract/storable.ts'
import { BusinessError, Code } from '../errors.ts'
import type { FieldKind } from '../resources/resource-registry.ts'
import { message } from '../messages/message.ts'

/** One key of a page's order. `id` sorts in the database's collation (as its primary key index). */
export interface SortKey {
  name: string
  kind: FieldKind | 'id'
  desc: boolean
  nullable: boolean
}

/** The order a cursor belongs to: its keys' names and directions. */
function orderOf(keys: SortKey[]): string {
  return keys.map((key) => `${key.name} ${key.desc ? 'desc' : 'asc'}`).join(', ')
}

/** The cursor after the record whose sort values are `values`, in the order of `keys`. */
export function encodeCursor(keys: SortKey[], values: unknown[]): string {
  const at = values.map((value) => (value instanceof Date ? value.toISOString() : value))
  return Buffer.from(JSON.stringify({ order: orderOf(keys), at })).toString('base64url')
}

/**
 * The sort values of a cursor, or 1002 when it is not one of a query with these keys: the cursor
 * names its order, so one of another order is refused even when its values would fit.
 */
export function decodeCursor(cursor: string, keys: SortKey[]): unknown[] {
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    decoded = undefined
  }
  const { order, at } = typeof decoded === 'object' && decoded !== null ? (decoded as { order?: unknown; at?: unknown }) : {}
  if (order !== orderOf(keys) || !Array.isArray(at) || at.length !== keys.length || !at.every((value, i) => fits(value, keys[i]))) {
    throw new BusinessError(Code.badParameter, message('notACursor'))
  }
  return at
}

function fits(value: unknown, key: SortKey): boolean {
  if (value === null) return key.nullable
  if (key.kind === 'number') return typeof value === 'number' && Number.isFinite(value)
  if (key.kind === 'integer') return Number.isSafeInteger(value)
  if (key.kind === 'instant') return typeof value === 'string' && isStorableInstant(value)
  return typeof value === 'string' && !value.includes('\u0000')
}
