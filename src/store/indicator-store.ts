// The counts behind the supervision indicators, per enterprise, each from the stored records and
// periods by an index made for it (migration 140): periods by (companyCode, start), hidden dangers
// by registTime and the open ones by a partial index, tickets by planStartTime and the running ones
// by a partial index, training by trainStartTime. Nothing scans an enterprise's records whole.
// Rates and breakdowns are made above (operations/supervision).
import type pg from 'pg'
import type { SyncTable } from './sync-store.ts'
import { quote } from './sql-text.ts'

/** The window of one enterprise: starts from `from` to `until`, both inclusive. */
export interface CompanyWindow {
  companyCode: string
  from: Date
  until: Date
}

export interface PeriodCounts {
  workType: string
  done: number
  doneLate: number
  missed: number
  open: number
}

export interface RawIndicators {
  periods: PeriodCounts[]
  dangers: { found: number; accepted: number; open: number; overdue: number; majorOpen: number }
  riskUnits: { riskLevel: string; count: number }[]
  tickets: { workType: string; ticketStatus: string; count: number }[]
  ticketsOverdue: number
  training: { sessions: number; hours: number; participants: number; passed: number | null; assessed: number | null }
}

/** The windows as a JSON array joined by the statements: one row per enterprise. */
export const COMPANY_WINDOWS = `SELECT * FROM json_to_recordset($1::json) AS w("companyCode" text, "from" timestamptz, "until" timestamptz)`

/** Periods starting in the window (and by now): done, done late, missed (ended), open (running), per work type. */
const PERIODS =
  `SELECT p."companyCode", p."workType", ` +
  `count(*) FILTER (WHERE p."recordId" IS NOT NULL)::int AS done, ` +
  `count(*) FILTER (WHERE p."recordId" IS NOT NULL AND p."doneLate")::int AS "doneLate", ` +
  `count(*) FILTER (WHERE p."recordId" IS NULL AND p."end" <= now())::int AS missed, ` +
  `count(*) FILTER (WHERE p."recordId" IS NULL AND p."end" > now())::int AS open ` +
  `FROM (${COMPANY_WINDOWS}) w JOIN inspection_period p ON p."companyCode" = w."companyCode" ` +
  `AND p.start >= w."from" AND p.start <= w."until" AND p.start <= now() GROUP BY 1, 2`

/** Hidden dangers registered in the window, and of those the accepted ones. */
const DANGERS_FOUND =
  `SELECT d."companyCode", count(*)::int AS found, count(*) FILTER (WHERE d."dangerState" = '9')::int AS accepted ` +
  `FROM (${COMPANY_WINDOWS}) w JOIN troubleshoot_info d ON d."companyCode" = w."companyCode" AND d.live ` +
  `AND d."registTime" >= w."from" AND d."registTime" <= w."until" GROUP BY 1`

/** Hidden dangers open now, of them the overdue (the enterprise's date, in `zone`, past the deadline) and the major ones. */
const dangersOpen = (zone: string) =>
  `SELECT d."companyCode", count(*)::int AS open, ` +
  `count(*) FILTER (WHERE d."dangerManageDeadline" < enterprise_date(${zone}, now()))::int AS overdue, ` +
  `count(*) FILTER (WHERE d."dangerLevel" = '1')::int AS "majorOpen" ` +
  `FROM troubleshoot_info d WHERE d."companyCode" = ANY($1::text[]) AND d.live AND d."dangerState" <> '9' GROUP BY 1`

const RISK_UNITS =
  `SELECT "companyCode", "riskLevel", count(*)::int AS count FROM risk_unit ` +
  `WHERE "companyCode" = ANY($1::text[]) AND live AND "riskLevel" IS NOT NULL GROUP BY 1, 2`

/** Tickets planned to start in the window, by work type and status. */
const TICKETS =
  `SELECT t."companyCode", t."workType", t."ticketStatus", count(*)::int AS count ` +
  `FROM (${COMPANY_WINDOWS}) w JOIN ticket_base_info t ON t."companyCode" = w."companyCode" AND t.live ` +
  `AND t."planStartTime" >= w."from" AND t."planStartTime" <= w."until" GROUP BY 1, 2, 3`

const TICKETS_OVERDUE =
  `SELECT "companyCode", count(*)::int AS count FROM ticket_base_info ` +
  `WHERE "companyCode" = ANY($1::text[]) AND live AND "ticketStatus" IN ('1', '2') AND "planEndTime" < now() GROUP BY 1`

/** Training starting in the window; the pass rate over the sessions with a pass count. */
const TRAINING =
  `SELECT s."companyCode", count(*)::int AS sessions, coalesce(sum(s."trainHours"), 0)::int AS hours, ` +
  `coalesce(sum(s."participantCount"), 0)::int AS participants, ` +
  `sum(s."passCount") FILTER (WHERE s."passCount" IS NOT NULL)::int AS passed, ` +
  `sum(s."participantCount") FILTER (WHERE s."passCount" IS NOT NULL)::int AS assessed ` +
  `FROM (${COMPANY_WINDOWS}) w JOIN train_base_info s ON s."companyCode" = w."companyCode" AND s.live ` +
  `AND s."trainStartTime" >= w."from" AND s."trainStartTime" <= w."until" GROUP BY 1`

