// The supervision facts an enterprise pushes to the park beside its records (docs/push-protocol.md):
// inspection periods, working-day calendar years and the enterprise's zone. Each is a table carrying
// the push state every pushed table carries (migration 145), so the push's bookkeeping (settling,
// attempts, the sweep, status and metrics) treats it as it treats a resource's records. Here: how
// the enterprise reads the pending ones as pushed items, and how the park applies pushed ones, by
// (companyCode, key) and version, like records.
import type pg from 'pg'
import type { ResourceDef } from '../resources/resource-registry.ts'
import { withAttachments } from './attachment-store.ts'
import { inTransaction } from './database.ts'
import { lockPushes, pushedBy } from './park-store.ts'
import { NOW, quote } from './sql-text.ts'
import type { SyncTable } from './sync-store.ts'

/** One pushed fact: its fields, `id`, `companyCode`, `version` and `deleted` (facts are never deleted). */
export interface PushedFact {
  id: string
  companyCode: string
  version: number
  deleted: boolean
  [field: string]: unknown
}

export interface PushedFactPage {
  items: PushedFact[]
  /** Where the next page starts (keyset on updateTime, id). */
  cursor: { updateTime: string; id: string } | undefined
}

/** A kind of fact pushed through /system/push/records under its key (the push's `resource`). */
export interface PushedFactKind extends SyncTable {
  /** The item's fields, as SQL over the enterprise's row `t`. */
  readonly select: string
  /** A pending row waits while this holds of `t`: what it names is not pushed yet. */
  readonly waits: string | undefined
  /** The park's table, its key's columns besides companyCode, and the fields applied (names and SQL types). */
  readonly parkTable: string
  readonly parkKey: readonly [string, string][]
  readonly fields: readonly [string, string][]
  /** Whether the park's table carries the push state (its rows are the enterprise's, synced). */
  readonly parkSyncState: boolean
}

/** An instant as a pushed fact carries it: RFC 3339 in UTC, to the millisecond (periods are kept so). */
const utc = (column: string) => `to_char(t.${quote(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${quote(column)}`

export const INSPECTION_PERIODS: PushedFactKind = {
  key: 'inspectionPeriod',
  path: 'prevent/troubleshootTask/periods',
  table: 'inspection_period',
  select: [
    't.id',
    't."companyCode"',
    't."taskId"',
    utc('start'),
    utc('end'),
    't."workType"',
    't."recordId"',
    't."doneLate"',
    utc('createTime'),
    utc('updateTime'),
  ].join(', '),
  // After the task and the record it names (both keyed by id on the enterprise).
  waits:
    `EXISTS (SELECT 1 FROM troubleshoot_task p WHERE p.id = t."taskId" AND p.live AND p.sync_status = 'pending') OR ` +
    `EXISTS (SELECT 1 FROM troubleshoot_record r WHERE r.id = t."recordId" AND r.live AND r.sync_status = 'pending')`,
  parkTable: 'inspection_period',
  parkKey: [['id', 'text']],
  parkSyncState: true,
  fields: [
    ['taskId', 'text'],
    ['start', 'timestamptz'],
    ['end', 'timestamptz'],
    ['workType', 'text'],
    ['recordId', 'text'],
    ['doneLate', 'boolean'],
    ['createTime', 'timestamptz'],
    ['updateTime', 'timestamptz'],
  ],
}

export const WORK_CALENDARS: PushedFactKind = {
  key: 'workCalendar',
  path: 'system/calendar',
  table: 'work_calendar',
  select: ['t.id', 't."companyCode"', 't.year', 't.holidays', 't.workdays', utc('updateTime')].join(', '),
  waits: undefined,
  parkTable: 'work_calendar',
  parkKey: [['year', 'integer']],
  parkSyncState: true,
  fields: [
    ['holidays', 'text[]'],
    ['workdays', 'text[]'],
    ['updateTime', 'timestamptz'],
  ],
}

export const ENTERPRISE_ZONE: PushedFactKind = {
  key: 'enterpriseZone',
  path: 'system/enterpriseZone',
  table: 'enterprise_zone',
  select: ['t.id', 't."companyCode"', 't."timeZone"', utc('updateTime')].join(', '),
  waits: undefined,
  parkTable: 'park_enterprise_zone',
  parkKey: [],
  parkSyncState: false,
  fields: [
    ['timeZone', 'text'],
    ['updateTime', 'timestamptz'],
  ],
}

/** Every kind of fact pushed, in the order a drain pushes them (the zone and calendars before the periods read in them). */
export const PUSHED_FACTS: readonly PushedFactKind[] = [ENTERPRISE_ZONE, WORK_CALENDARS, INSPECTION_PERIODS]

/** Every table whose rows are pushed: the resources' records, their attachments, and the facts. */
export function pushedTables(resources: readonly ResourceDef[]): SyncTable[] {
  return [...withAttachments([...resources]), ...PUSHED_FACTS]
}

export class PushedFactStore {
  private readonly pool: pg.Pool
  /** The park's statement applying each kind, built at its first push. */
  private readonly applySql = new Map<string, string>()

  constructor(options: { pool: pg.Pool }) {
    this.pool = options.pool
  }

