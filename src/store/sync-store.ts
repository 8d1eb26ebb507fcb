// Push bookkeeping: which records wait to be pushed, their acknowledgement or failure, and the
// counts operators see. A record's `sync_status` goes pending → synced only for the version the
// park acknowledged; a newer write meanwhile keeps it pending. Tombstones are pushed like records.
import type pg from 'pg'
import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import { syncFailedInsert } from './event-sql.ts'
import { literal, NOW, PUSH_AGAIN, quote } from './sql-text.ts'
import type { ApiRecord } from './resource-store.ts'
import { prepared } from './database.ts'

export interface SyncCounts {
  resource: string
  pending: number
  synced: number
  /** False when `synced` is an estimate (more than SYNCED_EXACT_LIMIT synced records). */
  syncedExact: boolean
  failed: number
  oldestPendingSeconds: number | null
}

/** A table whose rows carry the push state: a resource's records (a ResourceDef is one), or its attachments. */
export interface SyncTable {
  /** How status, metrics and failures name it: `riskUnit`, `riskUnit/attachment`. */
  key: string
  table: string
  /** The resource as its path, as events name it: `prevent/riskUnit`, `prevent/riskUnit/attachment`. */
  path: string
}

/** Synced records are counted exactly up to this many per resource, estimated beyond. */
export const SYNCED_EXACT_LIMIT = 10_000

/** A record as pushed (the document's PushedRecord): its fields, the server-kept ones the park keeps too, its version, and whether it is deleted. */
export interface PushItem extends ApiRecord {
  id: string
  companyCode: string
  createTime: string
  updateTime: string
  createBy: string
  updateBy: string
  version: number
  deleted: boolean
}

/** Which failed records SyncStore.requeueFailed queues again. */
export type RequeueWhich = { all: true } | { ids: string[] } | { sweep: { restedSeconds: number; rounds: number } } | { undelivered: true }

/** How the error of a record whose push never reached the park begins (a failed call, not a refusal). */
export const UNDELIVERED = 'not delivered: '

/** A failed record or attachment (a tombstone too), with why. */
export interface FailedItem {
  resource: string
  id: string
  deleted: boolean
  version: number
  sync_error: string | null
  sync_time: Date | null
}

export interface PendingPage {
  items: PushItem[]
  /** Where the next page starts (keyset on updateTime, id): updateTime as text, to the millisecond. */
  cursor: { updateTime: string; id: string } | undefined
}

export class SyncStore {
  private readonly pool: pg.Pool
  private readonly registry: ResourceRegistry

  constructor(options: { pool: pg.Pool; registry: ResourceRegistry }) {
    this.pool = options.pool
    this.registry = options.registry
  }

  /**
   * Up to `limit` pending records (live or deleted ones), oldest write first, and no more than
   * `maxBytes` of them (their text as the database writes it, which their JSON is close to; one
   * record at least): a page of large records stays well under the park's body limit. Read by the
   * index of pending records in this order (migration 095): a page costs its own rows. A live
   * record whose parent is itself pending waits for a later page (after its parent is settled), so
   * a child reaches the park after its parent even when both were written during a drain.
   */
  async pending(
    resource: ResourceDef,
    deleted: boolean,
    limit: number,
    maxBytes: number,
    after?: PendingPage['cursor'],
  ): Promise<PendingPage> {
    const instants = new Set([
      'createTime',
      'updateTime',
      ...resource.fields.filter((field) => field.kind === 'instant').map((field) => field.name),
    ])
    const columns = [...resource.fields.map((field) => field.name), 'companyCode', 'createTime', 'updateTime', 'createBy', 'updateBy']
    // Instants as the push sends them, written by the database (UTC, to the second): parsing them
    // into Dates and formatting them again was a fifth of the enterprise's CPU in a drain.
    const selected = columns.map((column) =>
      instants.has(column) ? pushedInstant(`t.${quote(column)}`, quote(column)) : `t.${quote(column)}`,
    )
    const values: unknown[] = [deleted, limit]
    let keyset = ''
    if (after) {
      values.push(after.updateTime, after.id)
      keyset = ` AND (t."updateTime", t.id) > ($3, $4)`
    }
    const { rows } = await this.pool.query(
      `SELECT ${selected.join(', ')}, t.version, t."updateTime"::text AS "__updateTime", ` +
        `octet_length(t::text) AS "__bytes" FROM ${quote(resource.table)} AS t ` +
        `WHERE sync_status = 'pending' AND (live IS NULL) = $1${keyset}${deleted ? '' : this.parentsSettled(resource)} ` +
        // Qualified: the bare name would be the selected text (to the second), not the column.
        `ORDER BY t."updateTime", t.id LIMIT $2`,
      values,
    )
    let bytes = 0
    const kept = rows.findIndex((row, index) => (bytes += row.__bytes) > maxBytes && index > 0)
    const page = kept === -1 ? rows : rows.slice(0, kept)
    // The record as the push sends it, built once: the columns read are the readable fields but the
    // sync state, their instants already text (copying each row through toApi and two spreads was
    // four objects of some thirty properties per record, and their garbage).
    const items = page.map((row) => {
      const item: Record<string, unknown> = {}
      for (const column of columns) item[column] = row[column] ?? null
      item.version = row.version
      item.deleted = deleted
      return item as PushItem
    })
    const last = page.at(-1)
    // More may follow when the page was cut by count or by bytes.
    const more = last !== undefined && (rows.length === limit || page.length < rows.length)
    return { items, cursor: more ? { updateTime: last.__updateTime, id: last.id } : undefined }
  }

