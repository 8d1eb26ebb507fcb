// The counts behind the supervision indicators, per enterprise, each from the stored records and
// periods by an index made for it (migrations 140, 141): periods from their per-day tally and the
// partial days at the window's edges, hidden dangers by registTime and the open ones by a partial
// index, tickets by planStartTime and the running ones by a partial index, training by
// trainStartTime, alarms by startTime and the active ones by a partial index. Nothing scans an
// enterprise's records whole. Rates, breakdowns and order are made above (domain/supervision).
import type pg from 'pg'
import type { RecordScope } from './record-scope.ts'
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

export interface AlarmCounts {
  /** Alarms raised in the window, per kind and the highest level each reached (null for kinds without levels). */
  raised: { kind: string; level: number | null; count: number }[]
  medianSecondsToAcknowledge: number | null
  medianSecondsToDispose: number | null
  /** Now: active alarms, shelved ones left out; points with an active offline alarm. */
  active: number
  offlinePoints: number
}

export interface RawIndicators {
  periods: PeriodCounts[]
  dangers: { found: number; accepted: number; open: number; overdue: number; majorOpen: number }
  riskUnits: { riskLevel: string; count: number }[]
  tickets: { workType: string; ticketStatus: string; count: number }[]
  ticketsOverdue: number
  training: { sessions: number; hours: number; participants: number; passed: number | null; assessed: number | null }
  alarms: AlarmCounts
}

/**
 * The windows as a JSON array, one row per enterprise; `$2` is their number, so that the planner
 * knows how few they are and reads each enterprise's rows by index, window by window.
 */
const WINDOWS = `SELECT * FROM json_to_recordset($1::json) AS w("companyCode" text, "from" timestamptz, "until" timestamptz) LIMIT $2`

/** The windows as a JSON array ($1) joined by a statement: one row per enterprise. */
export const COMPANY_WINDOWS = `SELECT * FROM json_to_recordset($1::json) AS w("companyCode" text, "from" timestamptz, "until" timestamptz)`

/** `counts` (a statement reading the window `w`) run for each window: one index range per enterprise, never a join of whole tables. */
const eachWindow = (counts: string) => `SELECT w."companyCode", c.* FROM (${WINDOWS}) w, LATERAL (${counts}) c`

/** Periods starting in a range of the window, tallied from the periods themselves. */
const periodsBetween = (from: string, until: string) =>
  `SELECT p."workType", count(*) AS periods, count(p."recordId") AS done, ` +
  `count(*) FILTER (WHERE p."recordId" IS NOT NULL AND p."doneLate") AS "doneLate" FROM inspection_period p ` +
  `WHERE p."companyCode" = w."companyCode" AND p.start >= ${from} AND p.start < ${until} AND p.start <= now() GROUP BY 1`

/**
 * Periods starting in the window (and by now), per work type: all, done, done late. The whole UTC
 * days inside the window come from the per-day tally (inspection_period_day, kept by the writes of
 * periods), the partial days at its two edges from the periods themselves: `a` is the first UTC
 * midnight at or after the window's start, `b` the last at or before its end (or now).
 */
const PERIODS =
  `SELECT w."companyCode", t."workType", sum(t.periods)::int AS periods, sum(t.done)::int AS done, sum(t."doneLate")::int AS "doneLate" ` +
  `FROM (SELECT w."companyCode", w."from", w."until" + interval '1 millisecond' AS upto, ` +
  `CASE WHEN utc_day(w."from") = w."from" THEN w."from" ELSE utc_day(w."from") + interval '1 day' END AS a, ` +
  `utc_day(least(w."until" + interval '1 millisecond', now())) AS b FROM (${WINDOWS}) w) w, LATERAL (` +
  `SELECT d."workType", sum(d.periods) AS periods, sum(d.done) AS done, sum(d."doneLate") AS "doneLate" FROM inspection_period_day d ` +
  `WHERE d."companyCode" = w."companyCode" AND d."dayStart" >= w.a AND d."dayStart" < w.b GROUP BY 1 ` +
  `UNION ALL ${periodsBetween('w."from"', 'least(w.a, w.upto)')} ` +
  `UNION ALL ${periodsBetween('greatest(w.a, w.b)', 'w.upto')}) t GROUP BY 1, 2`

