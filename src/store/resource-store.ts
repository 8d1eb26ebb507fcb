// SQL for the generic resource operations, built once per resource from the registry. Column names
// come only from the registry (quoted); every value is a bound parameter. Each write is a single
// statement in autocommit, so the record and its need to be pushed (sync_status 'pending') commit
// together in one round trip; referential rules are the database's own foreign keys.
import type pg from 'pg'
import { isStorableDate, isStorableInstant } from '../contract/storable.ts'
import { BusinessError, Code } from '../http/business-error.ts'
import type { FieldDef, ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import { type InstantFormatter, toSecond } from './instant-format.ts'

export type ApiRecord = Record<string, unknown>

/** Server-kept fields of every record (domain/FIELDS.md), in read order after the business fields. */
export const SERVER_FIELDS: FieldDef[] = [
  { name: 'companyCode', kind: 'string' },
  { name: 'createTime', kind: 'instant' },
  { name: 'updateTime', kind: 'instant' },
  { name: 'createBy', kind: 'string' },
  { name: 'updateBy', kind: 'string' },
  { name: 'sync_status', kind: 'string' },
  { name: 'sync_time', kind: 'instant' },
]

const quote = (name: string) => `"${name}"`

export interface Page {
  list: ApiRecord[]
  /** Exact up to EXACT_TOTAL_LIMIT matches; beyond it the planner's estimate (totalExact false). */
  total: number
  totalExact: boolean
  pageNum: number
  pageSize: number
  /** Keyset cursor of the page after this one (pass it as `after`); null on the last page. */
  next: string | null
}

export interface SearchQuery {
  pageNum: number
  pageSize: number
  conditions: { field: string; op: string; value?: unknown }[]
  orderBy: { field: string; direction?: 'asc' | 'desc' }[]
  /** A `next` cursor of an earlier answer: the page starts after that record (pageNum is ignored). */
  after?: string
}

/** Totals are counted exactly up to this many matches; a larger total is estimated (flagged). */
export const EXACT_TOTAL_LIMIT = 10_000

/** The pool, or one client inside a transaction (an idempotent write). */
export type Queryable = Pick<pg.Pool, 'query'>

export interface WriteContext {
  userName: string
  /** Where the write runs; the pool (autocommit) when absent. */
  db?: Queryable
}

/** The statements of one resource, prepared once. */
class ResourceTable {
  readonly resource: ResourceDef
  readonly readable: Map<string, FieldDef>
  private readonly selectList: string
  private readonly insertSql: string
  private readonly conflictSql: string
  private readonly getSql: string
  private readonly deleteSql: string
  private readonly applyPushedSql: string

  constructor(resource: ResourceDef) {
    this.resource = resource
    const table = quote(resource.table)
    const readable = [...resource.fields, ...SERVER_FIELDS]
    this.readable = new Map(readable.map((field) => [field.name, field]))
    this.selectList = readable.map((field) => quote(field.name)).join(', ')

    const names = resource.fields.map((field) => field.name)
    const n = names.length
    const params = names.map((_, i) => `$${i + 1}`)
    // $n+1: companyCode, $n+2: user name
    this.insertSql =
      `INSERT INTO ${table} (${names.map(quote).join(', ')}, "companyCode", "createTime", "updateTime", "createBy", "updateBy") ` +
      `VALUES (${params.join(', ')}, $${n + 1}, now(), now(), $${n + 2}, $${n + 2}) ON CONFLICT DO NOTHING RETURNING id`
    // Which conflict stopped an insert: unique fields first (1001), then the id (1003), the spec's order.
    const uniqueChecks = resource.uniqueFields.map(
      (field, i) => `EXISTS (SELECT 1 FROM ${table} WHERE live AND ${quote(field)} = $${i + 2}) AS ${quote('unique:' + field)}`,
    )
    this.conflictSql = `SELECT ${[...uniqueChecks, `EXISTS (SELECT 1 FROM ${table} WHERE id = $1) AS "id"`].join(', ')}`
    this.getSql = `SELECT ${this.selectList}, version FROM ${table} WHERE id = $1 AND live`
    // Park edition: a pushed record (or tombstone) replaces the held one only if its version is newer,
    // so a late retry never overwrites newer data; it is stored as synced.
    const pushed = [...names, 'companyCode', 'createTime', 'updateTime', 'createBy', 'updateBy']
    const m = pushed.length
    this.applyPushedSql =
      `INSERT INTO ${table} (${pushed.map(quote).join(', ')}, version, live, "deleteTime", sync_status, sync_time) ` +
      `VALUES (${pushed.map((_, i) => `$${i + 1}`).join(', ')}, $${m + 1}, CASE WHEN $${m + 2}::boolean THEN NULL ELSE true END, ` +
      `CASE WHEN $${m + 2}::boolean THEN $${m - 2}::timestamptz END, 'synced', now()) ` +
      `ON CONFLICT (id) DO UPDATE SET ${[...pushed.slice(1), 'version', 'live', 'deleteTime'].map((name) => `${quote(name)} = EXCLUDED.${quote(name)}`).join(', ')}, ` +
      `sync_status = 'synced', sync_time = now() WHERE ${table}.version < EXCLUDED.version`
    this.deleteSql =
      `UPDATE ${table} SET live = NULL, "deleteTime" = now(), "updateTime" = now(), "updateBy" = $2, ` +
      `version = version + 1, sync_status = 'pending', sync_attempts = 0, sync_error = NULL WHERE id = $1 AND live`
  }

  insert(record: ApiRecord, companyCode: string, userName: string): [string, unknown[]] {
    return [
      this.insertSql,
      [...this.resource.fields.map((field) => this.bind(field.name, record[field.name] ?? null)), companyCode, userName],
    ]
  }

  /** A value as stored: instants to the second. */
  private bind(name: string, value: unknown): unknown {
    return typeof value === 'string' && this.readable.get(name)?.kind === 'instant' ? toSecond(value) : value
  }

  applyPushed(item: ApiRecord): [string, unknown[]] {
    const names = [...this.resource.fields.map((field) => field.name), 'companyCode', 'createTime', 'updateTime', 'createBy', 'updateBy']
    return [this.applyPushedSql, [...names.map((name) => this.bind(name, item[name] ?? null)), item.version, item.deleted === true]]
  }

  conflict(record: ApiRecord): [string, unknown[]] {
    return [this.conflictSql, [record.id, ...this.resource.uniqueFields.map((field) => record[field])]]
  }

  get(id: string): [string, unknown[]] {
    return [this.getSql, [id]]
  }

  delete(id: string, userName: string): [string, unknown[]] {
    return [this.deleteSql, [id, userName]]
  }

  /**
   * One statement: changes the live record only if a sent value differs (so a repeated update is a
   * no-op that pushes nothing), and tells whether the record exists at all. With `expectedVersion`
   * the change applies only to that version (read-check-write under optimistic concurrency).
   */
  update(id: string, patch: ApiRecord, userName: string, expectedVersion?: number): [string, unknown[]] {
    const table = quote(this.resource.table)
    const values: unknown[] = [id, userName]
    const sets: string[] = []
    const changes: string[] = []
    for (const [name, value] of Object.entries(patch)) {
      if (name === 'id') continue
      values.push(this.bind(name, value))
      sets.push(`${quote(name)} = $${values.length}`)
      changes.push(`${quote(name)} IS DISTINCT FROM $${values.length}`)
    }
    let guard = `id = $1 AND live AND (${changes.join(' OR ')})`
    if (expectedVersion !== undefined) {
      values.push(expectedVersion)
      guard += ` AND version = $${values.length}`
    }
    const sql =
      `WITH target AS (SELECT version FROM ${table} WHERE id = $1 AND live), ` +
      `changed AS (UPDATE ${table} SET ${sets.join(', ')}, "updateTime" = now(), "updateBy" = $2, ` +
      `version = version + 1, sync_status = 'pending', sync_attempts = 0, sync_error = NULL WHERE ${guard} RETURNING id) ` +
      `SELECT (SELECT version FROM target) AS version, (SELECT count(*) FROM changed)::int AS changed`
    return [sql, values]
  }

  /** The sort keys of a query: the caller's, then the fixed tie-breakers (updateTime desc, id asc). */
  sortKeys(query: SearchQuery): SortKey[] {
    const keys = query.orderBy.map(({ field, direction }): SortKey => {
      const { name, kind } = this.field(field, 'orderBy')
      return { name, kind, desc: direction === 'desc', nullable: true }
    })
    keys.push(
      { name: 'updateTime', kind: 'instant', desc: true, nullable: false },
      { name: 'id', kind: 'id', desc: false, nullable: false },
    )
    return keys
  }

  /**
   * `list` and `search`: one statement answering the page and the total, the total counted by an
   * uncorrelated sub-query that stops after EXACT_TOTAL_LIMIT + 1 matches (so its cost is bounded
   * whatever the table's size). With a cursor the page starts after the cursor's record (keyset:
   * its cost does not grow with depth); otherwise at pageNum's offset.
   */
  page(query: SearchQuery, keys: SortKey[], cursor: unknown[] | undefined): [string, unknown[]] {
    const values: unknown[] = []
    const where = this.where(query, values)
    const bounded = `(SELECT count(*)::int FROM (SELECT 1 FROM ${quote(this.resource.table)} WHERE ${where} LIMIT ${EXACT_TOTAL_LIMIT + 1}) AS matching)`
    const after = cursor ? ` AND ${keysetAfter(keys, cursor, values)}` : ''
    const order = keys.map((key) => `${sortExpression(key)} ${key.desc ? 'DESC' : 'ASC'}`)
    values.push(query.pageSize)
    let sql =
      `SELECT ${this.selectList}, ${keys.map((key, i) => `${quote(key.name)} AS "__k${i}"`).join(', ')}, ${bounded} AS "__total" ` +
      `FROM ${quote(this.resource.table)} WHERE ${where}${after} ORDER BY ${order.join(', ')} LIMIT $${values.length}`
    if (!cursor) {
      values.push((query.pageNum - 1) * query.pageSize)
      sql += ` OFFSET $${values.length}`
    }
    return [sql, values]
  }

  /** The bounded total alone (a page past the end has no row to carry it). */
  count(query: SearchQuery): [string, unknown[]] {
    const values: unknown[] = []
    const where = this.where(query, values)
    return [
      `SELECT count(*)::int AS total FROM (SELECT 1 FROM ${quote(this.resource.table)} WHERE ${where} LIMIT ${EXACT_TOTAL_LIMIT + 1}) AS matching`,
      values,
    ]
  }

  /** The planner's estimate of the matches (asked only when there are more than EXACT_TOTAL_LIMIT). */
  estimate(query: SearchQuery): [string, unknown[]] {
    const values: unknown[] = []
    const where = this.where(query, values)
    return [`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${quote(this.resource.table)} WHERE ${where}`, values]
  }

  private where(query: SearchQuery, values: unknown[]): string {
    const where = ['live']
    for (const [index, condition] of query.conditions.entries()) where.push(this.condition(condition, index, values))
    return where.join(' AND ')
  }

  private field(name: string, at: string): FieldDef {
    const field = this.readable.get(name)
    if (!field) throw new BusinessError(Code.badParameter, `${at}.field: unknown field ${name}`)
    return field
  }

  private condition(condition: SearchQuery['conditions'][number], index: number, values: unknown[]): string {
    const at = `conditions[${index}]`
    const field = this.field(condition.field, at)
    const column = quote(field.name)
    const { op, value } = condition
    const bind = (bound: unknown) => {
      values.push(bound)
      return `$${values.length}`
    }
    switch (op) {
      case 'isNull':
        if (typeof value !== 'boolean') throw new BusinessError(Code.badParameter, `${at}.value: must be true or false for isNull`)
        return `${column} IS ${value ? '' : 'NOT '}NULL`
      case 'like':
        if (field.kind !== 'string')
          throw new BusinessError(Code.badParameter, `${at}.op: like applies to text fields only, not ${field.name}`)
        if (typeof value !== 'string') throw new BusinessError(Code.badParameter, `${at}.value: must be a string for like`)
        // A literal substring match: % and _ mean themselves (escaped), so trigram indexes apply.
        return `${column} LIKE ${bind(`%${value.replace(/[\\%_]/g, '\\$&')}%`)}`
      case 'in': {
        if (!Array.isArray(value) || value.length === 0 || value.length > 500) {
          throw new BusinessError(Code.badParameter, `${at}.value: must be an array of 1 to 500 values for in`)
        }
        for (const [i, item] of value.entries()) checkValue(field, item, `${at}.value[${i}]`)
        return `${column} = ANY(${bind(value)}::${ARRAY_TYPES[field.kind]})`
      }
      case 'eq':
      case 'ne':
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        checkValue(field, value, `${at}.value`)
        // ne never matches null (as SQL's <>); text compares in code-point order, whatever the locale.
        // Equality means the same under every deterministic collation: no COLLATE there, so the
        // column's indexes apply.
        const operator = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' }[op]
        const collate = field.kind === 'string' && op !== 'eq' && op !== 'ne' ? ' COLLATE "C"' : ''
        return `${column}${collate} ${operator} ${bind(value)}::${SCALAR_TYPES[field.kind]}`
      }
      default:
        throw new BusinessError(Code.badParameter, `${at}.op: unknown operator ${op}`)
    }
  }
}

