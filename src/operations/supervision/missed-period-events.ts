// `period.missed` (docs/events.md): run by the period upkeep's job every few seconds, it records one
// event per inspection period that ended without a record, in the transaction that marks the
// period (store/missed-period-store.ts), so that it is recorded once, whichever instance runs it;
// and one per period written already ended without a record, as it is written.
import type { Queryable } from '../../store/database.ts'
import { recordEvent } from '../../store/event-store.ts'
import type { InstantFormatter } from '../../store/instant-format.ts'
import type { MissedPeriodStore } from '../../store/missed-period-store.ts'

/** Periods per transaction. */
const PERIODS_AT_ONCE = 500
/** How a period is named in its event (the path its reads answer at). */
export const PERIOD_RESOURCE_PATH = 'prevent/troubleshootTask/periods'

export class MissedPeriodEvents {
  private readonly store: MissedPeriodStore
  private readonly format: InstantFormatter
  private readonly keptMs: number

  constructor(options: { store: MissedPeriodStore; format: InstantFormatter; eventRetentionDays: number }) {
    this.store = options.store
    this.format = options.format
    this.keptMs = options.eventRetentionDays * 86_400_000
  }

  /**
   * Watches the periods just written (in their transaction): those running at `now`, and those
   * written already ended within the events' retention (the feed would drop an older one at once).
   */
  watch(db: Queryable, companyCode: string, periods: readonly { id: string; end: number }[], now: number): Promise<void> {
    return this.store.watch(db, companyCode, periods, now, now - this.keptMs)
  }

  /** Records the periods missed by `now`, each once. */
  async recordDue(now: number): Promise<void> {
    for (;;) {
      const marked = await this.store.takeMissed(new Date(now), PERIODS_AT_ONCE, async (periods, db) => {
        for (const period of periods) {
          const data = {
            resource: PERIOD_RESOURCE_PATH,
            id: period.id,
            taskId: period.taskId,
            start: this.format(period.start),
            end: this.format(period.end),
            workType: period.workType,
          }
          // A period written already ended is missed as it is written: its event is of then, so that
          // the feed's times follow its order (retention prunes by time, oldest first).
          await recordEvent(db, { type: 'period.missed', companyCode: period.companyCode, time: period.missedAt, data })
        }
      })
      if (marked < PERIODS_AT_ONCE) return
    }
  }
}
