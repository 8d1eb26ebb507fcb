// The background work of live monitoring, on the process's pg-boss (store/background.ts):
// - the offline sweep: raises `offline` for the points whose deadline has come, and clears the
//   alarms of equipment deleted while they were active (no reading can clear them any more). A
//   timer of each instance asks for a sweep every few seconds (a cron runs at most once a minute;
//   the alarm is due within 15 s of its deadline), and a cron each minute asks too, should no
//   instance's timer run.
//   The queue holds one waiting job at most, so instances sharing the database sweep in turn, and
//   rows are taken SKIP LOCKED. The timer does not keep an idle process alive.
// - the readings' partitions: the next days' made ahead and those past READINGS_RETENTION_DAYS
//   dropped, hourly and at start.
import type { FastifyBaseLogger } from 'fastify'
import { checkOffline, offlineDeadline } from '../domain/monitoring/alarm-evaluation.ts'
import type { AlarmStore } from '../store/alarm-store.ts'
import type { Background } from '../store/background.ts'
import { inTransaction } from '../store/database.ts'
import { type PointUpdate, readingSecond, type ReadingStore } from '../store/reading-store.ts'
import type pg from 'pg'
import { type ReadingIngest, settingsOf, stateOf } from './reading-ingest.ts'

export const OFFLINE_QUEUE = 'monitoring-offline'
export const PARTITIONS_QUEUE = 'monitoring-partitions'
/** Seconds between two sweeps. */
const SWEEP_EVERY_SECONDS = 5
/** Points taken per transaction of a sweep. */
const SWEEP_PAGE = 500
const DAY_MS = 86_400_000

export class MonitoringJobs {
  private readonly pool: pg.Pool
  private readonly background: Background
  private readonly readings: ReadingStore
  private readonly alarms: AlarmStore
  private readonly ingest: ReadingIngest
  private readonly retentionDays: number
  private readonly clock: () => number
  private readonly log: FastifyBaseLogger
  private readonly changed: () => void
  private timer: NodeJS.Timeout | undefined

  constructor(options: {
    pool: pg.Pool
    background: Background
    readings: ReadingStore
    alarms: AlarmStore
    ingest: ReadingIngest
    retentionDays: number
    clock: () => number
    log: FastifyBaseLogger
    /** Called once a sweep changed alarms (the push and the events are woken, as a write wakes them). */
    changed?: () => void
  }) {
    this.pool = options.pool
    this.background = options.background
    this.readings = options.readings
    this.alarms = options.alarms
    this.ingest = options.ingest
    this.retentionDays = options.retentionDays
    this.clock = options.clock
    this.log = options.log
    this.changed = options.changed ?? (() => {})
  }

  async start(): Promise<void> {
    const { background } = this
    // Today's partition exists before the first reading is taken. A database too slow for it now
    // does not stop the start: ingest makes the partitions its readings need, and the job runs hourly.
    await this.maintainPartitions().catch((error: unknown) => this.log.warn({ err: error }, 'reading partitions: left to the next run'))
    await background.queue(PARTITIONS_QUEUE, { policy: 'stately', cron: '7 * * * *' }, async () => void (await this.maintainPartitions()))
    await background.queue(OFFLINE_QUEUE, { policy: 'stately', cron: '* * * * *' }, async () => {
      const raised = await this.sweepOffline()
      const cleared = await this.clearAlarmsOfDeleted()
      if (raised + cleared > 0) this.changed()
    })
    const ask = () => void background.boss.send(OFFLINE_QUEUE, {}).catch((error: unknown) => this.log.warn({ err: error }, 'offline sweep'))
    ask()
    this.timer = setInterval(ask, SWEEP_EVERY_SECONDS * 1000).unref()
  }

  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.background.release(OFFLINE_QUEUE)
    await this.background.release(PARTITIONS_QUEUE)
  }

  /** Raises `offline` where due by the clock; answers how many were raised. */
  async sweepOffline(): Promise<number> {
    const now = this.clock()
    let raised = 0
    for (;;) {
      const taken = await inTransaction(this.pool, async (db) => {
        const points = await this.readings.lockDueOffline(db, new Date(now), SWEEP_PAGE)
        const updates: PointUpdate[] = []
        for (const point of points) {
          const settings = settingsOf(point.settings)
          const outcome = checkOffline(stateOf(point), settings, now)
          await this.ingest.apply(db, point, outcome.changes)
          raised += outcome.changes.length
          const deadline = offlineDeadline(outcome.state, settings)
          updates.push({
            point: point.point,
            state: outcome.state,
            offlineDue: deadline === null ? null : new Date(deadline),
            newest: undefined,
          })
        }
        await this.readings.updatePoints(db, updates, 'exact')
        return points.length
      })
      if (taken < SWEEP_PAGE) return raised
    }
  }

  /**
   * Clears the active alarms of deleted equipment, as of the deletion (by `system`, `endValue`
   * null); answers how many. Two instances at once clear each alarm once: the clear changes only
   * an alarm still active.
   */
  async clearAlarmsOfDeleted(): Promise<number> {
    let cleared = 0
    for (;;) {
      const found = await inTransaction(this.pool, async (db) => {
        const alarms = await this.alarms.activeOfDeleted(db, SWEEP_PAGE)
        for (const alarm of alarms) await this.alarms.clear(db, alarm.monitorEquipId, alarm.kind, alarm.deletedAt, null)
        return alarms.length
      })
      cleared += found
      if (found < SWEEP_PAGE) return cleared
    }
  }

  /** Makes the partitions from yesterday to two days ahead, and drops those past the retention. */
  async maintainPartitions(): Promise<string[]> {
    const now = this.clock()
    await this.readings.ensurePartitions([-1, 0, 1, 2].map((days) => readingSecond(now + days * DAY_MS)))
    const dropped = await this.readings.dropBefore(readingSecond(now - this.retentionDays * DAY_MS))
    if (dropped.length > 0) this.log.info({ dropped, days: this.retentionDays }, 'readings past their retention dropped')
    return dropped
  }
}
