// Record history (CONTRACT §11): the read of a record's entries (newest first, values in the wire
// form: instants in the configured zone) and the pruning by age. The entries themselves are written
// by each write's own statement (history-sql.ts).
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

/** A history row as read. `changes` is {field: [old, new]}, or for an add {field: value}. */
interface HistoryRow {
  version: number
  action: HistoryEntry['action']
  time: Date
  userName: string
  changes: Record<string, unknown>
}

export interface HistoryQuery {
  id: string
  /** Needed only when several enterprises hold the id (park edition). */
  companyCode?: string
  pageNum: number
  pageSize: number
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
      this.pool.query<HistoryRow>(
        `SELECT version::int AS version, action, time, "userName", changes FROM record_history ` +
          `WHERE resource = $1 AND id = $2 AND "companyCode" = $3 ORDER BY version DESC LIMIT $4 OFFSET $5`,
        [...key, query.pageSize, (query.pageNum - 1) * query.pageSize],
      ),
      this.pool.query<{ total: number }>(
        'SELECT count(*)::int AS total FROM record_history WHERE resource = $1 AND id = $2 AND "companyCode" = $3',
        key,
      ),
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
    const { rows } = await this.pool.query<{ companyCode: string }>(
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
  private toApi(resource: ResourceDef, row: HistoryRow): HistoryEntry {
    const changes: HistoryEntry['changes'] = {}
    for (const field of resource.fields) {
      // An add is stored as the fields set (history-sql.ts): each is [null, value].
      const stored = row.changes[field.name]
      if (stored === undefined) continue
      const pair: unknown[] = row.action === 'add' ? [null, stored] : Array.isArray(stored) ? stored : [null, stored]
      changes[field.name] = field.kind === 'instant' ? [instant(pair[0], this.format), instant(pair[1], this.format)] : [pair[0], pair[1]]
    }
    return { version: row.version, action: row.action, time: this.format(row.time), userName: row.userName, changes }
  }
}

/** A stored instant (jsonb text) in the wire form; null stays null. */
function instant(value: unknown, format: InstantFormatter): unknown {
  return typeof value === 'string' ? format(new Date(value)) : value
}

function notFound(id: string): BusinessError {
  return new BusinessError(Code.notFound, `record not found: ${id}`)
}