export class IndicatorStore {
  private readonly pool: pg.Pool
  /** The configured zone (`TZ`): the enterprise's current date (overdue hidden dangers). */
  private readonly timeZone: string
  /** Park edition: each enterprise's date in the zone it pushed (park_enterprise_zone), this one where it pushed none. */
  private readonly park: boolean
  private readonly syncCounts: string

  constructor(options: { pool: pg.Pool; timeZone: string; park: boolean; pushed: readonly SyncTable[] }) {
    this.pool = options.pool
    this.timeZone = options.timeZone
    this.park = options.park
    // Every kind of record the enterprise pushes: the resources, their attachments, periods, calendars and its zone.
    const tables = options.pushed.map((resource) => resource.table)
    this.syncCounts =
      `SELECT count(*) FILTER (WHERE sync_status = 'pending')::int AS pending, count(*) FILTER (WHERE sync_status = 'failed')::int AS failed ` +
      `FROM (${tables.map((table) => `SELECT sync_status FROM ${quote(table)} WHERE sync_status <> 'synced'`).join(' UNION ALL ')}) AS unsynced`
  }

  /** The counts of each enterprise for its window. */
  async counts(windows: readonly CompanyWindow[]): Promise<Map<string, RawIndicators>> {
    const byCompany = new Map<string, RawIndicators>(windows.map((window) => [window.companyCode, emptyIndicators()]))
    if (windows.length === 0) return byCompany
    const json = JSON.stringify(windows)
    const companies = windows.map((window) => window.companyCode)
    const zone = this.park
      ? `coalesce((SELECT z."timeZone" FROM park_enterprise_zone z WHERE z."companyCode" = d."companyCode"), $2)`
      : '$2::text'
    const run = (sql: string, values: unknown[]) => this.pool.query(sql, values).then((result) => result.rows)
    const [periods, found, open, riskUnits, tickets, ticketsOverdue, training] = await Promise.all([
      run(PERIODS, [json]),
      run(DANGERS_FOUND, [json]),
      run(dangersOpen(zone), [companies, this.timeZone]),
      run(RISK_UNITS, [companies]),
      run(TICKETS, [json]),
      run(TICKETS_OVERDUE, [companies]),
      run(TRAINING, [json]),
    ])
    const entry = (row: { companyCode: string }) => byCompany.get(row.companyCode)
    for (const { companyCode, ...counts } of periods) entry({ companyCode })?.periods.push(counts)
    for (const row of found) Object.assign(entry(row)?.dangers ?? {}, { found: row.found, accepted: row.accepted })
    for (const row of open) Object.assign(entry(row)?.dangers ?? {}, { open: row.open, overdue: row.overdue, majorOpen: row.majorOpen })
    for (const row of riskUnits) entry(row)?.riskUnits.push({ riskLevel: row.riskLevel, count: row.count })
    for (const { companyCode, ...counts } of tickets) entry({ companyCode })?.tickets.push(counts)
    for (const row of ticketsOverdue) {
      const raw = entry(row)
      if (raw) raw.ticketsOverdue = row.count
    }
    for (const { companyCode, ...counts } of training) {
      const raw = entry({ companyCode })
      if (raw) raw.training = counts
    }
    return byCompany
  }

  /** Enterprise edition: its records of every kind waiting to be pushed, and failed. */
  async sync(): Promise<{ pending: number; failed: number }> {
    return (await this.pool.query(this.syncCounts)).rows[0]
  }

  /** Park edition: every enterprise with an account or records (a push), the time of its last push and the zone it pushed. */
  async enterprises(): Promise<{ companyCode: string; lastPushTime: Date | null; timeZone: string | null }[]> {
    const { rows } = await this.pool.query(
      `SELECT c."companyCode", e."lastPushTime", z."timeZone" FROM (SELECT "companyCode" FROM app_user WHERE "companyCode" IS NOT NULL ` +
        `UNION SELECT "companyCode" FROM park_enterprise) c LEFT JOIN park_enterprise e ON e."companyCode" = c."companyCode" ` +
        `LEFT JOIN park_enterprise_zone z ON z."companyCode" = c."companyCode" ORDER BY 1`,
    )
    return rows
  }
}

function emptyIndicators(): RawIndicators {
  return {
    periods: [],
    dangers: { found: 0, accepted: 0, open: 0, overdue: 0, majorOpen: 0 },
    riskUnits: [],
    tickets: [],
    ticketsOverdue: 0,
    training: { sessions: 0, hours: 0, participants: 0, passed: null, assessed: null },
  }
}
