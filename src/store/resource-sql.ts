// SQL for the generic resource operations, built once per resource from the registry: pure, no
// database. Column names come only from the registry (quoted); every value is a bound parameter.
// Searches arrive valid (domain/search.ts): fields known, operators fitting, values of the field's
// kind. Each write is a single statement, so the record and its need to be pushed (sync_status
// 'pending') commit together in one round trip.
import { type FieldDef, type ResourceDef, readableFields } from '../resources/resource-registry.ts'
import type { SortKey } from './cursor.ts'
import { eventAppend } from './event-sql.ts'
import { addedFields, historyFields, historyInsert } from './history-sql.ts'
import { literal, NOW, PUSH_AGAIN, quote } from './sql-text.ts'
import { toSecond } from './instant-format.ts'

export type ApiRecord = Record<string, unknown>

export type Comparison = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'

/** One condition of a search, already valid for its field. */
export type Condition =
  | { op: 'isNull'; field: FieldDef; value: boolean }
  | { op: 'like'; field: FieldDef; value: string }
  | { op: 'in'; field: FieldDef; value: unknown[] }
  | { op: Comparison; field: FieldDef; value: unknown }

export interface SearchQuery {
  pageNum: number
  pageSize: number
  conditions: Condition[]
  /** The order: the caller's keys, then the fixed tie-breakers. */
  keys: SortKey[]
  /** The sort values of the record the page starts after (a decoded `after`); pageNum is ignored then. */
  cursor: unknown[] | undefined
}

/** Totals are counted exactly up to this many matches; a larger total is estimated (flagged). */
export const EXACT_TOTAL_LIMIT = 10_000
/** Where the planner expects this many matches or more, the total is its estimate: nothing is counted. */
export const ESTIMATE_ONLY_FROM = 100_000

/** How a total is had: counted up to EXACT_TOTAL_LIMIT + 1 matches, or the live records of one enterprise as the park keeps them. */
export type Total = 'bounded' | { enterprise: string }

/** The statements of one resource, prepared once. */
export class ResourceTable {
  readonly resource: ResourceDef
  readonly readable: Map<string, FieldDef>
  private readonly selectList: string
  private readonly insertSql: string
  private readonly insertOrNothingSql: string
  private readonly insertManySql: string
  private readonly updateManySql: string
  private readonly deleteManySql: string
  private readonly fieldNames: Set<string>
  private readonly conflictSql: string
  private readonly getSql: string
  private readonly deleteSql: string
  private readonly findSql: string

  /** The SQL of each computed field (`overdue`), read and searched as if a column. */
  private readonly computed: ReadonlyMap<string, string>

