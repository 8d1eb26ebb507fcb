// Inspection periods, task schedules and the working-day calendar in the database (migration 140).
// The periods are computed above (domain/supervision) and written here; their judgement from the
// records is the database's own (inspection_rejudge, run by the record trigger; a new period is
// judged the same way as it is written), so that every way a record is written re-judges the
// period holding it.
import type pg from 'pg'
import { inTransaction, type Queryable } from './database.ts'
import { COMPANY_WINDOWS, type CompanyWindow } from './indicator-store.ts'

/** A task whose next period may have started: its schedule versions as kept (JSON) and where the look resumes. */
export interface DueSchedule {
  companyCode: string
  taskId: string
  versions: unknown[]
  resumeFrom: number | null
}

export interface NewPeriod {
  id: string
  taskId: string
  start: number
  end: number
  workType: string
}

export interface StoredCalendarYear {
  year: number
  holidays: string[]
  workdays: string[]
}

export interface PeriodRow {
  companyCode: string
  id: string
  taskId: string
  start: Date
  end: Date
  status: 'done' | 'missed' | 'open'
  doneLate: boolean
  recordId: string | null
}

export interface PeriodQuery {
  /** Per enterprise, starts in [from, until] (each enterprise's dates in its own zone). */
  windows: readonly CompanyWindow[]
  taskId: string | undefined
  status: string | undefined
  pageNum: number
  pageSize: number
}

/** The status of a period row, as of the statement. */
export const PERIOD_STATUS = `CASE WHEN p."recordId" IS NOT NULL THEN 'done' WHEN p."end" <= now() THEN 'missed' ELSE 'open' END`

/** The periods `p` starting in the windows of $1 (one per enterprise). */
const PERIODS_IN_WINDOWS = `(${COMPANY_WINDOWS}) w JOIN inspection_period p ON p."companyCode" = w."companyCode" AND p.start >= w."from" AND p.start <= w."until"`

const DUE_SCHEDULES =
  `SELECT "companyCode", "taskId", versions, "resumeFrom" FROM inspection_schedule ` +
  `WHERE "nextStart" <= $1 ORDER BY "nextStart" LIMIT $2 FOR UPDATE SKIP LOCKED`

/** New periods, each judged at once by the live records of its task already inside it (as inspection_rejudge judges). */
const INSERT_PERIODS =
  `INSERT INTO inspection_period ("companyCode", id, "taskId", start, "end", "workType", "recordId", "doneLate") ` +
  `SELECT $1, p.id, p."taskId", p.start, p."end", p."workType", judged.id, coalesce(judged.late, false) ` +
  `FROM (SELECT id, "taskId", to_timestamp(s / 1000.0) AS start, to_timestamp(e / 1000.0) AS "end", "workType" ` +
  `FROM json_to_recordset($2::json) AS items(id text, "taskId" text, s bigint, e bigint, "workType" text)) p ` +
  `LEFT JOIN LATERAL (SELECT r.id, r."createTime" >= p."end" AS late FROM troubleshoot_record r ` +
  `WHERE r."checkTaskId" = p."taskId" AND r."companyCode" = $1 AND r.live AND r."checkStatus" IS DISTINCT FROM '2' ` +
  `AND r."checkTime" >= p.start AND r."checkTime" < p."end" ORDER BY r."checkTime", r.id LIMIT 1) judged ON true ` +
  `ON CONFLICT DO NOTHING`

export class InspectionStore {
  private readonly pool: pg.Pool

  constructor(options: { pool: pg.Pool }) {
    this.pool = options.pool
  }

