// The push of readings to the park: one aggregate per point and minute (/system/push/readings), not
// the readings. The ingest notes on each point the earliest minute it changed, in the readings' own
// transaction (store/minute-store.ts); a drain claims what was noted when it began, pushes the
// claimed minutes' aggregates, recomputed from the stored readings, page by page, and releases a
// page once the park answered for it. A call the park did not judge throws (ParkUnavailable) and
// releases nothing: the push's backoff, probe and sweep (park-push.ts) drive the next attempt, and
// a restart finds the claims where they were. The park replaces a minute at each push of it, so a
// minute pushed twice (an answer lost, a minute claimed again) does no harm. Drains of minutes start
// at most every INTERVAL_MS: each reads the current minutes' readings again, and under a steady load
// of readings the push would otherwise do so back to back.
import type { FastifyBaseLogger } from 'fastify'
import type { ChangedMinutes } from '../store/minute-store.ts'
import type { PushStream } from './companion-push.ts'
import type { ParkClient } from './park-client.ts'

/** The least time between the starts of two drains of minutes. */
export const INTERVAL_MS = 5_000

export class MinutePush implements PushStream {
  readonly name = 'readingMinutes'
  private readonly minutes: ChangedMinutes
  private readonly client: Pick<ParkClient, 'pushReadings'>
  private readonly log: FastifyBaseLogger
  private readonly clock: () => number
  /** When the last drain started (the clock's milliseconds). */
  private lastStart = -Infinity
  /** Since start: calls made, minutes the park applied, minutes it refused. */
  readonly stats = { calls: 0, applied: 0, refused: 0 }

  constructor(options: {
    minutes: ChangedMinutes
    client: Pick<ParkClient, 'pushReadings'>
    log: FastifyBaseLogger
    clock?: () => number
  }) {
    this.minutes = options.minutes
    this.client = options.client
    this.log = options.log
    this.clock = options.clock ?? Date.now
  }

  waiting(): Promise<boolean> {
    return this.minutes.hasChanged()
  }

  /** How many points have minutes waiting to be pushed. */
  backlog(): Promise<number> {
    return this.minutes.waiting()
  }

  /**
   * Pushes the minutes noted before it started (its claim): under a steady load of readings the
   * current minutes are noted again all the time, and a drain taking them too would never end (nor
   * let records and alarms through). The readings' calls wake the push for the rest. Within
   * INTERVAL_MS of the last drain's start it holds back, answering when to come again.
   */
  async drain(): Promise<number | undefined> {
    const since = this.clock() - this.lastStart
    if (since < INTERVAL_MS) return INTERVAL_MS - since
    this.lastStart = this.clock()
    await this.minutes.claim()
    let from: number | undefined = 0
    while (from !== undefined) {
      const page = await this.minutes.page(from)
      const items = page.minutes.map((minute) => minute.item)
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
      await this.minutes.release(page.points)
      from = page.next
    }
    return undefined
  }
}