  /** The condition that no parent of the record `t` is pending (by each parent's key). */
  private parentsSettled(resource: ResourceDef): string {
    return resource.references
      .map(
        ({ field, parent }) =>
          ` AND NOT EXISTS (SELECT 1 FROM ${quote(this.registry.get(parent).table)} AS p WHERE p.id = t.${quote(field)} AND p.sync_status = 'pending')`,
      )
      .join('')
  }

  /** Which of these tables hold pending rows (one statement; each answered by its index of pending rows). */
  async pendingTables(targets: { table: string }[]): Promise<Set<string>> {
    // Asked at every drain: prepared, without parameters (planned once per connection).
    const text = targets
      .map(
        (target) =>
          `SELECT ${literal(target.table)}::text AS "table" WHERE EXISTS (SELECT 1 FROM ${quote(target.table)} WHERE sync_status = 'pending')`,
      )
      .join(' UNION ALL ')
    const { rows } = await this.pool.query(prepared(text))
    return new Set(rows.map((row) => row.table as string))
  }

  /**
   * The park's answer to one pushed page, settled in one statement: a record whose pushed version
   * the park now holds is synced; one the park refused, or where it holds another version, is
   * failed with the reason. A record written again meanwhile (another version) stays pending.
   * Answers how many became synced and how many failed.
   */
  async settle(
    resource: SyncTable,
    outcomes: { id: string; version: number; held: number | null; error: string | null }[],
  ): Promise<{ synced: number; failed: number }> {
    if (outcomes.length === 0) return { synced: 0, failed: 0 }
    const reasons = outcomes.map((outcome) =>
      outcome.error !== null
        ? outcome.error.slice(0, 1000)
        : outcome.held === outcome.version
          ? null
          : outcome.held === null
            ? `the park holds no version of this record after the push of version ${outcome.version}`
            : `the park holds version ${outcome.held}, not the pushed version ${outcome.version}`,
    )
    const { rows } = await this.pool.query(
      `WITH ${pushedRows(resource)}, settled AS (UPDATE ${quote(resource.table)} AS t SET ` +
        `sync_status = CASE WHEN pushed.error IS NULL THEN 'synced' ELSE 'failed' END, sync_time = ${NOW}, ` +
        `sync_attempts = CASE WHEN pushed.error IS NULL THEN 0 ELSE t.sync_attempts + 1 END, sync_error = pushed.error, ` +
        `sync_rounds = CASE WHEN pushed.error IS NULL THEN 0 ELSE t.sync_rounds END ` +
        `FROM pushed WHERE ${PUSHED_ROW} RETURNING t.sync_status, t.id, t."companyCode", t.version, t.sync_error), ` +
        `${syncFailedInsert(resource, 'failed_event', `(SELECT * FROM settled WHERE sync_status = 'failed') AS failed`)} ` +
        `SELECT count(*) FILTER (WHERE sync_status = 'synced')::int AS synced, count(*) FILTER (WHERE sync_status = 'failed')::int AS failed FROM settled`,
      [outcomes.map((outcome) => outcome.id), outcomes.map((outcome) => outcome.version), reasons],
    )
    return rows[0]
  }