  /** Up to `limit` pending facts of a kind (and no more than `maxBytes` of them, one at least), oldest write first. */
  async pending(kind: PushedFactKind, limit: number, maxBytes: number, after?: PushedFactPage['cursor']): Promise<PushedFactPage> {
    const values: unknown[] = [limit]
    let keyset = ''
    if (after) {
      values.push(after.updateTime, after.id)
      keyset = ` AND (t."updateTime", t.id) > ($2, $3)`
    }
    const { rows } = await this.pool.query(
      `SELECT ${kind.select}, t.version, t."updateTime"::text AS "__updateTime", octet_length(t::text) AS "__bytes" ` +
        `FROM ${quote(kind.table)} AS t WHERE t.sync_status = 'pending'${keyset}${kind.waits ? ` AND NOT (${kind.waits})` : ''} ` +
        `ORDER BY t."updateTime", t.id LIMIT $1`,
      values,
    )
    let bytes = 0
    const kept = rows.findIndex((row, index) => (bytes += row.__bytes) > maxBytes && index > 0)
    const page = kept === -1 ? rows : rows.slice(0, kept)
    const items = page.map(({ __updateTime: _time, __bytes: _bytes, ...fields }) => ({ ...fields, deleted: false }) as PushedFact)
    const last = page.at(-1)
    const more = last !== undefined && (rows.length === limit || page.length < rows.length)
    return { items, cursor: more ? { updateTime: last.__updateTime, id: last.id } : undefined }
  }

  /** Enterprise edition: the zone its days are read in, a new version to push when it changed. */
  async noteZone(companyCode: string, timeZone: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO enterprise_zone ("companyCode", "timeZone") VALUES ($1, $2) ON CONFLICT ("companyCode") DO UPDATE SET ` +
        `"timeZone" = EXCLUDED."timeZone", "updateTime" = now(), version = enterprise_zone.version + 1, ` +
        `sync_status = 'pending', sync_attempts = 0, sync_rounds = 0, sync_error = NULL ` +
        `WHERE enterprise_zone."timeZone" IS DISTINCT FROM EXCLUDED."timeZone"`,
      [companyCode, timeZone],
    )
  }

  /**
   * Park edition: pushed facts (validated) applied by (companyCode, key) where the held version is
   * older, in one statement under the enterprises' push locks; answers per item the version held
   * afterwards (null: none).
   */
  async apply(kind: PushedFactKind, items: readonly PushedFact[]): Promise<(number | null)[]> {
    let text = this.applySql.get(kind.key)
    if (text === undefined) this.applySql.set(kind.key, (text = applyFactsSql(kind)))
    const held = await inTransaction(this.pool, async (client) => {
      await lockPushes(
        client,
        kind.parkTable,
        items.map((item) => item.companyCode),
      )
      return (await client.query(text, [JSON.stringify(items)])).rows
    })
    const versions = new Map(held.map((row) => [`${row.companyCode}\u0000${row.id}`, Number(row.version)]))
    return items.map((item) => versions.get(`${item.companyCode}\u0000${item.id}`) ?? null)
  }
}

/**
 * The statement applying pushed facts of a kind on the park ($1: the items' JSON): deduplicated by
 * key (the newest version wins), the enterprise's push time noted, each upserted unless the park
 * holds that version or a newer one, and per item its id with the version held afterwards.
 */
function applyFactsSql(kind: PushedFactKind): string {
  const keys = ['"companyCode"', ...kind.parkKey.map(([name]) => quote(name))]
  const columns = kind.fields.map(([name]) => quote(name))
  const definition = [
    'id text',
    '"companyCode" text',
    ...[...kind.parkKey, ...kind.fields].filter(([name]) => name !== 'id').map(([name, type]) => `${quote(name)} ${type}`),
    'version bigint',
  ]
  const table = quote(kind.parkTable)
  const inserted = [...keys, ...columns, 'version', ...(kind.parkSyncState ? ['sync_status', 'sync_time'] : [])]
  const values = [...keys, ...columns, 'version', ...(kind.parkSyncState ? [`'synced'`, NOW] : [])]
  const sameKey = (a: string, b: string) => keys.map((column) => `${a}.${column} = ${b}.${column}`).join(' AND ')
  return (
    `WITH input AS (SELECT DISTINCT ON (${keys.join(', ')}) * FROM json_to_recordset($1::json) AS pushed(${definition.join(', ')}) ` +
    `ORDER BY ${keys.join(', ')}, version DESC), ${pushedBy('SELECT "companyCode" FROM input')}, ` +
    `applied AS (INSERT INTO ${table} AS held (${inserted.join(', ')}) SELECT ${values.join(', ')} FROM input ` +
    `ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${[...columns, 'version'].map((column) => `${column} = EXCLUDED.${column}`).join(', ')} ` +
    `WHERE held.version < EXCLUDED.version RETURNING ${keys.map((column) => `held.${column}`).join(', ')}, held.version) ` +
    `SELECT input.id, input."companyCode", coalesce(applied.version, ` +
    `(SELECT current.version FROM ${table} AS current WHERE ${sameKey('current', 'input')})) AS version ` +
    `FROM input LEFT JOIN applied ON ${sameKey('applied', 'input')}`
  )
}
