// The service's pg pools and the helpers every store uses over them, without Prisma: what the
// delivery thread (operations/webhook-delivery-thread.ts) loads of the database layer.
import { createHash } from 'node:crypto'
import pg from 'pg'

// bigint (version) as a number: versions stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))
// Dates (date columns) stay 'YYYY-MM-DD' strings: no time zone may shift them.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value)

/** The pool, or one client inside a transaction (an idempotent write). */
export type Queryable = Pick<pg.Pool, 'query'>

/**
 * A prepared statement's name for a statement text: PostgreSQL parses it once per connection, and
 * plans it once when it takes no parameters (or after a few calls, when a generic plan will do).
 */
export function statementName(sql: string): string {
  return `s-${createHash('sha256').update(sql).digest('base64url').slice(0, 24)}`
}

/**
 * `work` in a transaction on one connection of `pool`: committed when it resolves, rolled back when
 * it throws (a connection whose rollback failed is discarded, not returned to the pool).
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError))
    throw error
  } finally {
    client.release(broken)
  }
}

/** A statement text as a prepared statement (its name from statementName). */
export function prepared(text: string): { name: string; text: string } {
  return { name: statementName(text), text }
}

/** Rows to delete: those of `table` that `where` selects (its parameters `values`), named by `key` (a unique column, or ctid). */
export interface Deletion {
  table: string
  key: string
  where: string
  values?: unknown[]
  /** Deleted first (retention that keeps an unbroken run of the newest); any order when absent. */
  order?: string
  /** Rows per statement. */
  batch: number
  /** Rows of another table naming a deleted row by `column`, deleted in the same statement. */
  dependents?: { table: string; column: string }
}

/**
 * Deletes the rows `batch` at a time, each batch a statement of its own, so that no statement
 * holds its locks long on a large table; answers how many in all.
 */
export async function deleteInBatches(
  db: Queryable,
  { table, key, where, values = [], order, batch, dependents }: Deletion,
): Promise<number> {
  const ordered = order ? ` ORDER BY ${order}` : ''
  const deletion = `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${where}${ordered} LIMIT ${batch})`
  const statement = dependents
    ? `WITH gone AS (${deletion} RETURNING ${key}), dependents AS (DELETE FROM ${dependents.table} ` +
      `WHERE ${dependents.column} IN (SELECT ${key} FROM gone)) SELECT count(*)::int AS n FROM gone`
    : deletion
  let deleted = 0
  for (;;) {
    const result = await db.query<{ n: number }>(statement, values)
    const count = (dependents ? result.rows[0].n : result.rowCount) ?? 0
    deleted += count
    if (count < batch) return deleted
  }
}

export interface DatabaseOptions {
  max?: number
  /** A statement running longer is cancelled by PostgreSQL (DB_STATEMENT_TIMEOUT_MS); 0: none. */
  statementTimeoutMs?: number
  /** Waiting longer for a connection fails (DB_CONNECT_TIMEOUT_MS): an unreachable database answers 503 in bounded time. */
  connectTimeoutMs?: number
  /** No JIT compilation: for a pool of short statements only, which a compile costs more than it saves. */
  noJit?: boolean
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 15_000
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000

/** A pool with the service's settings (background work of its own uses one beside the requests'). */
export function openPool(connectionString: string, options: DatabaseOptions = {}): pg.Pool {
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 20,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // The planner's cost of a random page read as for data in memory or on SSD (PostgreSQL's
    // default, 4, is a spinning disk's). At 4 a push's settle of 500 records by key hash-joined
    // every pending row of a small table instead of probing the primary key 500 times.
    options: `-c random_page_cost=1.1${options.noJit ? ' -c jit=off' : ''}`,
    // PostgreSQL cancels a slow statement; a database that does not answer at all (hung, or the
    // network gone silent) is given up by the client a second later.
    ...(statementTimeoutMs > 0 && { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + 1000 }),
  })
  // A client losing its connection (database restart, pg_terminate_backend) must not crash the
  // process: idle, the pool drops it and the next query opens a new one; checked out (the pool's
  // own listener is off then), its queries fail with the error and the release discards it.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  return pool
}