/** Periods starting in the window, running now without a record (few: by the index of undone periods, ending after now). */
const PERIODS_OPEN = eachWindow(
  `SELECT p."workType", count(*)::int AS open FROM inspection_period p WHERE p."companyCode" = w."companyCode" ` +
    `AND p."recordId" IS NULL AND p."end" > now() AND p.start >= w."from" AND p.start <= w."until" AND p.start <= now() GROUP BY 1`,
)

/** Hidden dangers registered in the window, and of those the accepted ones. */
const DANGERS_FOUND = eachWindow(
  `SELECT count(*)::int AS found, count(*) FILTER (WHERE d."dangerState" = '9')::int AS accepted FROM troubleshoot_info d ` +
    `WHERE d."companyCode" = w."companyCode" AND d.live AND d."registTime" >= w."from" AND d."registTime" <= w."until"`,
)

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
const TICKETS = eachWindow(
  `SELECT t."workType", t."ticketStatus", count(*)::int AS count FROM ticket_base_info t ` +
    `WHERE t."companyCode" = w."companyCode" AND t.live AND t."planStartTime" >= w."from" AND t."planStartTime" <= w."until" GROUP BY 1, 2`,
)

const TICKETS_OVERDUE =
  `SELECT "companyCode", count(*)::int AS count FROM ticket_base_info ` +
  `WHERE "companyCode" = ANY($1::text[]) AND live AND "ticketStatus" IN ('1', '2') AND "planEndTime" < now() GROUP BY 1`

/** Training starting in the window; the pass rate over the sessions with a pass count. */
const TRAINING = eachWindow(
  `SELECT count(*)::int AS sessions, coalesce(sum(s."trainHours"), 0)::int AS hours, ` +
    `coalesce(sum(s."participantCount"), 0)::int AS participants, ` +
    `sum(s."passCount") FILTER (WHERE s."passCount" IS NOT NULL)::int AS passed, ` +
    `sum(s."participantCount") FILTER (WHERE s."passCount" IS NOT NULL)::int AS assessed FROM train_base_info s ` +
    `WHERE s."companyCode" = w."companyCode" AND s.live AND s."trainStartTime" >= w."from" AND s."trainStartTime" <= w."until"`,
)

/** The alarms of `alarms` raised in the window. */
const alarmsInWindow = (alarms: string) =>
  `FROM ${alarms} a WHERE a."companyCode" = w."companyCode" AND a."startTime" >= w."from" AND a."startTime" <= w."until"`

/** Alarms raised in the window, per kind and the highest level reached. */
const alarmsRaised = (alarms: string) =>
  eachWindow(`SELECT a.kind, a."maxLevel" AS level, count(*)::int AS count ${alarmsInWindow(alarms)} GROUP BY 1, 2`)

/**
 * Of the alarms raised in the window, the median whole seconds from start to acknowledgement and to
 * disposal (the lower middle; 0 for a handling before the start, which a reading sent ahead of the
 * clock allows).
 */
const alarmMedians = (alarms: string) =>
  eachWindow(
    `SELECT (percentile_disc(0.5) WITHIN GROUP (ORDER BY greatest(0, floor(extract(epoch FROM a."acknowledgedTime" - a."startTime")))) ` +
      `FILTER (WHERE a."acknowledgedTime" IS NOT NULL))::int AS acknowledge, ` +
      `(percentile_disc(0.5) WITHIN GROUP (ORDER BY greatest(0, floor(extract(epoch FROM (a.disposal->>'disposedTime')::timestamptz - a."startTime")))) ` +
      `FILTER (WHERE a.handling = 'disposed'))::int AS dispose ${alarmsInWindow(alarms)}`,
  )

