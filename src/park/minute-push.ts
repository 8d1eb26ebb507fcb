// The push of readings to the park: one aggregate per point and minute (/system/push/readings), not
// the readings. The ingest notes each minute it changed in the readings' own transaction
// (store/minute-store.ts); a drain pushes the oldest notes' aggregates, recomputed from the stored
// readings, and forgets a note only once the park answered for it and only if the minute was not
// noted again meanwhile. A call the park did not judge throws (ParkUnavailable) and forgets
// nothing: the push's backoff, probe and sweep (park-push.ts) drive the next attempt, and a
// restart finds the notes where they were. The park replaces a minute at each push of it, so a
// minute pushed twice (an answer lost) does no harm.
import type { FastifyBaseLogger } from 'fastify'
import type { ChangedMinutes } from '../store/minute-store.ts'
import type { PushStream } from './companion-push.ts'
import type { ParkClient } from './park-client.ts'

/** Minutes in one call. */
const MINUTES_PAGE = 1000

export class MinutePush implements PushStream {
  readonly name = 'readingMinutes'
  private readonly minutes: ChangedMinutes
  private readonly client: Pick<ParkClient, 'pushReadings'>
  private readonly log: FastifyBaseLogger
  /** Since start: calls made, minutes the park applied, minutes it refused. */
  readonly stats = { calls: 0, applied: 0, refused: 0 }

  constructor(options: { minutes: ChangedMinutes; client: Pick<ParkClient, 'pushReadings'>; log: FastifyBaseLogger }) {
    this.minutes = options.minutes
    this.client = options.client
    this.log = options.log
  }

  waiting(): Promise<boolean> {
    return this.minutes.hasChanged()
  }

  /** How many minutes wait to be pushed. */
  backlog(): Promise<number> {
    return this.minutes.waiting()
  }

  /**
   * The minutes noted before it started: under a steady load of readings the current minutes are
   * noted again all the time, and a drain taking them too would never end (nor let records and
   * alarms through). The readings' calls wake the push for the rest.
   */
  async drain(): Promise<void> {
    const upTo = await this.minutes.lastChange()
    if (upTo === null) return
    for (;;) {
      const page = await this.minutes.page(MINUTES_PAGE, upTo)
      if (page.length === 0) return
      const items = page.flatMap((minute) => (minute.item ? [minute.item] : []))
      if (items.length > 0) {
        this.stats.calls++
        const answer = await this.client.pushReadings(items)
        this.stats.applied += answer.applied
        this.stats.refused += answer.failed.length
        // A refused minute is not the park's to take as it is: pushing it again unchanged would not help.
        for (const failure of answer.failed) {
          this.log.warn({ minute: items[failure.index], code: failure.code, reason: failure.reason }, 'park refused a minute of readings')
        }
      }
      await this.minutes.forget(page)
      if (page.length < MINUTES_PAGE) return
    }
  }
}
