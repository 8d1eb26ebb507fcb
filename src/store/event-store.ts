// Events out (docs/events.md): writes append their events to `event_inbox` in their own
// transaction (history-sql.ts for record events, recordEvent for any other); one sequencer at a
// time numbers the committed ones into `event` (migration 130 says why); the feed reads `event` by
// seq; retention prunes the oldest.
import type pg from 'pg'
import { deleteInBatches, inTransaction, type Queryable } from './database.ts'

/** An event as stored: `data` of a record event holds `changes` as the history entry stores them. */
export interface StoredEvent {
  seq: number
  id: string
  type: string
  time: Date
  companyCode: string
  data: Record<string, unknown>
}

export interface FeedQuery {
  /** Exclusive; undefined: from the oldest kept. */
  after: number | undefined
  types: string[] | undefined
  pageSize: number
  /** One enterprise's events only (an enterprise account on the park). */
  companyCode: string | undefined
}

export interface FeedPage {
  list: StoredEvent[]
  /** The last seq given (0: none yet). */
  last: number
  /** The oldest seq kept; undefined when none is. */
  oldest: number | undefined
}

/** An event to record: in the transaction of what caused it. */
export interface NewEvent {
  type: string
  companyCode: string
  data: Record<string, unknown>
  /** When it happened; the transaction's time when absent. */
  time?: Date
}

/**
 * Records an event in the caller's transaction (`db`): it commits, or rolls back, with what caused
 * it, and enters the feed (and the webhooks' deliveries) once the sequencer has numbered it.
 */
export async function recordEvent(db: Queryable, event: NewEvent): Promise<void> {
  await db.query(`INSERT INTO event_inbox (type, time, "companyCode", data) VALUES ($1, coalesce($2::timestamptz, now()), $3, $4)`, [
    event.type,
    event.time ?? null,
    event.companyCode,
    event.data,
  ])
}

/** How many inbox events one sequencer transaction numbers at most. */
const SEQUENCE_BATCH = 5000
const SEQUENCER_LOCK = 'safety-platform:event-sequencer'
/** The sequencer vacuums the inbox at most this often, after numbering events. */
const INBOX_VACUUM_MS = 1000

/**
 * Numbers, in arrival order, the committed inbox events the statement sees (at most $1), after the
 * last seq given, and moves them into `event`. Runs under the sequencer's lock only.
 */
const SEQUENCE_SQL =
  `WITH moved AS (DELETE FROM event_inbox WHERE arrival IN (SELECT arrival FROM event_inbox ORDER BY arrival LIMIT $1) ` +
  `RETURNING arrival, type, time, "companyCode", data), ` +
  `numbered AS (SELECT (SELECT last FROM event_counter) + row_number() OVER (ORDER BY arrival) AS seq, type, time, "companyCode", data FROM moved), ` +
  `stored AS (INSERT INTO event (seq, id, type, time, "companyCode", data) ` +
  `SELECT seq, gen_random_uuid(), type, time, "companyCode", data FROM numbered RETURNING seq), ` +
  `counted AS (UPDATE event_counter SET last = last + (SELECT count(*) FROM stored) WHERE EXISTS (SELECT 1 FROM stored)) ` +
  `SELECT count(*)::int AS n FROM stored`

export class EventStore {
  /** The feed's reads. */
  private readonly pool: pg.Pool
  /** The sequencer's work (a pool of its own in the service: never a request's connection). */
  private readonly sequencerPool: pg.Pool
  /** Run in the sequencer's transaction after it numbered events (the webhooks' deliveries are planned there). */
  private readonly afterSequence: ((client: pg.PoolClient, first: number, last: number) => Promise<void>) | undefined
  /** When this process's sequencer last vacuumed the inbox (performance.now()). */
  private vacuumed = -Infinity

  constructor(options: {
    pool: pg.Pool
    sequencerPool?: pg.Pool
    afterSequence?: (client: pg.PoolClient, first: number, last: number) => Promise<void>
  }) {
    this.pool = options.pool
    this.sequencerPool = options.sequencerPool ?? options.pool
    this.afterSequence = options.afterSequence
  }

  /**
   * Numbers every event committed before this call (and any committed meanwhile); answers how many it
   * numbered. Several callers (instances) take turns: the second waits for the first, then numbers
   * what is left, so that when it returns every event committed before the call is readable.
   */
  async sequence(): Promise<number> {
    // Nothing waiting (an inbox row being moved is still seen until its move commits): no lock taken.
    const { rows } = await this.sequencerPool.query<{ waiting: boolean }>('SELECT EXISTS (SELECT 1 FROM event_inbox) AS waiting')
    if (!rows[0].waiting) return 0
    let total = 0
    for (;;) {
      const numbered = await this.sequenceBatch()
      total += numbered
      if (numbered < SEQUENCE_BATCH) break
    }
    if (total > 0) await this.vacuumInbox()
    return total
  }

