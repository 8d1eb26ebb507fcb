// Push bookkeeping visible to operators: counts by resource and sync state, and the re-queueing of
// failed records. Tombstones count too: a delete is pushed like any other write.
import type pg from 'pg'
import type { ResourceDef } from '../resources/resource-registry.ts'

export interface SyncCounts {
  resource: string
  pending: number
  synced: number
  failed: number
  oldestPendingSeconds: number | null
}

export async function syncCounts(pool: pg.Pool, resources: ResourceDef[]): Promise<SyncCounts[]> {
  const sql = resources
    .map(
      (resource, i) =>
        `SELECT $${i + 1}::text AS resource, ` +
        `count(*) FILTER (WHERE sync_status = 'pending')::int AS pending, ` +
        `count(*) FILTER (WHERE sync_status = 'synced')::int AS synced, ` +
        `count(*) FILTER (WHERE sync_status = 'failed')::int AS failed, ` +
        `extract(epoch FROM now() - min("updateTime") FILTER (WHERE sync_status = 'pending'))::float8 AS "oldestPendingSeconds" ` +
        `FROM "${resource.table}"`,
    )
    .join(' UNION ALL ')
  const { rows } = await pool.query(sql, resources.map((resource) => resource.key))
  return rows
}

/** Marks failed records pending again (all, or the given ids); returns how many. */
export async function requeueFailed(pool: pg.Pool, resources: ResourceDef[], ids?: string[]): Promise<number> {
  let requeued = 0
  for (const resource of resources) {
    const { rowCount } = ids
      ? await pool.query(`UPDATE "${resource.table}" SET sync_status = 'pending' WHERE sync_status = 'failed' AND id = ANY($1::text[])`, [ids])
      : await pool.query(`UPDATE "${resource.table}" SET sync_status = 'pending' WHERE sync_status = 'failed'`)
    requeued += rowCount ?? 0
  }
  return requeued
}