  /**
   * A push call that did not deliver these items (the park never judged them): one more attempt
   * counted and the error kept, marked UNDELIVERED; `failed` once `maxAttempts` are spent, never
   * with `maxAttempts` null (the park refused the account, not them).
   */
  async recordFailure(
    resource: SyncTable,
    items: { id: string; version: number; error: string }[],
    maxAttempts: number | null,
  ): Promise<void> {
    if (items.length === 0) return
    await this.pool.query(
      `WITH ${pushedRows(resource)}, counted AS (` +
        `UPDATE ${quote(resource.table)} AS t SET sync_attempts = t.sync_attempts + 1, sync_error = pushed.error, ` +
        `sync_status = CASE WHEN t.sync_attempts + 1 >= $4 THEN 'failed' ELSE t.sync_status END, ` +
        // a failed record's sync_time says when it failed (the sweep lets it rest before retrying)
        `sync_time = CASE WHEN t.sync_attempts + 1 >= $4 THEN ${NOW} ELSE t.sync_time END ` +
        `FROM pushed WHERE ${PUSHED_ROW} RETURNING t.sync_status, t.id, t."companyCode", t.version, t.sync_error), ` +
        `${syncFailedInsert(resource, 'failed_event', `(SELECT * FROM counted WHERE sync_status = 'failed') AS failed`)} ` +
        `SELECT count(*) FROM counted`,
      [
        items.map((item) => item.id),
        items.map((item) => item.version),
        items.map((item) => `${UNDELIVERED}${item.error}`.slice(0, 1000)),
        maxAttempts,
      ],
    )
  }

  /** Whether any of these tables holds a pending row (one statement, prepared). */
  async hasPending(resources: SyncTable[]): Promise<boolean> {
    const sql = resources.map((resource) => `SELECT 1 FROM ${quote(resource.table)} WHERE sync_status = 'pending'`).join(' UNION ALL ')
    const text = `SELECT EXISTS (${sql}) AS pending`
    const { rows } = await this.pool.query(prepared(text))
    return rows[0].pending
  }