const SCALAR_TYPES: Record<FieldDef['kind'], string> = {
  string: 'text',
  number: 'double precision',
  integer: 'integer',
  instant: 'timestamptz',
  date: 'date',
}
const ARRAY_TYPES: Record<FieldDef['kind'], string> = {
  string: 'text[]',
  number: 'double precision[]',
  integer: 'integer[]',
  instant: 'timestamptz[]',
  date: 'date[]',
}

/** One key of a page's order. `id` sorts in the database's collation (as its primary key index). */
export interface SortKey {
  name: string
  kind: FieldDef['kind'] | 'id'
  desc: boolean
  nullable: boolean
}

function sortExpression(key: SortKey): string {
  return `${quote(key.name)}${key.kind === 'string' ? ' COLLATE "C"' : ''}`
}

/**
 * Rows strictly after the cursor's values in the order of `keys` (PostgreSQL's default null
 * placement: last ascending, first descending). The first key's bound is also stated alone, so
 * an index on it starts the scan at the cursor instead of at the first row.
 */
function keysetAfter(keys: SortKey[], cursor: unknown[], values: unknown[]): string {
  const bind = (key: SortKey, value: unknown) => {
    values.push(value)
    return `$${values.length}::${key.kind === 'id' ? 'text' : SCALAR_TYPES[key.kind]}`
  }
  const bound = keys.map((key, i) => (cursor[i] === null ? null : bind(key, cursor[i])))
  const equal = (i: number) => (bound[i] === null ? `${quote(keys[i].name)} IS NULL` : `${sortExpression(keys[i])} = ${bound[i]}`)
  const beyond = (i: number) => {
    const key = keys[i]
    const column = sortExpression(key)
    if (bound[i] === null) return key.desc ? `${quote(key.name)} IS NOT NULL` : 'false'
    const strictly = `${column} ${key.desc ? '<' : '>'} ${bound[i]}`
    return key.nullable && !key.desc ? `(${strictly} OR ${quote(key.name)} IS NULL)` : strictly
  }
  const alternatives = keys.map((_, i) => [...keys.slice(0, i).map((__, j) => equal(j)), beyond(i)].join(' AND '))
  const first = keys[0]
  const start =
    bound[0] === null
      ? first.desc
        ? 'true'
        : `${quote(first.name)} IS NULL`
      : `${first.nullable && !first.desc ? `(${sortExpression(first)} >= ${bound[0]} OR ${quote(first.name)} IS NULL)` : `${sortExpression(first)} ${first.desc ? '<=' : '>='} ${bound[0]}`}`
  return `${start} AND (${alternatives.map((alternative) => `(${alternative})`).join(' OR ')})`
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i
const DATE = /^\d{4}-\d{2}-\d{2}$/

function checkValue(field: FieldDef, value: unknown, at: string): void {
  const ok =
    field.kind === 'string'
      ? typeof value === 'string'
      : field.kind === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : field.kind === 'integer'
          ? Number.isInteger(value)
          : field.kind === 'instant'
            ? typeof value === 'string' && INSTANT.test(value) && !Number.isNaN(Date.parse(value)) && isStorableInstant(value)
            : typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value)) && isStorableDate(value)
  if (!ok) {
    const expected = {
      string: 'a string',
      number: 'a number',
      integer: 'an integer',
      instant: 'an ISO 8601 instant with offset',
      date: 'a date YYYY-MM-DD',
    }[field.kind]
    throw new BusinessError(Code.badParameter, `${at}: must be ${expected} for ${field.name}`)
  }
}

