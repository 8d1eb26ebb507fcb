// `list` and `search` requests made valid: each condition names a field of the resource and an
// operator that applies to it, with a value of the field's kind; orderBy names fields; a cursor fits
// the order. What comes out is what the store builds SQL from, without checking it again.
import { isStorableDate, isStorableInstant } from '../contract/storable.ts'
import { isFormat } from '../contract/validation.ts'
import { BusinessError, Code } from '../errors.ts'
import { type FieldDef, type ResourceDef, readableFields } from '../resources/resource-registry.ts'
import { decodeCursor, type SortKey } from '../store/cursor.ts'
import { OWN_RECORDS, type RecordScope } from '../store/record-scope.ts'
import type { Comparison, Condition, SearchQuery } from '../store/resource-sql.ts'
import { type Message, message } from '../messages/message.ts'

/** A search as the caller sends it (the document's search body; list sends pageNum and pageSize only). */
export interface SearchRequest {
  pageNum?: number
  pageSize?: number
  conditions?: { field: string; op: string; value?: unknown }[]
  orderBy?: { field: string; direction?: 'asc' | 'desc' }[]
  /** A `next` cursor of an earlier answer: the page starts after that record (pageNum is ignored). */
  after?: string
}

/** At most this many values in an `in` condition. */
export const IN_LIMIT = 500

const COMPARISONS: readonly string[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] satisfies Comparison[]

/**
 * The request checked against the resource's fields: 1002 naming the first thing wrong. `scope`:
 * whose records are searched (where several enterprises may hold one id, the company code is the
 * last tie-breaker).
 */
export function validSearch(
  resource: Pick<ResourceDef, 'fields' | 'computed'>,
  request: SearchRequest,
  scope: Pick<RecordScope, 'tieBreakers'> = OWN_RECORDS,
): SearchQuery {
  const fields = readableFields(resource)
  const computed = new Set((resource.computed ?? []).map((field) => field.name))
  const field = (name: string, at: string): FieldDef => {
    const found = fields.get(name)
    if (!found) throw new BusinessError(Code.badParameter, message('searchUnknownField', { at, name }))
    return found
  }
  // In this order: the order's fields, the cursor (which must fit the order), then the conditions.
  const keys = (request.orderBy ?? []).map(({ field: name, direction }): SortKey => {
    const { kind } = field(name, 'orderBy')
    if (computed.has(name)) throw new BusinessError(Code.badParameter, message('computedOrdersNothing', { field: name }))
    return { name, kind, desc: direction === 'desc', nullable: true }
  })
  // Without orderBy, list's order (the newest write first); ties broken by id ascending (then, where
  // several enterprises may hold one id, by company code), which makes every order total.
  if (keys.length === 0) keys.push({ name: 'updateTime', kind: 'instant', desc: true, nullable: false })
  keys.push({ name: 'id', kind: 'id', desc: false, nullable: false })
  keys.push(...scope.tieBreakers)
  const cursor = request.after === undefined ? undefined : decodeCursor(request.after, keys)
  const conditions = (request.conditions ?? []).map((condition, index) => {
    const at = `conditions[${index}]`
    if (computed.has(condition.field) && condition.op !== 'eq') {
      throw new BusinessError(Code.badParameter, message('computedEqOnly', { at, field: condition.field }))
    }
    return validCondition(field(condition.field, at), condition, at)
  })
  return { pageNum: request.pageNum ?? 1, pageSize: request.pageSize ?? 20, conditions, keys, cursor }
}

function validCondition(field: FieldDef, condition: { op: string; value?: unknown }, at: string): Condition {
  const { op, value } = condition
  if (op === 'isNull') {
    if (typeof value !== 'boolean') throw new BusinessError(Code.badParameter, message('searchIsNull', { at }))
    return { op, field, value }
  }
  if (op === 'like') {
    if (field.kind !== 'string') throw new BusinessError(Code.badParameter, message('searchLikeText', { at, field: field.name }))
    if (typeof value !== 'string') throw new BusinessError(Code.badParameter, message('searchLikeValue', { at }))
    return { op, field, value }
  }
  if (op === 'in') {
    if (!Array.isArray(value) || value.length === 0 || value.length > IN_LIMIT) {
      throw new BusinessError(Code.badParameter, message('searchInValue', { at, limit: IN_LIMIT }))
    }
    for (const [i, item] of value.entries()) checkValue(field, item, `${at}.value[${i}]`)
    return { op, field, value }
  }
  if (isComparison(op)) {
    checkValue(field, value, `${at}.value`)
    return { op, field, value }
  }
  throw new BusinessError(Code.badParameter, message('searchUnknownOperator', { at, op }))
}

function isComparison(op: string): op is Comparison {
  return COMPARISONS.includes(op)
}

/** The range of the integer fields' column (PostgreSQL's integer). */
const INTEGER_MIN = -(2 ** 31)
const INTEGER_MAX = 2 ** 31 - 1

// Instants and dates as writes take them (the document's formats date-time and date, checked by the
// same functions: a calendar date, no hour 24), and only what PostgreSQL holds and the service
// writes back (years 0001..9999, offsets within ±15:59).
const FITS: Record<FieldDef['kind'], (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  integer: (value) => Number.isInteger(value) && (value as number) >= INTEGER_MIN && (value as number) <= INTEGER_MAX,
  instant: (value) => typeof value === 'string' && isFormat('date-time', value) && isStorableInstant(value),
  date: (value) => typeof value === 'string' && isFormat('date', value) && isStorableDate(value),
  boolean: (value) => typeof value === 'boolean',
}

const EXPECTED: Record<FieldDef['kind'], Message> = {
  string: message('kindString'),
  number: message('kindNumber'),
  integer: message('kindInteger', { min: INTEGER_MIN, max: INTEGER_MAX }),
  instant: message('kindInstant'),
  date: message('kindDate'),
  boolean: message('kindBoolean'),
}

function checkValue(field: FieldDef, value: unknown, at: string): void {
  if (!FITS[field.kind](value))
    throw new BusinessError(Code.badParameter, message('searchValue', { at, expected: EXPECTED[field.kind], field: field.name }))
}
