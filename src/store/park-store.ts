// What the park edition does with the records its enterprises push, and the digests
// both editions compute for reconciliation.
// - A pushed page is applied in one statement: the items arrive as one JSON array
//   (json_to_recordset), are upserted by ("companyCode", id) where the held version is older, and
//   the statement answers, per item, the version the park holds afterwards. The enterprise marks a
//   record synced only when that is the version it pushed. It runs in a transaction holding the
//   advisory lock of each enterprise of the page (for the resource): one enterprise's pages apply
//   one after the other, so each statement's snapshot holds the pages before it.
// - Digests: per bucket of ids (the leading hex digits of md5(id)), the number of records and an
//   order-independent sum over (id, version, deleted). Equal digests mean equal holdings without
//   shipping a record; differing buckets are narrowed down and only their (id, version, deleted)
//   listed.
import type pg from 'pg'
import type { FieldDef, ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import { inTransaction, prepared, type Queryable } from './database.ts'
import { addedFields, historyFields, historyInsert } from './history-sql.ts'
import type { ApiRecord } from './resource-store.ts'
import { SCALAR_TYPES } from './resource-sql.ts'
import { NOW, quote } from './sql-text.ts'
import type { SyncTable } from './sync-store.ts'

/** The server-kept fields a push carries (besides version and deleted). */
const PUSHED_SERVER_FIELDS: FieldDef[] = [
  { name: 'companyCode', kind: 'string' },
  { name: 'createTime', kind: 'instant' },
  { name: 'updateTime', kind: 'instant' },
  { name: 'createBy', kind: 'string' },
  { name: 'updateBy', kind: 'string' },
]

/** Digests of the records whose md5(id) begins with each prefix. */
export interface Bucket {
  prefix: string
  count: number
  /** Sum over the bucket's records of 60 bits of md5(id:version:deleted), as a decimal string. */
  digest: string
}

export interface HeldVersion {
  id: string
  version: number
  deleted: boolean
}

/** The lock one enterprise's pushes to one table take (a transaction's; its key a hash of the text). */
const LOCK_SQL = prepared('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))')

/**
 * Takes, in the transaction `db` is in, the locks of these enterprises' pushes to `table` (each
 * once, in a fixed order): pushes of one enterprise to one table apply one after the other.
 */
export async function lockPushes(db: Queryable, table: string, companies: string[]): Promise<void> {
  for (const company of [...new Set(companies)].sort()) await db.query({ ...LOCK_SQL, values: [`${table}/${company}`] })
}

/** Most records one digest call lists (records: true). */
export const DIGEST_RECORDS_LIMIT = 5000

export interface EnterpriseOverview {
  companyCode: string
  accounts: string[]
  lastPushTime: Date | null
  resources: { resource: string; live: number; deleted: number }[]
}

export class ParkStore {
  private readonly pool: pg.Pool
  private readonly registry: ResourceRegistry
  /** Per resource, its page's statement, prepared (planning the statement cost about as much as running it). */
  private readonly applySql = new Map<string, { name: string; text: string }>()

  constructor(options: { pool: pg.Pool; registry: ResourceRegistry }) {
    this.pool = options.pool
    this.registry = options.registry
    for (const resource of options.registry.pushed) this.applySql.set(resource.key, prepared(applyPageSql(resource)))
  }

  /**
   * Applies pushed records (already validated) in one statement (see apply); answers per item the version the
   * park holds afterwards (null for an item the database refused: its error in `errors`).
   * A value the database refuses (a date that does not exist, say) fails the whole statement: the
   * page is then applied item by item, so that item alone fails (its error in `errors`).
   * `sent`: the items' JSON text as the pusher sent it (the same records), read by the statement as
   * is; refused by the database (a number JSON.parse took but the column does not, such as `1.0`
   * for an integer), the page is applied again from the items.
   */
  async applyPage(
    resource: ResourceDef,
    items: ApiRecord[],
    sent?: Buffer,
  ): Promise<{ held: (number | null)[]; errors: (Error | undefined)[] }> {
    try {
      return { held: await this.apply(resource, items, sent), errors: items.map(() => undefined) }
    } catch (error) {
      if (!isDataError(error)) throw error
      if (sent) return this.applyPage(resource, items)
      if (items.length === 1) throw error
      const held: (number | null)[] = []
      const errors: (Error | undefined)[] = []
      for (const item of items) {
        try {
          held.push((await this.apply(resource, [item]))[0])
          errors.push(undefined)
        } catch (itemError) {
          if (!isDataError(itemError)) throw itemError
          held.push(null)
          errors.push(itemError as Error)
        }
      }
      return { held, errors }
    }
  }

  /**
   * One page in one transaction, after taking the lock of each enterprise it carries (for this
   * resource, in a fixed order): pushes of one enterprise's records apply one after the other, so the
   * statement's snapshot, taken after the lock, holds every earlier push. Its history's old values
   * and the versions it answers are those of the rows it replaces, not of rows a concurrent push was
   * replacing meanwhile (several instances of an enterprise, a reconciliation beside the push).
   */
  private async apply(resource: ResourceDef, items: ApiRecord[], sent?: Buffer): Promise<(number | null)[]> {
    // Bytes go as a binary parameter: for json, the text itself.
    const page = sent ?? JSON.stringify(items)
    const held = await inTransaction(this.pool, async (client) => {
      await lockPushes(
        client,
        resource.table,
        items.map((item) => String(item.companyCode)),
      )
      return (await client.query({ ...this.applySql.get(resource.key)!, values: [page] })).rows
    })
    const key = (companyCode: unknown, id: unknown) => `${String(companyCode)}\u0000${String(id)}`
    const versions = new Map(held.map((row) => [key(row.companyCode, row.id), Number(row.version)]))
    return items.map((item) => versions.get(key(item.companyCode, item.id)) ?? null)
  }

  /** Digests of the records of `companyCode` in each bucket (every prefix of one length, hex). */
  async digests(resource: SyncTable, companyCode: string, prefixes: string[]): Promise<Bucket[]> {
    const length = prefixes[0]?.length ?? 0
    const { rows } = await this.pool.query(
      `SELECT left(md5(id), $3) AS prefix, count(*)::int AS count, ` +
        `sum(('x' || substr(md5(id || ':' || version || ':' || (live IS NULL)::text), 1, 15))::bit(60)::bigint)::text AS digest ` +
        `FROM ${quote(resource.table)} WHERE "companyCode" = $1 AND left(md5(id), $3) = ANY($2::text[]) GROUP BY 1`,
      [companyCode, prefixes, length],
    )
    const found = new Map(rows.map((row) => [row.prefix as string, row as Bucket]))
    return prefixes.map((prefix) => found.get(prefix) ?? { prefix, count: 0, digest: '0' })
  }

  /** The (id, version, deleted) of the records of `companyCode` in these buckets; at most `limit` + 1. */
  async held(resource: SyncTable, companyCode: string, prefixes: string[], limit = DIGEST_RECORDS_LIMIT): Promise<HeldVersion[]> {
    const length = prefixes[0]?.length ?? 0
    const { rows } = await this.pool.query(
      `SELECT id, version, live IS NULL AS deleted FROM ${quote(resource.table)} ` +
        `WHERE "companyCode" = $1 AND left(md5(id), $3) = ANY($2::text[]) ORDER BY id LIMIT $4`,
      [companyCode, prefixes, length, limit + 1],
    )
    return rows
  }

  /** Park overview: every companyCode with an account or records (counted as they are written: park migration 073). */
  async enterprises(): Promise<EnterpriseOverview[]> {
    const tables = new Map(this.registry.all.map((resource) => [resource.table, resource.key]))
    const [records, accounts, pushes] = await Promise.all([
      this.pool.query(`SELECT "table", "companyCode", live::int, deleted::int FROM park_record_count WHERE live <> 0 OR deleted <> 0`),
      this.pool.query(`SELECT "companyCode", "userName" FROM app_user WHERE role = 'enterprise' ORDER BY "userName"`),
      this.pool.query(`SELECT "companyCode", "lastPushTime" FROM park_enterprise`),
    ])
    const all = new Map<string, EnterpriseOverview>()
    const of = (companyCode: string) => {
      let entry = all.get(companyCode)
      if (!entry) {
        entry = {
          companyCode,
          accounts: [],
          lastPushTime: null,
          resources: this.registry.all.map((resource) => ({ resource: resource.key, live: 0, deleted: 0 })),
        }
        all.set(companyCode, entry)
      }
      return entry
    }
    for (const row of accounts.rows) of(row.companyCode).accounts.push(row.userName)
    for (const row of pushes.rows) of(row.companyCode).lastPushTime = row.lastPushTime
    for (const row of records.rows) {
      const resource = tables.get(row.table)
      if (resource === undefined) continue
      const counted = of(row.companyCode).resources.find((entry) => entry.resource === resource)!
      counted.live = row.live
      counted.deleted = row.deleted
    }
    return [...all.values()].sort((a, b) => (a.companyCode < b.companyCode ? -1 : 1))
  }
}

/**
 * The statement applying one pushed page: deduplicated by key (the newest version wins), the
 * enterprise's push time noted, every item upserted unless the park holds a newer or equal version,
 * and per key the version held afterwards (the applied one, or the one that was already there).
 */
function applyPageSql(resource: ResourceDef): string {
  const table = quote(resource.table)
  const fields = [...resource.fields, ...PUSHED_SERVER_FIELDS]
  const columns = fields.map((field) => quote(field.name))
  const definition = [
    ...fields.map((field) => `${quote(field.name)} ${field.json ? 'jsonb' : SCALAR_TYPES[field.kind]}`),
    'version bigint',
    'deleted boolean',
  ]
  // Instants kept to the second, as the service writes them back (a fraction sent is dropped).
  const inserted = fields.map((field) => (field.kind === 'instant' ? `date_trunc('second', ${quote(field.name)})` : quote(field.name)))
  const updated = [...columns.filter((column) => column !== '"id"' && column !== '"companyCode"'), 'version', 'live', '"deleteTime"']
  return (
    // json, not jsonb: PostgreSQL parses the page once, as it reads it (jsonb built a binary copy of
    // the whole page first, as the statement was bound: half again the time of reading it).
    `WITH input AS (SELECT DISTINCT ON ("companyCode", id) * FROM json_to_recordset($1::json) AS pushed(${definition.join(', ')}) ` +
    `ORDER BY "companyCode", id, version DESC), ` +
    `${pushedBy('SELECT "companyCode" FROM input')}, ` +
    `applied AS (INSERT INTO ${table} AS held (${columns.join(', ')}, version, live, "deleteTime", sync_status, sync_time) ` +
    `SELECT ${inserted.join(', ')}, version, CASE WHEN deleted THEN NULL ELSE true END, CASE WHEN deleted THEN date_trunc('second', "updateTime") END, 'synced', ${NOW} ` +
    `FROM input ON CONFLICT ("companyCode", id) DO UPDATE SET ` +
    `${updated.map((column) => `${column} = EXCLUDED.${column}`).join(', ')}, sync_time = ${NOW} ` +
    `WHERE held.version < EXCLUDED.version RETURNING held."companyCode", held.id, held.version, held."updateTime", held."updateBy", held.live, ` +
    `CASE WHEN held.live THEN to_jsonb(held) END AS __new, ` +
    `CASE WHEN held.live THEN ${addedFields(resource, 'held')} END AS __fields), ` +
    // The history of each applied item, one entry each, in the same statement: the
    // held row as the statement's snapshot saw it (`__old`, looked up by key: every part of one
    // statement reads the same snapshot, taken after the enterprise's lock) against the applied one.
    // A record the park did not hold is an add whatever its version (versions written while the park
    // was away arrive as one): its entry is written, not read from the row as an enterprise's add
    // is, since the versions before it are not the park's to walk back through.
    `${historyInsert(
      resource,
      'history',
      `(SELECT applied.*, prior.__old FROM applied LEFT JOIN LATERAL (SELECT to_jsonb(t) AS __old FROM ${table} AS t ` +
        `WHERE t."companyCode" = applied."companyCode" AND t.id = applied.id AND t.live LIMIT 1) AS prior ON true) AS pushed_rows`,
      `CASE WHEN live IS NULL THEN 'delete' WHEN __old IS NULL THEN 'add' ELSE 'update' END`,
      `CASE WHEN live IS NULL THEN '{}'::jsonb WHEN __old IS NULL THEN __fields ELSE history_changes(__old, __new, ${historyFields(resource)}) END`,
      true,
    )} ` +
    // Per item, the applied version, else the one held (looked up by key: never a scan of the table).
    `SELECT input."companyCode", input.id, coalesce(applied.version, ` +
    `(SELECT current.version FROM ${table} AS current WHERE current."companyCode" = input."companyCode" AND current.id = input.id)) AS version ` +
    `FROM input LEFT JOIN applied ON applied."companyCode" = input."companyCode" AND applied.id = input.id`
  )
}

/**
 * A CTE (`pushed_by`) noting that the enterprises of `companies` (a query of "companyCode") pushed
 * now: the last push of each, as the park's overview shows it.
 */
export function pushedBy(companies: string): string {
  return (
    `pushed_by AS (INSERT INTO park_enterprise ("companyCode", "lastPushTime") SELECT DISTINCT "companyCode", ${NOW} ` +
    `FROM (${companies}) AS pushing ON CONFLICT ("companyCode") DO UPDATE SET "lastPushTime" = EXCLUDED."lastPushTime")`
  )
}

/** PostgreSQL's data exceptions (class 22): a value the column cannot hold. */
function isDataError(error: unknown): boolean {
  return typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('22')
}