  /**
   * Per resource: pending and failed counted exactly (they are few, and a partial index holds
   * them); synced counted exactly up to SYNCED_EXACT_LIMIT, beyond it estimated from the table's
   * statistics (`syncedExact` false), so the cost does not grow with the table.
   */
  async counts(resources: SyncTable[]): Promise<SyncCounts[]> {
    const text = resources
      .map((resource) => {
        const table = quote(resource.table)
        const boundedSynced = `(SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE sync_status = 'synced' LIMIT ${SYNCED_EXACT_LIMIT + 1}) AS s)`
        return (
          `SELECT ${literal(resource.key)}::text AS resource, pending, failed, "oldestPendingSeconds", ` +
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
    // Planning this union of every table costs more than running it: a statement
    // without parameters, prepared, is planned once per connection.
    const { rows } = await this.pool.query(prepared(text))
    return rows.map(({ syncedCounted, syncedEstimated, oldestPendingSeconds, ...counts }) => {
      const syncedExact = syncedCounted !== null && syncedCounted <= SYNCED_EXACT_LIMIT
      return {
        ...counts,
        // A write committed while this statement ran can be younger than its transaction's now().
        oldestPendingSeconds: oldestPendingSeconds === null ? null : Math.max(oldestPendingSeconds, 0),
        synced: syncedExact ? syncedCounted : Math.max(syncedEstimated, SYNCED_EXACT_LIMIT + 1),
        syncedExact,
      }
    })
  }

  /**
   * Marks failed records pending again, with a fresh count of attempts:
   * - `all`, or the given `ids`: an operator's retry (the sweep's rounds start over too);
   * - `sweep`: those that failed at least `restedSeconds` ago. A record the park refused is queued
   *   again at most `rounds` times (one the park can never apply stays failed with its reason, not
   *   re-queued forever); one whose pushes never reached the park (UNDELIVERED) every time, without
   *   counting a round: however long the park was away, it is not given up on;
   * - `undelivered`: those whose pushes never reached the park, at once (the park is back).
   */
  async requeueFailed(resources: SyncTable[], which: RequeueWhich): Promise<number> {
    if (resources.length === 0) return 0
    const undelivered = `starts_with(sync_error, ${literal(UNDELIVERED)})`
    // What becomes of the rounds (an operator's retry starts them over; the sweep counts refusals), and which records.
    const [rounds, condition, values]: [string, string, unknown[]] =
      'ids' in which
        ? [`, sync_rounds = 0`, ` AND id = ANY($1::text[])`, [which.ids]]
        : 'sweep' in which
          ? [
              `, sync_rounds = sync_rounds + CASE WHEN ${undelivered} THEN 0 ELSE 1 END`,
              ` AND (sync_rounds < $2 OR ${undelivered}) AND sync_time <= now() - make_interval(secs => $1)`,
              [which.sweep.restedSeconds, which.sweep.rounds],
            ]
          : 'undelivered' in which
            ? ['', ` AND ${undelivered}`, []]
            : [`, sync_rounds = 0`, '', []]
    // Every table in one statement, one round trip (the sweep asks it of 18 tables every minute, and
    // as an edition starts): one data-modifying part per table, each of which runs.
    const parts = resources.map(
      (resource, i) =>
        `r${i} AS (UPDATE ${quote(resource.table)} SET sync_status = 'pending', sync_attempts = 0${rounds} ` +
        `WHERE sync_status = 'failed'${condition} RETURNING 1)`,
    )
    const counted = resources.map((_, i) => `(SELECT count(*) FROM r${i})`).join(' + ')
    const { rows } = await this.pool.query(`WITH ${parts.join(', ')} SELECT (${counted})::int AS n`, values)
    return rows[0].n
  }

  /** Marks these records pending again (reconciliation found the park differs); answers how many. */
  async repush(resource: SyncTable, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0
    const { rowCount } = await this.pool.query(
      `UPDATE ${quote(resource.table)} SET ${PUSH_AGAIN} ` + `WHERE id = ANY($1::text[]) AND sync_status <> 'pending'`,
      [ids],
    )
    return rowCount ?? 0
  }

  /**
   * The failed records and attachments, tombstones included (a deleted record is found by no read
   * but this one), the most recently failed first: at most `limit`, from one statement over every
   * table (prepared; failed rows are few, found by the tables' partial indexes of unsynced rows).
   */
  async failures(resources: SyncTable[], limit: number): Promise<FailedItem[]> {
    if (!Number.isInteger(limit)) throw new Error(`limit must be an integer, got ${limit}`)
    const parts = resources.map(
      (resource) =>
        `(SELECT ${literal(resource.key)}::text AS resource, id, live IS NULL AS deleted, version, sync_error, sync_time ` +
        `FROM ${quote(resource.table)} WHERE sync_status = 'failed' ORDER BY sync_time DESC NULLS LAST LIMIT ${limit})`,
    )
    const text = `SELECT * FROM (${parts.join(' UNION ALL ')}) AS failed ORDER BY sync_time DESC NULLS LAST, resource, id LIMIT ${limit}`
    const { rows } = await this.pool.query(prepared(text))
    return rows
  }

  /** Failed records the sweep no longer queues again (they wait for an operator or a reconciliation). */
  async exhausted(resources: SyncTable[], rounds: number): Promise<number> {
    if (!Number.isInteger(rounds)) throw new Error(`rounds must be an integer, got ${rounds}`)
    const counted = resources
      .map(
        (resource) => `SELECT count(*)::int AS n FROM ${quote(resource.table)} WHERE sync_status = 'failed' AND sync_rounds >= ${rounds}`,
      )
      .join(' UNION ALL ')
    // Prepared and without parameters, as counts().
    const text = `SELECT coalesce(sum(n), 0)::int AS n FROM (${counted}) AS counted`
    const { rows } = await this.pool.query(prepared(text))
    return rows[0].n
  }
}

/**
 * `pushed`: the pushed (id, version, error) of $1, $2, $3, each with the row (ctid) of that version
 * while it is pending, looked up by key one by one. Written so because a backlog just written has
 * no statistics yet: the planner, taking the pending rows for a few dozen, joined the page with
 * every pending row instead of 500 look-ups by key. A row written
 * again or settled meanwhile is left alone (its ctid no longer names a current row version).
 */
function pushedRows(resource: SyncTable): string {
  return (
    `pushed AS MATERIALIZED (SELECT pushed.error, (SELECT t.ctid FROM ${quote(resource.table)} AS t ` +
    `WHERE t.id = pushed.id AND t.version = pushed.version AND t.sync_status = 'pending' LIMIT 1) AS tid ` +
    `FROM unnest($1::text[], $2::bigint[], $3::text[]) AS pushed(id, version, error))`
  )
}

/**
 * The row `t` of a `pushed` entry. The rows are named by their ctids first (a TID scan of those
 * rows), then joined with their entries. Joined on ctid alone, the plan depended on the planner's
 * costs: with PostgreSQL's default cost of a random page read (the pool sets 1.1), it hashed every
 * row of a table whose backlog had no statistics yet (slower as the table grows).
 */
const PUSHED_ROW = `t.ctid = ANY (ARRAY(SELECT tid FROM pushed)) AND t.ctid = pushed.tid`

/** An instant column as a push item carries it: RFC 3339 in UTC, to the second (as the service writes instants back). */
function pushedInstant(column: string, alias: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS ${alias}`
}
