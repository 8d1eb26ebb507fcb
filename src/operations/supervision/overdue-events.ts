// `danger.overdue` and `ticket.overdue` (docs/events.md): run by the period upkeep's job every few
// seconds (the timer), it records the event of each hidden danger and work ticket that has become
// overdue, once per record and deadline, in the transaction that notes it (store/overdue-store.ts).
import { inTransaction } from '../../store/database.ts'
import type { OverdueStore } from '../../store/overdue-store.ts'
import type pg from 'pg'

/** Records of each kind per transaction; transactions per run. */
const AT_ONCE = 500
const PASSES_PER_RUN = 100

export class OverdueEvents {
  private readonly pool: pg.Pool
  private readonly store: OverdueStore
  /** The enterprise's zone (`TZ`): its current date decides a hidden danger's overdue. */
  private readonly timeZone: string

  constructor(options: { pool: pg.Pool; store: OverdueStore; timeZone: string }) {
    this.pool = options.pool
    this.store = options.store
    this.timeZone = options.timeZone
  }

  /** Records the events of the records overdue at `now` and not yet announced for their deadline. */
  async recordDue(now: number): Promise<void> {
    for (let pass = 0; pass < PASSES_PER_RUN; pass++) {
      const more = await inTransaction(this.pool, (client) => this.store.announce(client, new Date(now), this.timeZone, AT_ONCE))
      if (!more) return
    }
  }
}
