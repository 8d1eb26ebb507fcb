// Push bookkeeping: which records wait to be pushed, their acknowledgement or failure, and the
// counts operators see. A record's `sync_status` goes pending → synced only for the version the
// park acknowledged; a newer write meanwhile keeps it pending. Tombstones are pushed like records.
import type pg from 'pg'
import type { ResourceDef } from '../resources/resource-registry.ts'
import { quote } from './resource-sql.ts'
import type { ApiRecord, ResourceStore } from './resource-store.ts'

export interface SyncCounts {
  resource: string
  pending: number
  synced: number
  /** False when `synced` is an estimate (more than SYNCED_EXACT_LIMIT synced records). */
  syncedExact: boolean
  failed: number
  oldestPendingSeconds: number | null
}

/** Synced records are counted exactly up to this many per resource, estimated beyond. */
export const SYNCED_EXACT_LIMIT = 10_000

/** A record as pushed: its fields, the server-kept ones the park keeps too, its version, and whether it is deleted. */
export interface PushItem extends ApiRecord {
  id: string
  version: number
  deleted: boolean
}

export interface PendingPage {
  items: PushItem[]
  /** Where the next page starts (keyset on updateTime, id). */
  cursor: { updateTime: Date; id: string } | undefined
}

export class SyncStore {
  private readonly pool: pg.Pool
  private readonly store: ResourceStore

  constructor(options: { pool: pg.Pool; store: ResourceStore }) {
    this.pool = options.pool
    this.store = options.store
  }

  /** Up to `limit` pending records (live or deleted ones), oldest write first. */
  async pending(resource: ResourceDef, deleted: boolean, limit: number, after?: PendingPage['cursor']): Promise<PendingPage> {
    const columns = [
      ...resource.fields.map((field) => field.name),
      'companyCode',
      'createTime',
      'updateTime',
      'createBy',
      'updateBy',
      'sync_status',
      'sync_time',
    ]
    const values: unknown[] = [deleted, limit]
    let keyset = ''
    if (after) {
      values.push(after.updateTime, after.id)
      keyset = ` AND ("updateTime", id) > ($3, $4)`
    }
    const { rows } = await this.pool.query(
      `SELECT ${columns.map(quote).join(', ')}, version, "updateTime" AS "__updateTime" FROM ${quote(resource.table)} ` +
        `WHERE sync_status = 'pending' AND (live IS NULL) = $1${keyset} ORDER BY "updateTime", id LIMIT $2`,
      values,
    )
    const items = rows.map(({ version, __updateTime, ...row }) => {
      const { sync_status, sync_time, ...record } = this.store.toApi(resource, row)
      return { ...record, version, deleted } as PushItem
    })
    const last = rows.at(-1)
    return { items, cursor: rows.length === limit ? { updateTime: last.__updateTime, id: last.id } : undefined }
  }

  /** The park acknowledged these versions: synced, unless a newer write came meanwhile. */
  async acknowledge(resource: ResourceDef, items: { id: string; version: number }[]): Promise<number> {
    if (items.length === 0) return 0
    const { rowCount } = await this.pool.query(
      `UPDATE ${quote(resource.table)} AS t SET sync_status = 'synced', sync_time = now(), sync_attempts = 0, sync_error = NULL ` +
        `FROM unnest($1::text[], $2::bigint[]) AS pushed(id, version) ` +
        `WHERE t.id = pushed.id AND t.version = pushed.version AND t.sync_status <> 'synced'`,
      [items.map((item) => item.id), items.map((item) => item.version)],
    )
    return rowCount ?? 0
  }

