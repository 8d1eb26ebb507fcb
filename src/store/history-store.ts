// Record history: the read of a record's entries (newest first, values in the wire
// form: instants in the configured zone) and the pruning by age. The entries of updates, deletes
// and the park's applied pushes are written by each write's own statement (history-sql.ts). An
// enterprise's add writes no entry row: its entry is the record's first version, which the record
// row itself holds (version 1, createTime, createBy) with its values walked back through the old
// values of the later entries. It is read so only while the record's entries run unbroken from
// version 2 (a record written before history was kept has none) and, with HISTORY_RETENTION_DAYS,
// while its createTime is within the retention (pruning goes oldest first, the add before all).
// The park writes an entry for every push it applies, a record's first among them (its versions
// may skip: those written while the park was away arrive as one); there an add is read from the
// row only for a record pushed before the park wrote adds: at version 1 without any entry, or
// whose first entry is an update of version 2 (a tombstone first received at version 2 has no add).
import type pg from 'pg'
import { BusinessError, Code, severalEnterprises } from '../errors.ts'
import type { FieldDef, ResourceDef } from '../resources/resource-registry.ts'
import type { InstantFormatter } from './instant-format.ts'
import { message } from '../messages/message.ts'

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

/** The record row an add's entry is read from. */
interface FirstVersion {
  version: number
  createTime: Date
  createBy: string
  row: Record<string, unknown>
  withinRetention: boolean
}

export class HistoryStore {
  private readonly pool: pg.Pool
  private readonly format: InstantFormatter
  private readonly retentionDays: number | undefined
  /** Adds have entries of their own (the park's: every applied push writes one), so only a record older than them reads its add from the row. */
  private readonly addsHaveEntries: boolean

  constructor(options: { pool: pg.Pool; format: InstantFormatter; retentionDays?: number; addsHaveEntries?: boolean }) {
    this.pool = options.pool
    this.format = options.format
    this.retentionDays = options.retentionDays
    this.addsHaveEntries = options.addsHaveEntries ?? false
  }

  /** A page of one record's entries, newest first. 1004 when the id never existed. */
  async page(resource: ResourceDef, query: HistoryQuery): Promise<HistoryPage> {
    const companyCode = query.companyCode ?? (await this.onlyCompany(resource, query.id))
    const key = [resource.key, query.id, companyCode]
    const offset = (query.pageNum - 1) * query.pageSize
    // One snapshot: the entries and the record they lead to agree.
    const client = await this.pool.connect()
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      const { rows } = await client.query<HistoryRow>(
        `SELECT version, action, time, "userName", changes FROM record_history ` +
          `WHERE resource = $1 AND id = $2 AND "companyCode" = $3 ORDER BY version DESC LIMIT $4 OFFSET $5`,
        [...key, query.pageSize, offset],
      )
      const [stored] = (
        await client.query<{ total: number; first: number | null; firstAction: string | null; added: boolean | null }>(
          'SELECT count(*)::int AS total, min(version) AS first, (array_agg(action ORDER BY version))[1] AS "firstAction", ' +
            'bool_or(action = $4) AS added FROM record_history ' +
            'WHERE resource = $1 AND id = $2 AND "companyCode" = $3',
          [...key, 'add'],
        )
      ).rows
      const record = companyCode === undefined ? undefined : await this.firstVersion(client, resource, query.id, companyCode)
      if (stored.total === 0 && !record) throw notFound(query.id)
      const implicitAdd =
        record !== undefined &&
        !stored.added &&
        record.withinRetention &&
        (stored.total === 0 ? record.version === 1 : stored.first === 2 && (!this.addsHaveEntries || stored.firstAction === 'update'))
      const list = rows.map((row) => this.toApi(resource, row))
      // The add is the oldest entry: on the page that reaches past the stored ones.
      if (implicitAdd && offset <= stored.total && stored.total < offset + query.pageSize) {
        list.push(this.toApi(resource, await this.addOf(client, resource, key, record)))
      }
      return { list, total: stored.total + (implicitAdd ? 1 : 0), pageNum: query.pageNum, pageSize: query.pageSize }
    } finally {
      // Read only: ending it either way is the same.
      await client.query('ROLLBACK').catch(() => undefined)
      client.release()
    }
  }

  /** The record (live or tombstone) as its add's entry needs it; undefined when there is none. */
  private async firstVersion(
    client: pg.PoolClient,
    resource: ResourceDef,
    id: string,
    companyCode: string,
  ): Promise<FirstVersion | undefined> {
    const { rows } = await client.query<FirstVersion>(
      `SELECT version, "createTime", "createBy", to_jsonb(t) AS row, ` +
        `($3::int IS NULL OR "createTime" >= now() - make_interval(days => $3::int)) AS "withinRetention" ` +
        `FROM "${resource.table}" AS t WHERE id = $1 AND "companyCode" = $2`,
      [id, companyCode, this.retentionDays ?? null],
    )
    return rows[0]
  }

  /** The add's entry: each field's value before its first change (the old value of that change), else as it is now. */
  private async addOf(client: pg.PoolClient, resource: ResourceDef, key: unknown[], record: FirstVersion): Promise<HistoryRow> {
    const { rows } = await client.query<{ changes: Record<string, [unknown, unknown]> }>(
      `SELECT changes FROM record_history WHERE resource = $1 AND id = $2 AND "companyCode" = $3 AND action = 'update' ORDER BY version`,
      key,
    )
    const values: Record<string, unknown> = {}
    for (const field of resource.fields) {
      const first = rows.find(({ changes }) => field.name in changes)
      const value = first ? first.changes[field.name][0] : record.row[field.name]
      if (value !== null && value !== undefined) values[field.name] = value
    }
    return { version: 1, action: 'add', time: record.createTime, userName: record.createBy, changes: values }
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
    if (rows.length > 1) throw severalEnterprises(`${resource.key} ${id}`)
    return rows[0]?.companyCode
  }

  /** Changes in the resource's field order, instants in the wire form. */
  private toApi(resource: ResourceDef, row: HistoryRow): HistoryEntry {
    const changes = changesInWireForm(resource, row.action, row.changes, this.format)
    return { version: row.version, action: row.action, time: this.format(row.time), userName: row.userName, changes }
  }
}

/**
 * An entry's `changes` as stored (an add's: {field: value}; others: {field: [old, new]}) in the wire
 * form: [old, new] per field, in the resource's field order, instants in the configured zone. Record
 * events carry the same (store/event-store.ts).
 */
export function changesInWireForm(
  resource: { fields: readonly FieldDef[] },
  action: HistoryEntry['action'],
  stored: Record<string, unknown>,
  format: InstantFormatter,
): HistoryEntry['changes'] {
  const changes: HistoryEntry['changes'] = {}
  for (const field of resource.fields) {
    // An add is stored as the fields set (history-sql.ts): each is [null, value].
    const value = stored[field.name]
    if (value === undefined) continue
    const pair: unknown[] = action === 'add' ? [null, value] : Array.isArray(value) ? value : [null, value]
    changes[field.name] = field.kind === 'instant' ? [instant(pair[0], format), instant(pair[1], format)] : [pair[0], pair[1]]
  }
  return changes
}

/** A stored instant (jsonb text) in the wire form; null stays null. */
function instant(value: unknown, format: InstantFormatter): unknown {
  return typeof value === 'string' ? format(new Date(value)) : value
}

function notFound(id: string): BusinessError {
  return new BusinessError(Code.notFound, message('recordNotFound', { id }))
}