/** Active alarms now (shelved ones left out) and the points offline now (shelved ones included). */
const alarmsActive = (alarms: string) =>
  `SELECT "companyCode", count(*) FILTER (WHERE NOT shelved)::int AS active, ` +
  `count(DISTINCT "monitorEquipId") FILTER (WHERE kind = 'offline')::int AS "offlinePoints" ` +
  `FROM ${alarms} WHERE "companyCode" = ANY($1::text[]) AND status = 'active' GROUP BY 1`

export class IndicatorStore {
  private readonly pool: pg.Pool
  /** The configured zone (`TZ`): the enterprise's current date (overdue hidden dangers). */
  private readonly timeZone: string
  /** The zone of each enterprise's current date, over a hidden danger `d` (`$2`: the configured zone). */
  private readonly zoneOfDangers: string
  private readonly syncCounts: string
  private readonly alarmStatements: { raised: string; medians: string; active: string }

  /**
   * `scope`: whose records are counted, the enterprise's own or those many enterprises pushed (each
   * dated in the zone it pushed). `alarms`: the table of alarms read, one row per alarm with its
   * `companyCode` (the enterprise's own, or the park's copies of its enterprises' alarms);
   * monitor_alarm unless named.
   */
  constructor(options: { pool: pg.Pool; timeZone: string; scope: RecordScope; pushed: readonly SyncTable[]; alarms?: string }) {
    this.pool = options.pool
    const alarms = quote(options.alarms ?? 'monitor_alarm')
    this.alarmStatements = { raised: alarmsRaised(alarms), medians: alarmMedians(alarms), active: alarmsActive(alarms) }
    this.timeZone = options.timeZone
    this.zoneOfDangers = options.scope.zoneOf('d', '$2::text')
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
    const windowed = [json, windows.length]
    const companies = windows.map((window) => window.companyCode)
    const run = (sql: string, values: unknown[]) => this.pool.query(sql, values).then((result) => result.rows)
    const alarms = this.alarmStatements
    const [periods, running, found, open, riskUnits, tickets, ticketsOverdue, training, raised, medians, active] = await Promise.all([
      run(PERIODS, windowed),
      run(PERIODS_OPEN, windowed),
      run(DANGERS_FOUND, windowed),
      run(dangersOpen(this.zoneOfDangers), [companies, this.timeZone]),
      run(RISK_UNITS, [companies]),
      run(TICKETS, windowed),
      run(TICKETS_OVERDUE, [companies]),
      run(TRAINING, windowed),
      run(alarms.raised, windowed),
      run(alarms.medians, windowed),
      run(alarms.active, [companies]),
    ])
    const entry = (row: { companyCode: string }) => byCompany.get(row.companyCode)
    const openOf = (row: { companyCode: string; workType: string }) =>
      running.find((other) => other.companyCode === row.companyCode && other.workType === row.workType)?.open ?? 0
    for (const row of periods) {
      const open = openOf(row)
      entry(row)?.periods.push({
        workType: row.workType,
        done: row.done,
        doneLate: row.doneLate,
        missed: row.periods - row.done - open,
        open,
      })
    }
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
    for (const { companyCode, ...counts } of raised) entry({ companyCode })?.alarms.raised.push(counts)
    for (const row of medians) {
      Object.assign(entry(row)?.alarms ?? {}, { medianSecondsToAcknowledge: row.acknowledge, medianSecondsToDispose: row.dispose })
    }
    for (const row of active) Object.assign(entry(row)?.alarms ?? {}, { active: row.active, offlinePoints: row.offlinePoints })
    return byCompany
  }

  /** Its own records of every kind waiting to be pushed, and failed (where they are written). */
  async sync(): Promise<{ pending: number; failed: number }> {
    return (await this.pool.query(this.syncCounts)).rows[0]
  }

  /** Every enterprise with an account or records (a push) on the park, the time of its last push and the zone it pushed. */
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
    alarms: { raised: [], medianSecondsToAcknowledge: null, medianSecondsToDispose: null, active: 0, offlinePoints: 0 },
  }
}