  constructor(resource: ResourceDef, computed: ReadonlyMap<string, string> = new Map()) {
    this.resource = resource
    this.computed = computed
    const table = quote(resource.table)
    this.readable = readableFields(resource)
    this.selectList = [...this.readable.keys()]
      .map((name) => (computed.has(name) ? `(${computed.get(name)}) AS ${quote(name)}` : quote(name)))
      .join(', ')

    const names = resource.fields.map((field) => field.name)
    const n = names.length
    const params = names.map((_, i) => `$${i + 1}`)
    // $n+1: companyCode, $n+2: user name
    // The record alone: its add's history entry is the record's first version itself (createTime,
    // createBy, its values walked back through the later entries), read as such by
    // history-store.ts, so an add writes one row, not two. Outside a transaction the plain insert
    // (a conflict is an error, told by the conflict check); inside one, where an error would end
    // the transaction, ON CONFLICT DO NOTHING (which probes every unique index first).
    // Its event is appended by the same statement (the statement's row count: the records added).
    const insert =
      `INSERT INTO ${table} (${names.map(quote).join(', ')}, "companyCode", "createTime", "updateTime", "createBy", "updateBy") ` +
      `VALUES (${params.join(', ')}, $${n + 1}, ${NOW}, ${NOW}, $${n + 2}, $${n + 2})`
    this.insertSql = withAddedEvent(resource, insert)
    this.insertOrNothingSql = withAddedEvent(resource, `${insert} ON CONFLICT DO NOTHING`)
    // Several adds at once (store/gathered-writes.ts): the same rows, read from one JSON array
    // whose items hold each record's fields as bound alone and its author (`__by`).
    const definition = [...resource.fields.map((field) => `${quote(field.name)} ${SCALAR_TYPES[field.kind]}`), '__by text']
    this.insertManySql = withAddedEvent(
      resource,
      `INSERT INTO ${table} (${names.map(quote).join(', ')}, "companyCode", "createTime", "updateTime", "createBy", "updateBy") ` +
        `SELECT ${names.map(quote).join(', ')}, $2, ${NOW}, ${NOW}, __by, __by FROM json_to_recordset($1::json) AS added(${definition.join(', ')})`,
    )
    this.updateManySql = updateManyStatement(resource)
    this.fieldNames = new Set(names)
    // Which conflict stopped an insert: unique fields first (1001), then the id (1003), the documented order.
    const uniqueChecks = resource.uniqueFields.map(
      (field, i) => `EXISTS (SELECT 1 FROM ${table} WHERE live AND ${quote(field)} COLLATE "C" = $${i + 2}) AS ${quote('unique:' + field)}`,
    )
    this.conflictSql = `SELECT ${[...uniqueChecks, `EXISTS (SELECT 1 FROM ${table} WHERE id = $1) AS "id"`].join(', ')}`
    this.getSql = `SELECT ${this.selectList}, version FROM ${table} WHERE id = $1 AND live`
    // getById by id and, when given, companyCode: on the park several enterprises may hold one id.
    this.findSql = `SELECT ${this.selectList} FROM ${table} WHERE id = $1 AND live AND ($2::text IS NULL OR "companyCode" = $2) LIMIT 2`
    this.deleteSql =
      `WITH deleted AS (UPDATE ${table} SET live = NULL, "deleteTime" = ${NOW}, "updateTime" = ${NOW}, "updateBy" = $2, ` +
      `version = version + 1, ${PUSH_AGAIN} WHERE id = $1 AND live ` +
      `RETURNING id, "companyCode", version, "updateTime", "updateBy"), ` +
      `${historyInsert(resource, 'history', 'deleted', `'delete'`, `'{}'::jsonb`)} SELECT id FROM deleted`
    // Several deletes at once (store/gathered-writes.ts), each as alone; the records locked in id order,
    // FOR UPDATE: a delete changes live, part of the key children reference.
    this.deleteManySql =
      `WITH items AS (SELECT * FROM json_to_recordset($1::json) AS items(id text, __by text)), ` +
      `target AS (SELECT id AS __id FROM ${table} WHERE id IN (SELECT id FROM items) AND live ORDER BY id FOR UPDATE), ` +
      `deleted AS (UPDATE ${table} SET live = NULL, "deleteTime" = ${NOW}, "updateTime" = ${NOW}, "updateBy" = items.__by, ` +
      `version = ${table}.version + 1, ${PUSH_AGAIN} ` +
      `FROM target JOIN items ON items.id = target.__id WHERE ${table}.id = target.__id AND ${table}.live ` +
      `RETURNING ${table}.id, ${table}."companyCode", ${table}.version, ${table}."updateTime", ${table}."updateBy"), ` +
      `${historyInsert(resource, 'history', 'deleted', `'delete'`, `'{}'::jsonb`)} SELECT count(*) FROM deleted`
  }

  /** The statements whose text never changes (prepared once per connection by the store). */
  fixedStatements(): string[] {
    return [
      this.insertSql,
      this.insertOrNothingSql,
      this.insertManySql,
      this.updateManySql,
      this.deleteManySql,
      this.conflictSql,
      this.getSql,
      this.findSql,
      this.deleteSql,
    ]
  }

