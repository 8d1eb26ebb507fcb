// Whose records the service's tables hold: one enterprise's own, keyed by id, or many enterprises'
// as they pushed them, keyed by (companyCode, id), each enterprise living in the zone it pushed. The
// composition of an edition chooses one; the search, the store and the indicators follow it.
import type { SortKey } from './cursor.ts'
import { quote } from './sql-text.ts'

export interface RecordScope {
  /** After `id`, what makes every order total (several enterprises may hold one id). */
  readonly tieBreakers: readonly SortKey[]
  /** Whether the live records of each enterprise are counted as they are written (park migration 073). */
  readonly countedPerEnterprise: boolean
  /** The SQL of the zone of the enterprise of a row of `table` (or alias); `configured`: the SQL of the configured zone (`TZ`). */
  zoneOf(table: string, configured: string): string
}

/** The enterprise's own records: ordered by id last, dated in the configured zone. */
export const OWN_RECORDS: RecordScope = {
  tieBreakers: [],
  countedPerEnterprise: false,
  zoneOf: (_table, configured) => configured,
}

/** The records many enterprises pushed: ordered by company code last; each in the zone it pushed, the configured one where it pushed none. */
export const PUSHED_RECORDS: RecordScope = {
  tieBreakers: [{ name: 'companyCode', kind: 'id', desc: false, nullable: false }],
  countedPerEnterprise: true,
  zoneOf: (table, configured) =>
    `coalesce((SELECT z."timeZone" FROM park_enterprise_zone z WHERE z."companyCode" = ${quote(table)}."companyCode"), ${configured})`,
}
