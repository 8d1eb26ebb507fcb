// While the park is known unreachable, the push looks at the park's liveness (GET /health/live: no
// login, no database on the park) every SYNC_PARK_PROBE_MS, so that a park coming back is fed at
// once instead of after the push's backoff (up to SYNC_RETRY_DELAY_MAX_SECONDS). Only a look that
// failed followed by one that answered calls `onBack`: a park that answers but refuses or fails the
// pushes is left to the backoff, never knocked on at the probe's pace. One look at a time, on an
// unref'd timer; nothing left behind once stopped.
import type { FastifyBaseLogger } from 'fastify'

export interface ProbeOptions {
  /** Whether the park answered within `timeoutMs`; never throws; gives up when `signal` aborts. */
  reachable: (timeoutMs: number, signal: AbortSignal) => Promise<boolean>
  intervalMs: number
  /** Of one look; a live park answers its liveness check in milliseconds. */
  timeoutMs: number
  /** The park answered after a look that failed. */
  onBack: () => void
  log: FastifyBaseLogger
}

export class ParkProbe {
  private readonly options: ProbeOptions
  /** The current round of looks (from start to stop); aborting it ends the look in flight. */
  private round: AbortController | undefined
  private timer: NodeJS.Timeout | undefined
  /** Looks in flight: one at a time in a round, an aborted one may still be ending as the next round starts. */
  private readonly inFlight = new Set<Promise<void>>()
  /** The last look of this round failed: the next one that answers is the park coming back. */
  private down = false
  /** Since start: looks that found nothing answering, and looks the park answered. */
  readonly looks = { failed: 0, answered: 0 }

  constructor(options: ProbeOptions) {
    this.options = options
  }

  get running(): boolean {
    return this.round !== undefined
  }

  /** Starts looking (the first look at once), unless already looking. */
  start(): void {
    if (this.round) return
    const round = new AbortController()
    this.round = round
    this.down = false
    this.next(round, 0)
  }

  /** Stops looking: no timer left, the look in flight aborted. */
  stop(): void {
    this.round?.abort()
    this.round = undefined
    clearTimeout(this.timer)
    this.timer = undefined
  }

  /** Resolves once the looks in flight (if any) have ended. */
  async settled(): Promise<void> {
    await Promise.all(this.inFlight)
  }

  private next(round: AbortController, delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined
      const look: Promise<void> = this.look(round).finally(() => this.inFlight.delete(look))
      this.inFlight.add(look)
    }, delayMs).unref()
  }

  private async look(round: AbortController): Promise<void> {
    const { reachable, intervalMs, timeoutMs, onBack, log } = this.options
    const answered = await reachable(timeoutMs, round.signal)
    if (round.signal.aborted) return
    if (answered) this.looks.answered++
    else this.looks.failed++
    if (!answered && !this.down) {
      this.down = true
      log.info({ everyMs: intervalMs }, 'park unreachable: watching for it to come back')
    } else if (answered && this.down) {
      this.down = false
      log.info('park reachable again: pushing now')
      try {
        onBack()
      } catch (error) {
        log.warn({ err: error }, 'park probe: could not start a push')
      }
    }
    // onBack may have stopped this round.
    if (!round.signal.aborted) this.next(round, intervalMs)
  }
}
