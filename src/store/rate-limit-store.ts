// A @fastify/rate-limit store over PostgreSQL (no maintained one exists): the counters live in the
// database every instance shares, so N instances allow the configured rate, not N times it. The
// window's clock is the database's, the same for every instance; expired rows are pruned by
// housekeeping (store/housekeeping.ts).
//
// A round trip per request on one hot row per caller would cost more than the request itself, so
// counting is exact only where it matters: a caller's first request of a window, and every request
// once its count is past half its limit (or for limits under BATCH_FROM), goes to the database with
// whatever this instance counted meanwhile. Below that, requests are counted here and sent every
// FLUSH_MS in one statement for all callers. A caller over its limit is answered from here (still
// counted), so an abusive client cannot load the database. Across instances the slack is what the
// others counted in their last FLUSH_MS while their caller was under half its limit.
import type { Queryable } from './database.ts'

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void

/** How often counts made below half a limit are sent. */
export const FLUSH_MS = 50
/** Limits smaller than this are counted exactly on every request. */
export const BATCH_FROM = 100

// Adds each key's count (starting a new window where the old one is over); keys sorted by the
// caller, so that instances lock the same rows in the same order.
const ADD = `
  INSERT INTO rate_limit (key, count, "resetAt")
  SELECT key, n, now() + make_interval(secs => w / 1000.0) FROM unnest($1::text[], $2::int[], $3::int[]) AS t(key, n, w)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN rate_limit."resetAt" <= now() THEN excluded.count ELSE rate_limit.count + excluded.count END,
    "resetAt" = CASE WHEN rate_limit."resetAt" <= now() THEN excluded."resetAt" ELSE rate_limit."resetAt" END
  RETURNING key, count, greatest(ceil(extract(epoch FROM "resetAt" - now()) * 1000), 0)::int AS ttl`

const READ = `SELECT count, greatest(ceil(extract(epoch FROM "resetAt" - now()) * 1000), 0)::int AS ttl
  FROM rate_limit WHERE key = $1 AND "resetAt" > now()`

/** What this instance knows of one key's window. */
interface Window {
  /** The count the database last answered. */
  known: number
  /** Counted here, not yet sent. */
  pending: number
  /** Sent, not yet answered. */
  inflight: number
  /** When the window ends, on this instance's clock (from the database's ttl). */
  endsAt: number
  windowMs: number
}

/** The counts of every key of one database, shared by the stores of every route. */
class Counter {
  private readonly windows = new Map<string, Window>()
  private timer: NodeJS.Timeout | undefined
  private readonly pool: Queryable
  private readonly clock: () => number

  constructor(pool: Queryable, clock: () => number) {
    this.pool = pool
    this.clock = clock
  }

  incr(key: string, windowMs: number, max: number, callback: Callback): void {
    const now = this.clock()
    const window = this.windows.get(key)
    if (window && now < window.endsAt) {
      const current = window.known + window.inflight + window.pending + 1
      if (current > max || (max >= BATCH_FROM && current <= max / 2)) {
        window.pending++
        this.schedule()
        return callback(null, { current, ttl: window.endsAt - now })
      }
    }
    const sent = (window && now < window.endsAt ? window.pending : 0) + 1
    if (window) window.pending = 0
    this.send([[key, sent, windowMs]]).then(
      (answers) => callback(null, answers.get(key)),
      (error: Error) => callback(error),
    )
  }

  read(key: string, callback: Callback): void {
    const window = this.windows.get(key)
    const now = this.clock()
    if (window && now < window.endsAt) {
      return callback(null, { current: window.known + window.inflight + window.pending, ttl: window.endsAt - now })
    }
    this.pool.query(READ, [key]).then(
      ({ rows }) => callback(null, rows[0] ? { current: rows[0].count, ttl: rows[0].ttl } : { current: 0, ttl: 0 }),
      (error: Error) => callback(error),
    )
  }

  private schedule(): void {
    // A failed flush only forgives a few requests: it is no request's to fail.
    this.timer ??= setTimeout(() => void this.flush().catch(() => {}), FLUSH_MS).unref()
  }

  /** Sends what was counted here (counts of windows already over are dropped: they forgive nothing now). */
  async flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    const now = this.clock()
    const batch: [string, number, number][] = []
    for (const [key, window] of this.windows) {
      if (window.pending > 0 && now < window.endsAt) batch.push([key, window.pending, window.windowMs])
      window.pending = 0
      if (window.inflight === 0 && now >= window.endsAt) this.windows.delete(key)
    }
    if (batch.length > 0) await this.send(batch)
  }

  /** Adds the counts in one statement; what the database answers becomes what is known. */
  private async send(batch: [key: string, count: number, windowMs: number][]): Promise<Map<string, { current: number; ttl: number }>> {
    batch.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    for (const [key, count, windowMs] of batch) {
      const window = this.windows.get(key) ?? { known: 0, pending: 0, inflight: 0, endsAt: 0, windowMs }
      window.inflight += count
      this.windows.set(key, window)
    }
    const sent = new Map(batch.map(([key, count]) => [key, count]))
    try {
      const { rows } = await this.pool.query(ADD, [batch.map(([key]) => key), batch.map(([, n]) => n), batch.map(([, , w]) => w)])
      const answers = new Map<string, { current: number; ttl: number }>()
      const now = this.clock()
      for (const { key, count, ttl } of rows as { key: string; count: number; ttl: number }[]) {
        answers.set(key, { current: count, ttl })
        const window = this.windows.get(key)!
        const endsAt = now + ttl
        // Answers may arrive out of order: within a window the larger count is the later one.
        window.known = endsAt > window.endsAt + window.windowMs / 2 ? count : Math.max(window.known, count)
        window.endsAt = Math.max(window.endsAt, endsAt)
      }
      return answers
    } finally {
      for (const [key, count] of sent) {
        const window = this.windows.get(key)
        if (window) window.inflight -= count
      }
    }
  }
}

export class PgRateLimitStore {
  private readonly counter: Counter
  private readonly prefix: string

  private constructor(counter: Counter, prefix: string) {
    this.counter = counter
    this.prefix = prefix
  }

  /** The store class @fastify/rate-limit instantiates (`new Store(options)`), bound to the pool. */
  static over(pool: Queryable, clock: () => number = Date.now): new () => PgRateLimitStore {
    const counter = new Counter(pool, clock)
    return class extends PgRateLimitStore {
      constructor() {
        super(counter, '')
      }
    }
  }

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.counter.incr(this.prefix + key, timeWindow, max, callback)
  }

  /** Sends the counts made here now (they are otherwise sent every FLUSH_MS). */
  flush(): Promise<void> {
    return this.counter.flush()
  }

  read(key: string, callback: Callback): void {
    this.counter.read(this.prefix + key, callback)
  }

  /** A route's own limit counts apart from the others (@fastify/rate-limit passes the route as `routeInfo`). */
  child(routeOptions: object): PgRateLimitStore {
    const route: { method?: unknown; url?: unknown } =
      'routeInfo' in routeOptions && typeof routeOptions.routeInfo === 'object' ? (routeOptions.routeInfo ?? {}) : {}
    return new PgRateLimitStore(this.counter, `${this.prefix}${String(route.method ?? '')}${String(route.url ?? '')}-`)
  }
}