export class ResourceStore {
  private readonly pool: pg.Pool
  private readonly registry: ResourceRegistry
  private readonly tables: Map<string, ResourceTable>
  private readonly companyCode: string
  private readonly format: InstantFormatter

  constructor(options: { pool: pg.Pool; registry: ResourceRegistry; companyCode: string; format: InstantFormatter }) {
    this.pool = options.pool
    this.registry = options.registry
    this.companyCode = options.companyCode
    this.format = options.format
    this.tables = new Map(options.registry.all.map((resource) => [resource.key, new ResourceTable(resource)]))
  }

  private table(resource: ResourceDef): ResourceTable {
    return this.tables.get(resource.key)!
  }

  /** Inserts a new record: 1001 when a unique field is taken, 1003 when the id was ever used, 1006 for a missing parent. */
  async add(resource: ResourceDef, record: ApiRecord, context: WriteContext): Promise<void> {
    const table = this.table(resource)
    // A conflicting row can vanish (deleted) between the insert and the look-up: try again then.
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await this.run(resource, table.insert(record, this.companyCode, context.userName), context.db)
      if (inserted.rowCount === 1) return
      const [conflicts] = (await this.run(resource, table.conflict(record), context.db)).rows
      for (const field of resource.uniqueFields) {
        if (conflicts[`unique:${field}`]) throw new BusinessError(Code.duplicateUnique, `${field} already exists: ${record[field]}`)
      }
      if (conflicts.id) throw new BusinessError(Code.idExists, `id already exists: ${record.id}`)
    }
    throw new Error(`insert of ${resource.key} ${record.id} kept conflicting with a vanishing row`)
  }

  /** Park edition: applies one pushed record or tombstone by id, unless the held version is newer. */
  async applyPushed(resource: ResourceDef, item: ApiRecord, db?: Queryable): Promise<void> {
    await this.run(resource, this.table(resource).applyPushed(item), db)
  }

  /** The live record with its version, or undefined. */
  async get(resource: ResourceDef, id: string, db?: Queryable): Promise<{ record: ApiRecord; version: number } | undefined> {
    const { rows } = await this.run(resource, this.table(resource).get(id), db)
    if (rows.length === 0) return undefined
    const { version, ...row } = rows[0]
    return { record: this.toApi(resource, row), version }
  }

  /**
   * Applies a partial update. Returns false when nothing changed (the same values again).
   * With `expectedVersion`, throws VersionConflict when the record moved on meanwhile.
   */
  async update(resource: ResourceDef, id: string, patch: ApiRecord, context: WriteContext, expectedVersion?: number): Promise<boolean> {
    const fields = Object.keys(patch).filter((name) => name !== 'id')
    if (fields.length === 0) {
      if (!(await this.get(resource, id, context.db))) throw notFound(id)
      return false
    }
    const { rows } = await this.run(resource, this.table(resource).update(id, patch, context.userName, expectedVersion), context.db)
    const [{ version, changed }] = rows
    if (version === null) throw notFound(id)
    if (changed === 0 && expectedVersion !== undefined && version !== expectedVersion) throw new VersionConflict()
    return changed === 1
  }

  /** Tombstones a live record; deleting a missing or deleted one is a success. 1012 while live children name it. */
  async delete(resource: ResourceDef, id: string, context: WriteContext): Promise<void> {
    await this.run(resource, this.table(resource).delete(id, context.userName), context.db)
  }

  async page(resource: ResourceDef, query: SearchQuery): Promise<Page> {
    const table = this.table(resource)
    const keys = table.sortKeys(query)
    const cursor = query.after === undefined ? undefined : decodeCursor(query.after, keys)
    const { rows } = await this.run(resource, table.page(query, keys, cursor))
    let total: number = rows[0]?.__total ?? (await this.run(resource, table.count(query))).rows[0].total
    const totalExact = total <= EXACT_TOTAL_LIMIT
    if (!totalExact) {
      const [{ 'QUERY PLAN': plan }] = (await this.run(resource, table.estimate(query))).rows
      total = Math.max(Math.round(plan[0].Plan['Plan Rows']), EXACT_TOTAL_LIMIT + 1)
    }
    const last = rows.length === query.pageSize ? rows[rows.length - 1] : undefined
    return {
      list: rows.map((row) => this.toApi(resource, row)),
      total,
      totalExact,
      pageNum: query.pageNum,
      pageSize: query.pageSize,
      next: last ? encodeCursor(keys.map((_, i) => last[`__k${i}`])) : null,
    }
  }

  /** Database rows to the wire shape: instants in the configured zone, every field present. */
  toApi(resource: ResourceDef, row: Record<string, unknown>): ApiRecord {
    const table = this.table(resource)
    const record: ApiRecord = {}
    for (const [name, field] of table.readable) {
      const value = row[name]
      record[name] = value instanceof Date && field.kind === 'instant' ? this.format(value) : (value ?? null)
    }
    return record
  }

  private async run(resource: ResourceDef, [sql, values]: [string, unknown[]], db: Queryable = this.pool): Promise<pg.QueryResult> {
    try {
      return await db.query(sql, values)
    } catch (error) {
      throw this.translate(resource, error, values)
    }
  }

  /** Database refusals that are the caller's doing become business errors; the rest stay errors. */
  private translate(resource: ResourceDef, error: unknown, values: unknown[]): unknown {
    const pgError = error as { code?: string; constraint?: string; table?: string; detail?: string }
    switch (pgError.code) {
      case '23503': {
        // Composite foreign keys are named <child table>_<field>_ref.
        const child = this.registry.all.find((candidate) => candidate.table === pgError.table)
        const field = pgError.constraint?.replace(`${pgError.table}_`, '').replace(/_ref$/, '')
        const reference = child?.references.find((candidate) => candidate.field === field)
        if (child && reference && child.key === resource.key) {
          const missing = /\(([^,]*), t\)/.exec(pgError.detail ?? '')?.[1] ?? ''
          return new BusinessError(Code.missingReference, `${reference.field}: referenced ${reference.parent} ${missing} does not exist`)
        }
        if (child && reference) {
          return new BusinessError(
            Code.stillReferenced,
            `${resource.key} ${values[0]} is still referenced by ${child.key}.${reference.field}`,
          )
        }
        return error
      }
      case '23505': {
        const field = resource.uniqueFields.find((name) => pgError.detail?.includes(`("${name}")`) || pgError.detail?.includes(`(${name})`))
        return field ? new BusinessError(Code.duplicateUnique, `${field} already exists`) : error
      }
      case '22007':
      case '22008':
      case '22003':
      case '22P02':
        return new BusinessError(Code.badParameter, `a value is out of range: ${pgError.code === '22003' ? 'number' : 'date or time'}`)
      default:
        return error
    }
  }
}

export class VersionConflict extends Error {}

/** A cursor is the last record's sort values, opaque to callers (base64url of JSON). */
function encodeCursor(values: unknown[]): string {
  return Buffer.from(JSON.stringify(values.map((value) => (value instanceof Date ? value.toISOString() : value)))).toString('base64url')
}

function decodeCursor(cursor: string, keys: SortKey[]): unknown[] {
  let values: unknown
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    values = undefined
  }
  const fits =
    Array.isArray(values) &&
    values.length === keys.length &&
    values.every((value, i) => {
      if (value === null) return keys[i].nullable
      const kind = keys[i].kind
      if (kind === 'number') return typeof value === 'number' && Number.isFinite(value)
      if (kind === 'integer') return Number.isSafeInteger(value)
      if (kind === 'instant') return typeof value === 'string' && !Number.isNaN(Date.parse(value))
      return typeof value === 'string' && !value.includes('\u0000')
    })
  if (!fits)
    throw new BusinessError(
      Code.badParameter,
      'after: not a cursor of this query (pass the `next` of the previous page, with the same orderBy)',
    )
  return values as unknown[]
}

function notFound(id: string): BusinessError {
  return new BusinessError(Code.notFound, `record not found: ${id}`)
}
