// The generic resource operations against the database: the statements of store/resource-sql.ts
// run on the pool (autocommit) or on the caller's transaction, rows read back in the wire shape,
// and the database's refusals (foreign keys, unique indexes, values out of range) turned into
// business errors by constraint name (store/constraints.ts).
import type pg from 'pg'
import { BusinessError, Code } from '../errors.ts'
import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import { computedColumns } from './computed-sql.ts'
import { type Refusal, refusalsByConstraint, translateRefusal } from './constraints.ts'
import { encodeCursor } from './cursor.ts'
import { GatheredWrites } from './gathered-writes.ts'
import { type Queryable, statementName } from './database.ts'
import type { InstantFormatter } from './instant-format.ts'
import { OWN_RECORDS, type RecordScope } from './record-scope.ts'
import { type ApiRecord, ESTIMATE_ONLY_FROM, EXACT_TOTAL_LIMIT, ResourceTable, type SearchQuery } from './resource-sql.ts'
import { message } from '../messages/message.ts'

export type { ApiRecord, SearchQuery } from './resource-sql.ts'

export interface Page {
  list: ApiRecord[]
  /** Exact up to EXACT_TOTAL_LIMIT matches (on the park, one enterprise's records alone: exact at any size); beyond it (or where the planner expects ESTIMATE_ONLY_FROM or more) its estimate (totalExact false). */
  total: number
  totalExact: boolean
  pageNum: number
  pageSize: number
  /** Keyset cursor of the page after this one (pass it as `after`); null on the last page. */
  next: string | null
}

export interface WriteContext {
  userName: string
  /** Where the write runs; the pool (autocommit) when absent. */
  db?: Queryable
}

/** An add as gathered with others: the record and its author. */
interface Added {
  record: ApiRecord
  userName: string
}

/**
 * Adds, updates and deletes of one table run at once outside a transaction; more wait and go together.
 * Alone, a write runs at once; under load each statement carries the writes that arrived meanwhile.
 */
const GATHERED_AT_ONCE = 4
/** The most writes one statement carries, and the most characters of their values. */
const GATHERED_MOST = 200
const GATHERED_MOST_CHARACTERS = 1_000_000

/** An update outside a transaction, as it waits to be gathered; answered with its row of the statement. */
interface Updated {
  id: string
  patch: ApiRecord
  userName: string
}
interface UpdateAnswer {
  version: number | null
  changed: number
}
interface Deleted {
  id: string
  userName: string
}
interface Gatherings {
  adds: GatheredWrites<Added>
  updates: GatheredWrites<Updated, UpdateAnswer>
  deletes: GatheredWrites<Deleted>
}

/**
 * An update's text depends on the fields its patch names. The first UPDATE_SHAPES_PREPARED texts
 * seen are prepared like the statements of fixed text: parsing and planning an update (its lock, its
 * history entry) cost PostgreSQL about as much as running it. Bounded, since each shape prepared is
 * kept by every connection that runs it; clients send few shapes (a whole record, a status).
 */
const UPDATE_SHAPES_PREPARED = 256

/** About the length of a record's values in JSON (its strings' lengths, a few characters per other value). */
function approximateLength(record: ApiRecord): number {
  let length = 0
  for (const key in record) {
    const value = record[key]
    length += key.length + (typeof value === 'string' ? value.length : 8) + 4
  }
  return length
}

/** A write with an expected version found the record at another one (optimistic concurrency). */
export class VersionConflict extends Error {}

export class ResourceStore {
  private readonly pool: pg.Pool
  private readonly tables: Map<string, ResourceTable>
  private readonly refusals: Map<string, Refusal>
  private readonly companyCode: string
  private readonly format: InstantFormatter
  /** The statements prepared (of fixed text, and update shapes), by text: parsed and planned once per connection. */
  private readonly prepared: Map<string, string>
  private updateShapes = 0
  /** Whose records the tables hold: one enterprise's, or many enterprises', counted per enterprise. */
  private readonly scope: RecordScope
  /** The adds, updates and deletes of each table outside a transaction (store/gathered-writes.ts). */
  private readonly gatheredByTable = new Map<ResourceTable, Gatherings>()