  /**
   * Vacuums the inbox, at most once an INBOX_VACUUM_MS: every event passes through it, and its dead
   * rows, left to autovacuum (minutes apart), are read again by every run of the sequencer until
   * then. Without truncating (that would take a lock the writes' appends wait for).
   */
  private async vacuumInbox(): Promise<void> {
    const now = performance.now()
    if (now - this.vacuumed < INBOX_VACUUM_MS) return
    this.vacuumed = now
    // A vacuum that fails leaves the inbox to autovacuum: the events numbered stay numbered.
    await this.sequencerPool.query('VACUUM (SKIP_LOCKED, TRUNCATE false) event_inbox').catch(() => undefined)
  }

  private async sequenceBatch(): Promise<number> {
    return inTransaction(this.sequencerPool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [SEQUENCER_LOCK])
      return this.numberBatch(client)
    })
  }

  /** Numbers a batch of the inbox on `client`, which holds the sequencer's lock; answers how many. */
  private async numberBatch(client: pg.PoolClient): Promise<number> {
    // A statement of its own, after the lock: its snapshot sees the previous sequencer's commit.
    const [{ last: before }] = (await client.query<{ last: string }>('SELECT last FROM event_counter')).rows
    const { rows } = await client.query<{ n: number }>({ name: 'event-sequence', text: SEQUENCE_SQL, values: [SEQUENCE_BATCH] })
    const numbered = rows[0].n
    if (numbered > 0 && this.afterSequence) await this.afterSequence(client, Number(before) + 1, Number(before) + numbered)
    return numbered
  }

  /**
   * `work` in a transaction holding the sequencer's lock, after every event committed before it was
   * numbered (and its deliveries planned): what `work` changes of the webhooks applies exactly to
   * the events committed after it.
   */
  async afterNumbering<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.sequencerPool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [SEQUENCER_LOCK])
      while ((await this.numberBatch(client)) === SEQUENCE_BATCH);
      return work(client)
    })
  }

  /** A page of the feed, with the last seq given and the oldest kept, all of one snapshot. */
  async page(query: FeedQuery): Promise<FeedPage> {
    const values: unknown[] = [query.after ?? 0, query.pageSize]
    const columns = 'seq, id, type, time, "companyCode", data'
    let company = ''
    if (query.companyCode !== undefined) {
      values.push(query.companyCode)
      company = ` AND "companyCode" = $${values.length}`
    }
    let page: string
    if (query.types) {
      // Each type walked from `after` by its own index range; merged, the first pageSize of them.
      values.push(query.types)
      // The positions first, from the (type, seq) index alone; then the rows of the page only.
      page =
        `SELECT ${columns} FROM event WHERE seq IN (SELECT e.seq FROM unnest($${values.length}::text[]) AS t(type) CROSS JOIN LATERAL ` +
        `(SELECT seq FROM event WHERE event.type = t.type AND seq > $1${company} ORDER BY seq LIMIT $2) AS e ORDER BY e.seq LIMIT $2)`
    } else {
      page = `SELECT ${columns} FROM event WHERE seq > $1${company} ORDER BY seq LIMIT $2`
    }
    const { rows } = await this.pool.query<{ last: string; oldest: string | null; page: StoredEvent[] }>(
      `SELECT c.last, (SELECT min(seq) FROM event) AS oldest, ` +
        `(SELECT coalesce(json_agg(p ORDER BY p.seq), '[]'::json) FROM (${page}) AS p) AS page FROM event_counter AS c`,
      values,
    )
    const [row] = rows
    return {
      list: row.page.map((event) => ({ ...event, time: new Date(event.time) })),
      last: Number(row.last),
      oldest: row.oldest === null ? undefined : Number(row.oldest),
    }
  }

  /**
   * Deletes the events older than `days`, oldest first (what is kept always runs unbroken to the
   * newest), in batches; answers how many.
   */
  async prune(days: number): Promise<number> {
    const { rows } = await this.pool.query<{ cut: string | null }>(
      'SELECT max(seq) AS cut FROM event WHERE time < now() - make_interval(days => $1)',
      [days],
    )
    if (rows[0].cut === null) return 0
    return deleteInBatches(this.pool, {
      table: 'event',
      key: 'seq',
      where: 'seq <= $1',
      values: [rows[0].cut],
      order: 'seq',
      batch: 10_000,
    })
  }
}