  /** Runs `work` over the schedules whose next period has started by `now` (at most `limit`, locked: another instance takes others). */
  async withDueSchedules(now: number, limit: number, work: (schedules: DueSchedule[], db: Queryable) => Promise<void>): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query(DUE_SCHEDULES, [new Date(now), limit])
      const schedules: DueSchedule[] = rows.map((row) => ({
        companyCode: row.companyCode,
        taskId: row.taskId,
        versions: row.versions,
        resumeFrom: row.resumeFrom ? row.resumeFrom.getTime() : null,
      }))
      if (schedules.length > 0) await work(schedules, client)
      return schedules.length
    })
  }

  /** New periods of one enterprise, judged by the records already written. */
  async addPeriods(db: Queryable, companyCode: string, periods: readonly NewPeriod[]): Promise<void> {
    if (periods.length === 0) return
    const items = periods.map(({ id, taskId, start, end, workType }) => ({ id, taskId, s: start, e: end, workType }))
    // The lock a record's write of these tasks takes too: the insert then reads their committed records.
    for (const taskId of [...new Set(periods.map((period) => period.taskId))].sort()) {
      await db.query('SELECT inspection_task_lock($1, $2)', [companyCode, taskId])
    }
    await db.query(INSERT_PERIODS, [companyCode, JSON.stringify(items)])
  }

  /** Where the next look for a task's periods resumes, and when its next due period starts (null: none within reach). */
  async saveProgress(db: Queryable, schedule: DueSchedule, resumeFrom: number, nextStart: number | null): Promise<void> {
    await db.query(`UPDATE inspection_schedule SET "resumeFrom" = $3, "nextStart" = $4 WHERE "companyCode" = $1 AND "taskId" = $2`, [
      schedule.companyCode,
      schedule.taskId,
      new Date(resumeFrom),
      nextStart === null ? null : new Date(nextStart),
    ])
  }

  /** The calendar years with lists of each enterprise named. */
  async calendars(companyCodes: readonly string[], db: Queryable = this.pool): Promise<Map<string, StoredCalendarYear[]>> {
    const { rows } = await db.query(
      `SELECT "companyCode", year, holidays, workdays FROM work_calendar WHERE "companyCode" = ANY($1::text[]) ORDER BY year`,
      [companyCodes],
    )
    const byCompany = new Map<string, StoredCalendarYear[]>()
    for (const row of rows) {
      const years = byCompany.get(row.companyCode) ?? []
      years.push({ year: row.year, holidays: row.holidays, workdays: row.workdays })
      byCompany.set(row.companyCode, years)
    }
    return byCompany
  }

  /** Replaces one year's lists; every task of the enterprise looks for its periods again (the days due may have changed). */
  async setCalendarYear(companyCode: string, year: StoredCalendarYear): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO work_calendar ("companyCode", year, holidays, workdays) VALUES ($1, $2, $3, $4) ` +
          `ON CONFLICT ("companyCode", year) DO UPDATE SET holidays = EXCLUDED.holidays, workdays = EXCLUDED.workdays, ` +
          `"updateTime" = now(), version = work_calendar.version + 1, sync_status = 'pending', sync_error = NULL, sync_attempts = 0, sync_rounds = 0 ` +
          `WHERE work_calendar.holidays IS DISTINCT FROM EXCLUDED.holidays OR work_calendar.workdays IS DISTINCT FROM EXCLUDED.workdays`,
        [companyCode, year.year, year.holidays, year.workdays],
      )
      await client.query(`UPDATE inspection_schedule SET "nextStart" = now() WHERE "companyCode" = $1 AND "resumeFrom" IS NOT NULL`, [
        companyCode,
      ])
    })
  }

  async calendarYear(companyCode: string, year: number): Promise<StoredCalendarYear | undefined> {
    return (await this.calendars([companyCode])).get(companyCode)?.find((entry) => entry.year === year)
  }

  /** A page of periods starting in the window, by task then start; with the total. */
  async periods(query: PeriodQuery): Promise<{ list: PeriodRow[]; total: number }> {
    const values: unknown[] = [JSON.stringify(query.windows)]
    const where = [`p.start <= now()`]
    if (query.taskId !== undefined) where.push(`p."taskId" = $${values.push(query.taskId)}`)
    if (query.status !== undefined) where.push(`${PERIOD_STATUS} = $${values.push(query.status)}`)
    const limit = values.push(query.pageSize)
    const offset = values.push((query.pageNum - 1) * query.pageSize)
    const { rows } = await this.pool.query(
      `SELECT p."companyCode", p.id, p."taskId", p.start, p."end", ${PERIOD_STATUS} AS status, p."doneLate", p."recordId", ` +
        `count(*) OVER ()::int AS total FROM ${PERIODS_IN_WINDOWS} WHERE ${where.join(' AND ')} ` +
        `ORDER BY p."taskId", p.start, p."companyCode" LIMIT $${limit} OFFSET $${offset}`,
      values,
    )
    const total: number = rows[0]?.total ?? (query.pageNum > 1 ? await this.countPeriods(where, values.slice(0, limit - 1)) : 0)
    return { list: rows.map(({ total: _total, ...row }) => row as PeriodRow), total }
  }

  private async countPeriods(where: string[], values: unknown[]): Promise<number> {
    const { rows } = await this.pool.query(`SELECT count(*)::int AS total FROM ${PERIODS_IN_WINDOWS} WHERE ${where.join(' AND ')}`, values)
    return rows[0].total
  }
}