  constructor(options: {
    pool: pg.Pool
    registry: Pick<ResourceRegistry, 'all'>
    companyCode: string
    format: InstantFormatter
    /** OWN_RECORDS unless named. */
    scope?: RecordScope
    /** The configured zone (`TZ`): the enterprise's date of computed fields (`overdue`). */
    timeZone?: string
  }) {
    this.pool = options.pool
    this.scope = options.scope ?? OWN_RECORDS
    this.companyCode = options.companyCode
    this.format = options.format
    const computed = (resource: ResourceDef) => computedColumns(resource, options.timeZone ?? '+08:00', this.scope)
    this.tables = new Map(options.registry.all.map((resource) => [resource.key, new ResourceTable(resource, computed(resource))]))
    this.prepared = new Map([...this.tables.values()].flatMap((table) => table.fixedStatements()).map((sql) => [sql, statementName(sql)]))
    this.refusals = refusalsByConstraint(options.registry.all)
  }

  private table(resource: ResourceDef): ResourceTable {
    const table = this.tables.get(resource.key)
    if (!table) throw new Error(`no table for resource ${resource.key}`)
    return table
  }

  /** Inserts a new record: 1001 when a unique field is taken, 1003 when the id was ever used, 1006 for a missing parent. */
  async add(resource: ResourceDef, record: ApiRecord, context: WriteContext): Promise<void> {
    const table = this.table(resource)
    // A conflicting row can vanish (deleted) between the insert and the look-up: try again then.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.inserted(resource, record, context)) return
      const [conflicts] = (await this.run(resource, record, table.conflict(record), context.db)).rows
      for (const field of resource.uniqueFields) {
        if (conflicts[`unique:${field}`])
          throw new BusinessError(Code.duplicateUnique, message('alreadyExistsValue', { field, value: String(record[field]) }))
      }
      if (conflicts.id) throw new BusinessError(Code.idExists, message('alreadyExistsValue', { field: 'id', value: String(record.id) }))
    }
    throw new Error(`insert of ${resource.key} ${record.id} kept conflicting with a vanishing row`)
  }

  /** Whether the record was inserted (false: a unique index or the id refused it; the conflict check tells which, in the documented order). */
  private async inserted(resource: ResourceDef, record: ApiRecord, context: WriteContext): Promise<boolean> {
    const table = this.table(resource)
    if (context.db) {
      return (await this.run(resource, record, table.insert(record, this.companyCode, context.userName, true), context.db)).rowCount === 1
    }
    try {
      await this.gathered(table).adds.run({ record, userName: context.userName })
      return true
    } catch (error) {
      if (isUniqueViolation(error)) return false
      throw translateRefusal(this.refusals, resource, error, record)
    }
  }

  /** The adds, updates and deletes of a table outside a transaction: alone, or under load several in one statement. */
  private gatherings(table: ResourceTable): Gatherings {
    const bounds = { concurrency: GATHERED_AT_ONCE, most: GATHERED_MOST, mostSize: GATHERED_MOST_CHARACTERS }
    return {
      adds: new GatheredWrites<Added>({
        ...bounds,
        size: ({ record }) => approximateLength(record),
        alone: async ({ record, userName }) => void (await this.query(this.pool, table.insert(record, this.companyCode, userName))),
        together: (added) => eachDone(this.query(this.pool, table.insertMany(added, this.companyCode)), added),
      }),
      updates: new GatheredWrites<Updated, UpdateAnswer>({
        ...bounds,
        size: ({ patch }) => approximateLength(patch),
        key: ({ id }) => id,
        alone: (update) => this.updatedAlone(table.resource, update),
        together: async (updates) => (await this.query(this.pool, table.updateMany(updates))).rows,
      }),
      deletes: new GatheredWrites<Deleted>({
        ...bounds,
        size: () => 1,
        key: ({ id }) => id,
        alone: async ({ id, userName }) => void (await this.run(table.resource, { id }, table.delete(id, userName))),
        together: (deletes) => eachDone(this.query(this.pool, table.deleteMany(deletes)), deletes),
      }),
    }
  }

  private gathered(table: ResourceTable): Gatherings {
    let gatherings = this.gatheredByTable.get(table)
    if (!gatherings) this.gatheredByTable.set(table, (gatherings = this.gatherings(table)))
    return gatherings
  }

  /** The live record with its version, or undefined. */
  async get(resource: ResourceDef, id: string, db?: Queryable): Promise<{ record: ApiRecord; version: number } | undefined> {
    const { rows } = await this.run(resource, { id }, this.table(resource).get(id), db)
    if (rows.length === 0) return undefined
    const { version, ...row } = rows[0]
    return { record: this.toApi(resource, row), version }
  }

  /** The live records with this id (of this companyCode when given): at most two, enough to tell one from several. */
  async find(resource: ResourceDef, id: string, companyCode?: string): Promise<ApiRecord[]> {
    const { rows } = await this.run(resource, { id }, this.table(resource).find(id, companyCode))
    return rows.map((row) => this.toApi(resource, row))
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
    const table = this.table(resource)
    const { version, changed } =
      context.db || expectedVersion !== undefined || !table.updatableTogether(patch)
        ? await this.updatedAlone(resource, { id, patch, userName: context.userName }, context.db, expectedVersion)
        : await this.gathered(table)
            .updates.run({ id, patch, userName: context.userName })
            .catch((error: unknown) => {
              throw translateRefusal(this.refusals, resource, error, { ...patch, id })
            })
    if (version === null) throw notFound(id)
    if (changed === 0 && expectedVersion !== undefined && version !== expectedVersion) throw new VersionConflict()
    return changed === 1
  }

  /** One update in its own statement (its text prepared by shape, see UPDATE_SHAPES_PREPARED). */
  private async updatedAlone(
    resource: ResourceDef,
    { id, patch, userName }: Updated,
    db?: Queryable,
    expectedVersion?: number,
  ): Promise<UpdateAnswer> {
    const statement = this.table(resource).update(id, patch, userName, expectedVersion)
    this.prepareUpdateShape(statement[0])
    return (await this.run(resource, { ...patch, id }, statement, db)).rows[0]
  }

  private prepareUpdateShape(sql: string): void {
    if (this.updateShapes >= UPDATE_SHAPES_PREPARED || this.prepared.has(sql)) return
    this.prepared.set(sql, statementName(sql))
    this.updateShapes++
  }

  /** Tombstones a live record; deleting a missing or deleted one is a success. 1012 while live children name it. */
  async delete(resource: ResourceDef, id: string, context: WriteContext): Promise<void> {
    const table = this.table(resource)
    if (context.db) {
      await this.run(resource, { id }, table.delete(id, context.userName), context.db)
      return
    }
    await this.gathered(table)
      .deletes.run({ id, userName: context.userName })
      .catch((error: unknown) => {
        throw translateRefusal(this.refusals, resource, error, { id })
      })
  }

  /**
   * A page of a valid search (domain/search.ts), with its total and the cursor of the next page.
   * - On the park, one enterprise's records alone (`companyCode eq` and nothing else, as an
   *   enterprise account's list) have their exact total from the counts the park keeps: one statement.
   * - Otherwise the page (nothing counted) and the planner's estimate are asked at once, on two
   *   connections. A page by pageNum that is not full tells the exact total itself (every match is
   *   on it or before it), up to EXACT_TOTAL_LIMIT. Where the planner expects ESTIMATE_ONLY_FROM
   *   matches or more, the estimate is the total. Otherwise the matches are counted, up to
   *   EXACT_TOTAL_LIMIT + 1, by a statement of their own (asking for the page again with its count
   *   would cost a second page).
   */
  async page(resource: ResourceDef, query: SearchQuery): Promise<Page> {
    const table = this.table(resource)
    const enterprise = this.scope.countedPerEnterprise ? enterpriseOnly(query) : undefined
    if (enterprise !== undefined) {
      const { rows } = await this.run(resource, {}, table.page(query, enterprise))
      const total = rows[0]?.__total ?? (await this.run(resource, {}, table.count(query, { enterprise }))).rows[0].total
      return this.pageOf(resource, query, rows, total, true)
    }
    const [estimate, uncounted] = await Promise.all([
      this.run(resource, {}, table.estimate(query)),
      this.run(resource, {}, table.page(query)),
    ])
    const planned = Math.round(estimate.rows[0]['QUERY PLAN'][0].Plan['Plan Rows'])
    const before = query.cursor ? undefined : (query.pageNum - 1) * query.pageSize
    const seen = uncounted.rows.length
    if (before !== undefined && seen < query.pageSize && (seen > 0 || before === 0) && before + seen <= EXACT_TOTAL_LIMIT) {
      return this.pageOf(resource, query, uncounted.rows, before + seen, true)
    }
    if (planned >= ESTIMATE_ONLY_FROM) return this.pageOf(resource, query, uncounted.rows, planned, false)
    const counted: number = (await this.run(resource, {}, table.count(query, 'bounded'))).rows[0].total
    const exact = counted <= EXACT_TOTAL_LIMIT
    return this.pageOf(resource, query, uncounted.rows, exact ? counted : planned, exact)
  }

  private pageOf(resource: ResourceDef, query: SearchQuery, rows: Record<string, unknown>[], total: number, totalExact: boolean): Page {
    const last = rows.length === query.pageSize ? rows[rows.length - 1] : undefined
    return {
      list: rows.map((row) => this.toApi(resource, row)),
      // An estimate is never below what exact counting stops at.
      total: totalExact ? total : Math.max(total, EXACT_TOTAL_LIMIT + 1),
      totalExact,
      pageNum: query.pageNum,
      pageSize: query.pageSize,
      next: last
        ? encodeCursor(
            query.keys,
            query.keys.map((_, i) => last[`__k${i}`]),
          )
        : null,
    }
  }

  /** Database rows to the wire shape: instants in the configured zone, every field present. */
  toApi(resource: ResourceDef, row: Record<string, unknown>): ApiRecord {
    const record: ApiRecord = {}
    for (const [name, field] of this.table(resource).readable) {
      const value = row[name]
      record[name] = value instanceof Date && field.kind === 'instant' ? this.format(value) : (value ?? null)
    }
    return record
  }

  /** One statement: the database's refusals of `subject` (what it writes) become business errors. */
  private async run(
    resource: ResourceDef,
    subject: ApiRecord,
    [sql, values]: [string, unknown[]],
    db: Queryable = this.pool,
  ): Promise<pg.QueryResult> {
    try {
      return await this.query(db, [sql, values])
    } catch (error) {
      throw translateRefusal(this.refusals, resource, error, subject)
    }
  }

  /** One statement as it is (a statement of fixed text by its prepared statement). */
  private query(db: Queryable, [sql, values]: [string, unknown[]]): Promise<pg.QueryResult> {
    const name = this.prepared.get(sql)
    return name ? db.query({ name, text: sql, values }) : db.query(sql, values)
  }
}

/** The enterprise whose records alone a search asks for (`companyCode eq`, and no other condition). */
function enterpriseOnly(query: SearchQuery): string | undefined {
  const [first] = query.conditions
  if (first === undefined) return undefined
  const company = (condition: SearchQuery['conditions'][number]) =>
    condition.field.name === 'companyCode' && condition.op === 'eq' && typeof condition.value === 'string' ? condition.value : undefined
  const named = company(first)
  return named !== undefined && query.conditions.every((condition) => company(condition) === named) ? named : undefined
}

/** The answers of writes that have nothing to tell but their success: one each, once the statement ends. */
async function eachDone(statement: Promise<unknown>, writes: unknown[]): Promise<void[]> {
  await statement
  return writes.map(() => undefined)
}

/** 23505: a unique index refused the row. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '23505'
}

function notFound(id: string): BusinessError {
  return new BusinessError(Code.notFound, message('recordNotFound', { id }))
}
