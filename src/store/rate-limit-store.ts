// A @fastify/rate-limit store over PostgreSQL (no maintained one exists): the counters live in the
// database every instance shares, so N instances allow the configured rate, not N times it. One
// statement a check: the key's row is counted up, or started afresh once its window is over; the
// window's clock is the database's, the same for every instance. Expired rows are pruned by
// housekeeping (store/housekeeping.ts).
import type pg from 'pg'

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void

const INCREMENT = `
  INSERT INTO rate_limit (key, count, "resetAt") VALUES ($1, 1, now() + make_interval(secs => $2 / 1000.0))
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN rate_limit."resetAt" <= now() THEN 1 ELSE rate_limit.count + 1 END,
    "resetAt" = CASE WHEN rate_limit."resetAt" <= now() THEN excluded."resetAt" ELSE rate_limit."resetAt" END
  RETURNING count, greatest(ceil(extract(epoch FROM "resetAt" - now()) * 1000), 0)::int AS ttl`

const READ = `SELECT count, greatest(ceil(extract(epoch FROM "resetAt" - now()) * 1000), 0)::int AS ttl
  FROM rate_limit WHERE key = $1 AND "resetAt" > now()`

export class PgRateLimitStore {
  private readonly pool: pg.Pool
  private readonly prefix: string

  constructor(pool: pg.Pool, prefix = '') {
    this.pool = pool
    this.prefix = prefix
  }

  /** The store class @fastify/rate-limit instantiates (`new Store(options)`), bound to the pool. */
  static over(pool: pg.Pool): new () => PgRateLimitStore {
    return class extends PgRateLimitStore {
      constructor() {
        super(pool)
      }
    }
  }

  incr(key: string, callback: Callback, timeWindow: number): void {
    this.pool.query(INCREMENT, [this.prefix + key, timeWindow]).then(
      ({ rows }) => callback(null, { current: rows[0].count, ttl: rows[0].ttl }),
      (error: Error) => callback(error),
    )
  }

  read(key: string, callback: Callback): void {
    this.pool.query(READ, [this.prefix + key]).then(
      ({ rows }) => callback(null, rows[0] ? { current: rows[0].count, ttl: rows[0].ttl } : { current: 0, ttl: 0 }),
      (error: Error) => callback(error),
    )
  }

  /** A route's own limit counts apart from the others (@fastify/rate-limit passes the route as `routeInfo`). */
  child(routeOptions: object): PgRateLimitStore {
    const route: { method?: unknown; url?: unknown } =
      'routeInfo' in routeOptions && typeof routeOptions.routeInfo === 'object' ? (routeOptions.routeInfo ?? {}) : {}
    return new PgRateLimitStore(this.pool, `${this.prefix}${String(route.method ?? '')}${String(route.url ?? '')}-`)
  }
}
