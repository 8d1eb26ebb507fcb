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
/** The inbox is vacuumed once this many events were moved out of it, at most once an INBOX_VACUUM_MS. */
const VACUUM_AFTER = 1000
const INBOX_VACUUM_MS = 1000

/**
 * Numbers, in arrival order, the committed inbox events the statement sees (at most $1), after the
 * last seq given, and moves them into `event`. Runs under the sequencer's lock only. The rows are
 * deleted by their ctid, a plan that does not depend on the inbox's statistics: a vacuum of the
 * drained inbox (vacuumInbox) leaves them at nearly no rows, and deleted by a join on `arrival`
 * the next backlog outlasted the statement timeout.
 */
const SEQUENCE_SQL =
  `WITH moved AS (DELETE FROM event_inbox WHERE ctid = ANY (ARRAY(SELECT ctid FROM event_inbox ORDER BY arrival LIMIT $1)) ` +
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
  /** Events this process moved out of the inbox since it last vacuumed it, and when it did (the clock's ms). */
  private movedSinceVacuum = 0
  private vacuumedAt = -Infinity
  private readonly clock: () => number

  constructor(options: {
    pool: pg.Pool
    sequencerPool?: pg.Pool
    afterSequence?: (client: pg.PoolClient, first: number, last: number) => Promise<void>
    /** Milliseconds, monotonic: spaces the inbox's vacuums. */
    clock?: () => number
  }) {
    this.pool = options.pool
    this.sequencerPool = options.sequencerPool ?? options.pool
    this.afterSequence = options.afterSequence
    this.clock = options.clock ?? (() => performance.now())
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
    return total
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
    this.movedSinceVacuum += numbered
    if (numbered > 0 && this.afterSequence) await this.afterSequence(client, Number(before) + 1, Number(before) + numbered)
    return numbered
  }

  /**
   * Vacuums the inbox when this process has moved VACUUM_AFTER events out of it since it last did,
   * at most once an INBOX_VACUUM_MS. Each move leaves its rows dead in the inbox's pages until a
   * vacuum, and every run of the sequencer (a feed read runs it first) looks for waiting events by
   * scanning those pages (the inbox has no B-tree, to spare the writes): left to autovacuum, minutes
   * apart on a busy database, a burst of writes put thousands of empty pages in every read's way.
   * Answers whether it vacuumed.
   */
  async vacuumInbox(): Promise<boolean> {
    const now = this.clock()
    if (this.movedSinceVacuum < VACUUM_AFTER || now - this.vacuumedAt < INBOX_VACUUM_MS) return false
    this.movedSinceVacuum = 0
    this.vacuumedAt = now
    // SKIP_LOCKED: another instance vacuuming it already will do. Its truncation of the empty pages
    // at the end gives way within milliseconds to a write waiting to append.
    await this.sequencerPool.query('VACUUM (SKIP_LOCKED) event_inbox')
    return true
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
