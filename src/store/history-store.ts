// Record history (CONTRACT §11). Entries are written by the write's own statement: the SQL here is
// a CTE that the resource store appends to its add, update, delete and applied-push statements, so
// the entry commits with the write in the same round trip. `changes` is computed in SQL
// (history_changes, migration 080) from the rows as jsonb; reads turn stored values into the wire
// form (instants in the configured zone).
import type pg from 'pg'
import { BusinessError, Code } from '../errors.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
import type { InstantFormatter } from './instant-format.ts'

export interface HistoryEntry {
  version: number
  action: 'add' | 'update' | 'delete'
  time: string
  userName: string
  changes: Record<string, [unknown, unknown]>
}

export interface HistoryPage {
  list: HistoryEntry[]
  total: number
  pageNum: number
  pageSize: number
}

export interface HistoryQuery {
  id: string
  /** Needed only when several enterprises hold the id (park edition). */
  companyCode?: string
  pageNum: number
  pageSize: number
}

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`

/** The resource's business fields as an SQL text[] literal (names come from the registry). */
export function historyFields(resource: ResourceDef): string {
  return `ARRAY[${resource.fields.map((field) => literal(field.name)).join(', ')}]::text[]`
}

/**
 * A CTE (`name AS (INSERT INTO record_history ...)`) writing one entry per row of `source`, which
 * must have columns id, "companyCode", version, "updateTime", "updateBy". `action` and `changes`
 * are SQL expressions over `source`'s columns.
 */
export function historyInsert(resource: ResourceDef, name: string, source: string, action: string, changes: string): string {
  return (
    `${name} AS (INSERT INTO record_history (resource, id, "companyCode", version, action, time, "userName", changes) ` +
    `SELECT ${literal(resource.key)}, id, "companyCode", version, ${action}, "updateTime", "updateBy", ${changes} FROM ${source})`
  )
}

/**
 * Park edition: the history CTE of an applied push. `source` is the upsert's RETURNING (with
 * `live` and `__new`, the applied row as jsonb), `old` a CTE holding the row it replaced (`__old`,
 * as the statement's snapshot saw it), empty when the park did not hold the record.
 */
export function pushedHistoryInsert(resource: ResourceDef, name: string, source: string, old: string): string {
  const held = `(SELECT __old FROM ${old} WHERE (__old ->> 'live') IS NOT NULL)`
  return historyInsert(
    resource,
    name,
    source,
    `CASE WHEN live IS NULL THEN 'delete' WHEN ${held} IS NULL THEN 'add' ELSE 'update' END`,
    `CASE WHEN live IS NULL THEN '{}'::jsonb ELSE history_changes(${held}, __new, ${historyFields(resource)}) END`,
  )
}

export class HistoryStore {
  private readonly pool: pg.Pool
  private readonly format: InstantFormatter

  constructor(options: { pool: pg.Pool; format: InstantFormatter }) {
    this.pool = options.pool
    this.format = options.format
  }

  /** A page of one record's entries, newest first. 1004 when the id never existed. */
  async page(resource: ResourceDef, query: HistoryQuery): Promise<HistoryPage> {
    const companyCode = query.companyCode ?? (await this.onlyCompany(resource, query.id))
    const key = [resource.key, query.id, companyCode]
    const [{ rows }, counted] = await Promise.all([
      this.pool.query(
        `SELECT version::int AS version, action, time, "userName", changes FROM record_history ` +
          `WHERE resource = $1 AND id = $2 AND "companyCode" = $3 ORDER BY version DESC LIMIT $4 OFFSET $5`,
        [...key, query.pageSize, (query.pageNum - 1) * query.pageSize],
      ),
      this.pool.query('SELECT count(*)::int AS total FROM record_history WHERE resource = $1 AND id = $2 AND "companyCode" = $3', key),
    ])
    const total: number = counted.rows[0].total
    if (total === 0 && !(await this.recordExists(resource, query.id, companyCode))) throw notFound(query.id)
    return { list: rows.map((row) => this.toApi(resource, row)), total, pageNum: query.pageNum, pageSize: query.pageSize }
  }

  /** Deletes entries older than `days`; answers how many. */
  async prune(days: number): Promise<number> {
    const { rowCount } = await this.pool.query(`DELETE FROM record_history WHERE time < now() - make_interval(days => $1)`, [days])
    return rowCount ?? 0
  }

  /** The one companyCode under which the id has history (or a record); 1002 when several enterprises hold it. */
  private async onlyCompany(resource: ResourceDef, id: string): Promise<string | undefined> {
    const { rows } = await this.pool.query(
      `SELECT DISTINCT "companyCode" FROM (SELECT "companyCode" FROM record_history WHERE resource = $1 AND id = $2 ` +
        `UNION ALL SELECT "companyCode" FROM "${resource.table}" WHERE id = $2) AS held LIMIT 2`,
      [resource.key, id],
    )
    if (rows.length > 1) {
      throw new BusinessError(Code.badParameter, `companyCode: required, several enterprises hold ${resource.key} ${id}`)
    }
    return rows[0]?.companyCode
  }

  /** A record (live or tombstone) written before history was kept has no entries yet: an empty page, not 1004. */
  private async recordExists(resource: ResourceDef, id: string, companyCode: string | undefined): Promise<boolean> {
    if (companyCode === undefined) return false
    const { rowCount } = await this.pool.query(`SELECT 1 FROM "${resource.table}" WHERE id = $1 AND "companyCode" = $2`, [id, companyCode])
    return (rowCount ?? 0) > 0
  }

  /** Changes in the resource's field order, instants in the wire form. */
  private toApi(resource: ResourceDef, row: Record<string, any>): HistoryEntry {
    const changes: HistoryEntry['changes'] = {}
    for (const field of resource.fields) {
      const pair: [unknown, unknown] | undefined = row.changes[field.name]
      if (!pair) continue
      changes[field.name] =
        field.kind === 'instant'
          ? (pair.map((value) => (typeof value === 'string' ? this.format(new Date(value)) : value)) as [unknown, unknown])
          : pair
    }
    return { version: row.version, action: row.action, time: this.format(row.time), userName: row.userName, changes }
  }
}

function notFound(id: string): BusinessError {
  return new BusinessError(Code.notFound, `record not found: ${id}`)
}