  /** The insert of a new record; `orNothing` (in a transaction): a conflict inserts nothing instead of failing. */
  insert(record: ApiRecord, companyCode: string, userName: string, orNothing = false): [string, unknown[]] {
    return [
      orNothing ? this.insertOrNothingSql : this.insertSql,
      [...this.resource.fields.map((field) => this.bind(field.name, record[field.name] ?? null)), companyCode, userName],
    ]
  }

  /** The inserts of several new records in one statement, each row as its own insert writes it. */
  insertMany(added: { record: ApiRecord; userName: string }[], companyCode: string): [string, unknown[]] {
    const items = added.map(({ record, userName }) => {
      const item: ApiRecord = { __by: userName }
      for (const field of this.resource.fields) item[field.name] = this.bind(field.name, record[field.name] ?? null)
      return item
    })
    return [this.insertManySql, [JSON.stringify(items), companyCode]]
  }

  /** Whether a patch names only the resource's own fields (what updateMany can carry). */
  updatableTogether(patch: ApiRecord): boolean {
    return Object.keys(patch).every((name) => name === 'id' || this.fieldNames.has(name))
  }

  /**
   * The updates of several records (of distinct ids) in one statement, each as its own update
   * writes it. Answers a row per update, in their order: the record's version before (null: no live
   * record) and whether it changed.
   */
  updateMany(updates: { id: string; patch: ApiRecord; userName: string }[]): [string, unknown[]] {
    const items = updates.map(({ id, patch, userName }, n) => {
      const set = Object.keys(patch).filter((name) => name !== 'id')
      const item: ApiRecord = { __n: n, id, __set: set, __by: userName }
      for (const name of set) item[name] = this.bind(name, patch[name])
      return item
    })
    return [this.updateManySql, [JSON.stringify(items)]]
  }

  /** A value as stored (written, or compared with in a search): instants to the second. */
  private bind(name: string, value: unknown): unknown {
    return typeof value === 'string' && this.readable.get(name)?.kind === 'instant' ? toSecond(value) : value
  }

  find(id: string, companyCode: string | undefined): [string, unknown[]] {
    return [this.findSql, [id, companyCode ?? null]]
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

  /** The deletes of several records (of distinct ids) in one statement, each as its own delete writes it. */
  deleteMany(deletes: { id: string; userName: string }[]): [string, unknown[]] {
    return [this.deleteManySql, [JSON.stringify(deletes.map(({ id, userName }) => ({ id, __by: userName })))]]
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
      changes.push(`${table}.${quote(name)} IS DISTINCT FROM $${values.length}`)
    }
    let guard = `${table}.id = target.__id AND ${table}.live AND (${changes.join(' OR ')})`
    if (expectedVersion !== undefined) {
      values.push(expectedVersion)
      guard += ` AND ${table}.version = $${values.length}`
    }
    // The record is locked first (`target` then holds its latest committed state, and is read before
    // the update as the update's join input), so the history entry's old values are exactly those
    // the update replaced. FOR NO KEY UPDATE, the lock of an update that changes neither id nor live
    // (the key children reference): it excludes other writes of the record, not the children's
    // foreign-key checks (KEY SHARE), which FOR UPDATE would wait for.
    const sql =
      `WITH target AS (SELECT id AS __id, version AS __version, to_jsonb(${table}) AS __old FROM ${table} WHERE id = $1 AND live FOR NO KEY UPDATE), ` +
      `changed AS (UPDATE ${table} SET ${sets.join(', ')}, "updateTime" = ${NOW}, "updateBy" = $2, ` +
      `version = ${table}.version + 1, ${PUSH_AGAIN} FROM target WHERE ${guard} ` +
      `RETURNING ${table}.id, ${table}."companyCode", ${table}.version, ${table}."updateTime", ${table}."updateBy", target.__old, to_jsonb(${table}) AS __new), ` +
      `${historyInsert(this.resource, 'history', 'changed', `'update'`, `history_changes(__old, __new, ${historyFields(this.resource)})`)} ` +
      `SELECT (SELECT __version FROM target) AS version, (SELECT count(*) FROM changed)::int AS changed`
    return [sql, values]
  }

