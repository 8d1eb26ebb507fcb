// Keeps the inspection periods as they start (enterprise edition): the tasks whose next period has
// come (by index: a write of the task, its next start, a calendar change) get their periods
// computed (domain/supervision) and written, judged at once by the records already there. Run by a
// pg-boss job every few seconds, which schedules its own next run, and before every read of periods
// or indicators, so a read never misses a period that has started.
import type { FastifyBaseLogger } from 'fastify'
import { duePeriods, nextDueStart, type ScheduleVersion } from '../../domain/supervision/inspection-periods.ts'
import { workingDays } from '../../domain/supervision/working-days.ts'
import type { Zone } from '../../domain/supervision/zone.ts'
import type { Background } from '../../store/background.ts'
import type { DueSchedule, InspectionStore } from '../../store/inspection-store.ts'
import type { MissedPeriodEvents } from './missed-period-events.ts'
import type { OverdueEvents } from './overdue-events.ts'

export const PERIODS_QUEUE = 'inspection-periods'
/** Seconds between runs: a period appears, and turns missed, well within 15 s of its start and end. */
export const PERIODS_EVERY_SECONDS = 5
/** Tasks per transaction, and periods per task per pass (a task far behind catches up over several). */
const TASKS_AT_ONCE = 100
const PERIODS_AT_ONCE = 2000
/** Transactions of a catch-up before a read (a task far behind catches up in the background); of a run of the job. */
const PASSES_BEFORE_A_READ = 25
const PASSES_PER_RUN = 200
/** Periods start at most this long before the task's schedule was first looked at (its add): a start far back keeps ten years. */
export const PERIODS_KEPT_BACK_MS = 3653 * 24 * 3600_000

export class PeriodUpkeep {
  private readonly store: InspectionStore
  private readonly background: Background
  private readonly zone: Zone
  private readonly clock: () => number
  private readonly log: Pick<FastifyBaseLogger, 'warn'>
  private readonly written: () => void
  private beforeFirstRun: (() => Promise<void>) | undefined
  /** Records the periods that ended without a record (after each run's catch-up). */
  private readonly missed: MissedPeriodEvents | undefined
  /** Records the hidden dangers and work tickets become overdue (the same job is their timer). */
  private readonly overdue: Pick<OverdueEvents, 'recordDue'> | undefined
  /** The catch-up running now: callers arriving meanwhile wait for it, then run their own. */
  private running: Promise<void> = Promise.resolve()

  constructor(options: {
    store: InspectionStore
    background: Background
    zone: Zone
    clock?: () => number
    log: Pick<FastifyBaseLogger, 'warn'>
    /** Told when periods were written (they are pushed like records). */
    written?: () => void
    /** Done by the job before its first catch-up (again at its next run while it fails), not as the edition starts. */
    beforeFirstRun?: () => Promise<void>
    missed?: MissedPeriodEvents
    overdue?: Pick<OverdueEvents, 'recordDue'>
  }) {
    this.beforeFirstRun = options.beforeFirstRun
    this.written = options.written ?? (() => undefined)
    this.store = options.store
    this.background = options.background
    this.zone = options.zone
    this.clock = options.clock ?? Date.now
    this.log = options.log
    this.missed = options.missed
    this.overdue = options.overdue
  }

  async start(): Promise<void> {
    await this.background.queue(PERIODS_QUEUE, { policy: 'stately', cron: '* * * * *', work: { pollingIntervalSeconds: 1 } }, async () => {
      try {
        if (this.beforeFirstRun) {
          await this.beforeFirstRun()
          this.beforeFirstRun = undefined
          // What it wrote (the enterprise's zone) is pushed like periods: the push is woken for it.
          this.written()
        }
        await this.catchUp(PASSES_PER_RUN)
        await this.missed?.recordDue(this.clock())
        await this.overdue?.recordDue(this.clock())
      } finally {
        await this.background.boss.send(PERIODS_QUEUE, {}, { startAfter: PERIODS_EVERY_SECONDS }).catch((error: unknown) => {
          this.log.warn({ err: error }, 'inspection periods: next run not scheduled (the minute schedule still runs)')
        })
      }
    })
    await this.background.boss.send(PERIODS_QUEUE, {})
  }

  async stop(): Promise<void> {
    await this.background.release(PERIODS_QUEUE)
  }

  /** Writes the periods that have started and are not yet written (at most `passes` transactions of them). */
  catchUp(passes = PASSES_BEFORE_A_READ): Promise<void> {
    const run = this.running.catch(() => undefined).then(() => this.catchUpNow(passes))
    this.running = run
    return run
  }

  private async catchUpNow(passes: number): Promise<void> {
    let wrote = false
    try {
      await this.passes(passes, () => (wrote = true))
    } finally {
      if (wrote) this.written()
    }
  }

  private async passes(passes: number, wrote: () => void): Promise<void> {
    for (let pass = 0; pass < passes; pass++) {
      const now = this.clock()
      // A task with more periods than a pass writes is due again at once: another pass follows.
      let behind = false
      const taken = await this.store.withDueSchedules(now, TASKS_AT_ONCE, async (schedules, db) => {
        const calendars = await this.store.calendars([...new Set(schedules.map((schedule) => schedule.companyCode))], db)
        for (const schedule of schedules) {
          const calendar = workingDays(calendars.get(schedule.companyCode) ?? [])
          const versions = schedule.versions as ScheduleVersion[]
          const from = schedule.resumeFrom ?? now - PERIODS_KEPT_BACK_MS
          const found = duePeriods({ versions, calendar, zone: this.zone, from, until: now, limit: PERIODS_AT_ONCE })
          const periods = found.map((period) => ({ ...period, id: periodId(schedule, period.start), taskId: schedule.taskId }))
          await this.store.addPeriods(db, schedule.companyCode, periods)
          await this.missed?.watch(db, schedule.companyCode, periods, now)
          if (found.length > 0) wrote()
          const last = found.at(-1)
          const more = found.length === PERIODS_AT_ONCE
          behind ||= more
          const resumeFrom = more && last ? last.end : Math.max(last?.end ?? Number.NEGATIVE_INFINITY, now + 1, schedule.resumeFrom ?? 0)
          const nextStart = more ? now : nextDueStart({ versions, calendar, zone: this.zone, from: resumeFrom })
          await this.store.saveProgress(db, schedule, resumeFrom, nextStart)
        }
      })
      if (taken < TASKS_AT_ONCE && !behind) return
    }
  }
}

/** A period's id: its task's and its start's (UTC), unique within the enterprise and the same wherever computed. */
export function periodId(schedule: Pick<DueSchedule, 'taskId'>, start: number): string {
  return `${schedule.taskId}@${new Date(start).toISOString().replace('.000Z', 'Z')}`
}