  /** A push of these versions failed: one more attempt counted, the error kept; `failed` at the limit. */
  async recordFailure(resource: ResourceDef, items: { id: string; version: number; error: string }[], maxAttempts: number): Promise<void> {
    if (items.length === 0) return
    await this.pool.query(
      `UPDATE ${quote(resource.table)} AS t SET sync_attempts = t.sync_attempts + 1, sync_error = pushed.error, ` +
        `sync_status = CASE WHEN t.sync_attempts + 1 >= $4 THEN 'failed' ELSE t.sync_status END, ` +
        // a failed record's sync_time says when it failed (the sweep lets it rest before retrying)
        `sync_time = CASE WHEN t.sync_attempts + 1 >= $4 THEN now() ELSE t.sync_time END ` +
        `FROM unnest($1::text[], $2::bigint[], $3::text[]) AS pushed(id, version, error) ` +
        `WHERE t.id = pushed.id AND t.version = pushed.version AND t.sync_status = 'pending'`,
      [items.map((item) => item.id), items.map((item) => item.version), items.map((item) => item.error.slice(0, 1000)), maxAttempts],
    )
  }

  async hasPending(resources: ResourceDef[]): Promise<boolean> {
    const sql = resources.map((resource) => `SELECT 1 FROM ${quote(resource.table)} WHERE sync_status = 'pending'`).join(' UNION ALL ')
    const { rows } = await this.pool.query(`SELECT EXISTS (${sql}) AS pending`)
    return rows[0].pending
  }

  /**
   * Per resource: pending and failed counted exactly (they are few, and a partial index holds
   * them); synced counted exactly up to SYNCED_EXACT_LIMIT, beyond it estimated from the table's
   * statistics (`syncedExact` false), so the cost does not grow with the table.
   */
  async counts(resources: ResourceDef[]): Promise<SyncCounts[]> {
    const sql = resources
      .map((resource, i) => {
        const table = quote(resource.table)
        const boundedSynced = `(SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE sync_status = 'synced' LIMIT ${SYNCED_EXACT_LIMIT + 1}) AS s)`
        return (
          `SELECT $${i + 1}::text AS resource, pending, failed, "oldestPendingSeconds", ` +
          `CASE WHEN stats.rows > ${2 * SYNCED_EXACT_LIMIT} THEN NULL ELSE ${boundedSynced} END::int AS "syncedCounted", ` +
          `greatest(stats.rows - pending - failed, 0)::int AS "syncedEstimated" FROM ` +
          `(SELECT count(*) FILTER (WHERE sync_status = 'pending')::int AS pending, ` +
          `count(*) FILTER (WHERE sync_status = 'failed')::int AS failed, ` +
          `extract(epoch FROM now() - min("updateTime") FILTER (WHERE sync_status = 'pending'))::float8 AS "oldestPendingSeconds" ` +
          `FROM ${table} WHERE sync_status <> 'synced') AS unsynced, ` +
          `(SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = '${resource.table}'::regclass) AS stats`
        )
      })
      .join(' UNION ALL ')
    const { rows } = await this.pool.query(
      sql,
      resources.map((resource) => resource.key),
    )
    return rows.map(({ syncedCounted, syncedEstimated, ...counts }) => {
      const syncedExact = syncedCounted !== null && syncedCounted <= SYNCED_EXACT_LIMIT
      return { ...counts, synced: syncedExact ? syncedCounted : Math.max(syncedEstimated, SYNCED_EXACT_LIMIT + 1), syncedExact }
    })
  }

  /**
   * Marks failed records pending again, with a fresh count of attempts: all of them, the given ids,
   * or those that failed at least `restedSeconds` ago.
   */
  async requeueFailed(resources: ResourceDef[], ids?: string[], restedSeconds?: number): Promise<number> {
    let requeued = 0
    for (const resource of resources) {
      const update = `UPDATE ${quote(resource.table)} SET sync_status = 'pending', sync_attempts = 0 WHERE sync_status = 'failed'`
      const { rowCount } = ids
        ? await this.pool.query(`${update} AND id = ANY($1::text[])`, [ids])
        : restedSeconds !== undefined
          ? await this.pool.query(`${update} AND sync_time <= now() - make_interval(secs => $1)`, [restedSeconds])
          : await this.pool.query(update)
      requeued += rowCount ?? 0
    }
    return requeued
  }
}