  /**
   * `list` and `search`: one statement answering the page and, with `enterprise`, its total (the
   * live records of that enterprise, as the park keeps them). With a cursor the page starts after
   * the cursor's record (keyset: its cost does not grow with depth); otherwise at pageNum's offset.
   */
  page(query: SearchQuery, enterprise?: string): [string, unknown[]] {
    const { keys, cursor } = query
    const values: unknown[] = []
    const where = this.where(query, values)
    const bounded = enterprise === undefined ? 'NULL::int' : this.total({ enterprise }, where, values)
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

  /**
   * The total alone: counted by an uncorrelated sub-query that stops after EXACT_TOTAL_LIMIT + 1
   * matches (so its cost is bounded whatever the table's size), or one enterprise's as the park keeps it.
   */
  count(query: SearchQuery, total: Total): [string, unknown[]] {
    const values: unknown[] = []
    // One enterprise's count names no condition (a parameter the statement does not use would have no type).
    const where = total === 'bounded' ? this.where(query, values) : ''
    return [`SELECT ${this.total(total, where, values)} AS total`, values]
  }

  /**
   * The total of a page: counted up to EXACT_TOTAL_LIMIT + 1 matches, or (park edition) the live
   * records of one enterprise, kept as they are written (park migration 073).
   */
  private total(total: Total, where: string, values: unknown[]): string {
    if (total === 'bounded') {
      return `(SELECT count(*)::int FROM (SELECT 1 FROM ${quote(this.resource.table)} WHERE ${where} LIMIT ${EXACT_TOTAL_LIMIT + 1}) AS matching)`
    }
    values.push(total.enterprise)
    return (
      `coalesce((SELECT live::int FROM park_record_count WHERE "table" = ${literal(this.resource.table)} ` +
      `AND "companyCode" = $${values.length}::text), 0)`
    )
  }

  /** The planner's estimate of the matches (asked only when there are more than EXACT_TOTAL_LIMIT). */
  estimate(query: SearchQuery): [string, unknown[]] {
    const values: unknown[] = []
    const where = this.where(query, values)
    return [`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${quote(this.resource.table)} WHERE ${where}`, values]
  }

  private where(query: SearchQuery, values: unknown[]): string {
    const where = ['live']
    for (const condition of query.conditions) where.push(this.condition(condition, values))
    return where.join(' AND ')
  }

  /** Unique fields are indexed in code-point order (migration 090); other columns in their own collation. */
  private equalityCollation(field: FieldDef): string {
    return field.kind === 'string' && this.resource.uniqueFields.includes(field.name) ? ' COLLATE "C"' : ''
  }

  private condition(condition: Condition, values: unknown[]): string {
    const { field } = condition
    const expression = this.computed.get(field.name)
    const column = expression === undefined ? quote(field.name) : `(${expression})`
    const bind = (bound: unknown) => {
      values.push(bound)
      return `$${values.length}`
    }
    switch (condition.op) {
      case 'isNull':
        return `${column} IS ${condition.value ? '' : 'NOT '}NULL`
      case 'like':
        // A literal substring match: % and _ mean themselves (escaped), so trigram indexes apply.
        return `${column} LIKE ${bind(`%${condition.value.replace(/[\\%_]/g, '\\$&')}%`)}`
      case 'in':
        return `${column}${this.equalityCollation(field)} = ANY(${bind(condition.value.map((item) => this.bind(field.name, item)))}::${ARRAY_TYPES[field.kind]})`
      default: {
        // ne never matches null (as SQL's <>); text compares in code-point order, whatever the locale.
        // Equality means the same under every deterministic collation: it is written in the
        // collation of the column's index, so that the index applies.
        const operator = OPERATORS[condition.op]
        const ordered = field.kind === 'string' && condition.op !== 'eq' && condition.op !== 'ne'
        const collate = ordered ? ' COLLATE "C"' : this.equalityCollation(field)
        return `${column}${collate} ${operator} ${bind(this.bind(field.name, condition.value))}::${SCALAR_TYPES[field.kind]}`
      }
    }
  }
}

/**
 * The statement of ResourceTable.updateMany: the updates come as one JSON array, each item with the
 * names of the fields its patch sets (`__set`), their values, its author and its place (`__n`). Each
 * field keeps its value unless named; a record changes only if a named value differs, as alone. The
 * records are locked in id order (two such statements never wait for each other in a cycle), FOR NO
 * KEY UPDATE (see ResourceTable.update).
 */
function updateManyStatement(resource: ResourceDef): string {
  const table = quote(resource.table)
  const columns = resource.fields.filter((field) => field.name !== 'id')
  const definition = [
    '__n integer',
    'id text',
    '__set text[]',
    '__by text',
    ...columns.map((field) => `${quote(field.name)} ${SCALAR_TYPES[field.kind]}`),
  ]
  const named = (name: string) => `${literal(name)} = ANY (items.__set)`
  const sets = columns.map(
    (field) =>
      `${quote(field.name)} = CASE WHEN ${named(field.name)} THEN items.${quote(field.name)} ELSE ${table}.${quote(field.name)} END`,
  )
  const changes = columns.map(
    (field) => `(${named(field.name)} AND ${table}.${quote(field.name)} IS DISTINCT FROM items.${quote(field.name)})`,
  )
  return (
    `WITH items AS (SELECT * FROM json_to_recordset($1::json) AS items(${definition.join(', ')})), ` +
    `target AS (SELECT id AS __id, version AS __version, to_jsonb(${table}) AS __old FROM ${table} ` +
    `WHERE id IN (SELECT id FROM items) AND live ORDER BY id FOR NO KEY UPDATE), ` +
    `changed AS (UPDATE ${table} SET ${sets.join(', ')}, "updateTime" = ${NOW}, "updateBy" = items.__by, ` +
    `version = ${table}.version + 1, ${PUSH_AGAIN} ` +
    `FROM target JOIN items ON items.id = target.__id WHERE ${table}.id = target.__id AND ${table}.live AND (${changes.join(' OR ')}) ` +
    `RETURNING ${table}.id, ${table}."companyCode", ${table}.version, ${table}."updateTime", ${table}."updateBy", target.__old, to_jsonb(${table}) AS __new), ` +
    `${historyInsert(resource, 'history', 'changed', `'update'`, `history_changes(__old, __new, ${historyFields(resource)})`)} ` +
    `SELECT items.__n, target.__version AS version, (changed.id IS NOT NULL)::int AS changed FROM items ` +
    `LEFT JOIN target ON target.__id = items.id LEFT JOIN changed ON changed.id = items.id ORDER BY items.__n`
  )
}

/**
 * An insert of records followed, in the same statement, by the `record.added` event of each row it
 * inserted (the add's history entry is the row itself: history-store.ts).
 */
function withAddedEvent(resource: ResourceDef, insert: string): string {
  const returning = `RETURNING id, "companyCode", version, "updateTime", ${addedFields(resource, quote(resource.table))} AS __fields`
  return `WITH added AS (${insert} ${returning}) ${eventAppend(resource, 'added', `'record.added'`, '"updateTime"', '__fields')}`
}

const OPERATORS: Record<Comparison, string> = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' }

/** The SQL type of each kind of field (a bound value's cast, a JSON record's column). */
export const SCALAR_TYPES: Record<FieldDef['kind'], string> = {
  string: 'text',
  number: 'double precision',
  integer: 'integer',
  instant: 'timestamptz',
  date: 'date',
  boolean: 'boolean',
}
const ARRAY_TYPES: Record<FieldDef['kind'], string> = {
  string: 'text[]',
  number: 'double precision[]',
  integer: 'integer[]',
  instant: 'timestamptz[]',
  date: 'date[]',
  boolean: 'boolean[]',
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
