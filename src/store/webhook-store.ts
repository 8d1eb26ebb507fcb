// Webhook endpoints, their deliveries and attempts (migrations 131, 153, 163; docs/events.md).
// Deliveries of the feed's events are planned by the sequencer in its own transaction
// (planDeliveries), so every numbered event reaches every endpoint subscribed then; a record's
// deliveries to an endpoint go one at a time, in seq order (`waiting` until the one before ends);
// the finished ones go with their events (prune).
import type pg from 'pg'
import { BusinessError, Code } from '../errors.ts'
import { deleteInBatches, inTransaction, type Queryable } from './pg-pool.ts'
import { message } from '../messages/message.ts'

export interface EndpointRow {
  id: string
  url: string
  types: string[]
  description: string | null
  enabled: boolean
  disabledReason: string | null
  secret: Buffer
  previousSecret: Buffer | null
  previousUntil: Date | null
  failingSince: Date | null
  createTime: Date
  updateTime: Date
}

export interface DeliveryRow {
  id: string
  endpoint: string
  eventId: string
  type: string
  seq: string | null
  body: Record<string, unknown> | null
  recordKey: string | null
  state: 'waiting' | 'pending' | 'delivered' | 'failed'
  attempts: number
}

export interface AttemptRow {
  eventId: string
  type: string
  attempt: number
  time: Date
  status: number | null
  durationMs: number
  outcome: 'delivered' | 'pending' | 'failed'
  error: string | null
}

/** A delivery due, with its feed event's time, enterprise and data (null once the feed no longer keeps it, and for a ping). */
export interface DueDelivery extends DeliveryRow {
  eventTime: Date | null
  eventCompany: string | null
  eventData: Record<string, unknown> | null
}

/** An attempt made, as recorded. */
export interface Attempted extends Omit<AttemptRow, 'eventId' | 'type'> {
  delivery: DeliveryRow
}

/** A delivery that ends, and after how many attempts. */
export interface Ended {
  delivery: DeliveryRow
  state: 'delivered' | 'failed'
  attempts: number
}

/** A delivery whose job is to be queued: its id, endpoint and when. */
export interface Queued {
  id: string
  endpoint: string
  attempt: number
  due: Date
}

/** Deliveries deleted per statement by retention (their attempts with them). */
const PRUNE_BATCH = 5000

/** The key a record's events share (companyCode, resource, id); null for an event of no record. */
const RECORD_KEY = `CASE WHEN e.data ? 'id' THEN e."companyCode" || ' ' || coalesce(e.data ->> 'resource', '') || ' ' || (e.data ->> 'id') END`

/**
 * The deliveries of the events numbered first..last to the endpoints $3 (enabled, locked) subscribed
 * to their type: pending (to be queued) when no earlier delivery of the same record to that endpoint
 * is still under way, waiting otherwise. Runs in the sequencer's transaction, under its lock. Each
 * record is looked up in the index of deliveries under way (a lateral probe): a scan of them all,
 * which the planner may prefer, grows with a backlog.
 */
const PLAN_SQL =
  `WITH fresh AS (SELECT e.seq, e.id AS event_id, e.type, w.id AS endpoint, ${RECORD_KEY} AS record_key ` +
  `FROM event AS e JOIN webhook_endpoint AS w ON w.id = ANY ($3::text[]) AND e.type = ANY (w.types) WHERE e.seq BETWEEN $1 AND $2), ` +
  `ranked AS (SELECT *, row_number() OVER (PARTITION BY endpoint, record_key ORDER BY seq) AS n FROM fresh), ` +
  `inserted AS (INSERT INTO webhook_delivery (endpoint, "eventId", type, seq, "recordKey", state) ` +
  `SELECT endpoint, event_id, type, seq, record_key, CASE WHEN record_key IS NULL OR (n = 1 AND busy IS NULL) ` +
  `THEN 'pending' ELSE 'waiting' END FROM ranked LEFT JOIN LATERAL (SELECT true AS busy FROM webhook_delivery AS d ` +
  `WHERE ranked.n = 1 AND d.endpoint = ranked.endpoint AND d."recordKey" = ranked.record_key AND d.state IN ('waiting', 'pending') LIMIT 1) AS b ON true ` +
  `ORDER BY seq RETURNING id, endpoint, state, attempts, due) ` +
  `SELECT id, endpoint, attempts AS attempt, due FROM inserted WHERE state = 'pending'`

/**
 * The last attempt of each delivery of `ended` (its `id` and `attempts`), `pending` while the
 * delivery was to be retried, becomes `failed`: the delivery ended failed without an attempt of its own.
 */
const LAST_ATTEMPT_FAILED =
  `UPDATE webhook_attempt AS a SET outcome = 'failed' FROM ended ` +
  `WHERE a.delivery = ended.id AND a.attempt = ended.attempts AND a.outcome = 'pending'`

/**
 * Settles attempts to endpoint $1: records them ($2..$10, one array per column), ends the
 * deliveries $11 (state $12 after $13 attempts), clears the endpoint's run of failures when one is
 * delivered, and makes pending the first waiting delivery of each record of $14 (those ended are
 * pending, not waiting: the statement's parts touch different rows). An attempt is `pending` only
 * while its delivery will be retried: the last attempt of a delivery ended `failed` without one of
 * its own (the endpoint disabled, the event no longer kept) becomes `failed`, and so does one
 * answered after its delivery was ended (a 410 to another attempt meanwhile). Deliveries, and each
 * record's first waiting one, are looked up by key one by one and rewritten by their ctids (as the
 * push's settle does, sync-store.ts): without statistics of a backlog just written, the planner
 * would rather read every delivery under way.
 */
const SETTLE_SQL =
  `WITH recorded AS (INSERT INTO webhook_attempt (endpoint, delivery, "eventId", type, attempt, time, status, "durationMs", outcome, error) ` +
  `SELECT $1::text, a.delivery, a.event_id, a.type, a.attempt, a.time, a.status, a.duration_ms, ` +
  `CASE WHEN a.outcome <> 'pending' THEN a.outcome WHEN (SELECT d.state FROM webhook_delivery AS d WHERE d.id = a.delivery) = 'failed' ` +
  `THEN 'failed' ELSE 'pending' END, a.error ` +
  `FROM unnest($2::bigint[], $3::uuid[], $4::text[], $5::int[], $6::timestamptz[], $7::int[], $8::int[], $9::text[], $10::text[]) ` +
  `AS a(delivery, event_id, type, attempt, time, status, duration_ms, outcome, error)), ` +
  `ending AS MATERIALIZED (SELECT e.state, e.attempts, (SELECT d.ctid FROM webhook_delivery AS d WHERE d.id = e.id) AS tid ` +
  `FROM unnest($11::bigint[], $12::text[], $13::int[]) AS e(id, state, attempts)), ` +
  `ended AS (UPDATE webhook_delivery AS d SET state = ending.state, attempts = ending.attempts FROM ending ` +
  `WHERE d.ctid = ANY (ARRAY(SELECT tid FROM ending)) AND d.ctid = ending.tid RETURNING d.id, d.state, d.attempts), ` +
  `cut AS (${LAST_ATTEMPT_FAILED} AND ended.state = 'failed'), ` +
  `recovered AS (UPDATE webhook_endpoint SET "failingSince" = NULL WHERE id = $1 AND "failingSince" IS NOT NULL ` +
  `AND EXISTS (SELECT 1 FROM ended WHERE state = 'delivered')) ` +
  `UPDATE webhook_delivery SET state = 'pending', due = now() WHERE ctid = ANY (ARRAY(SELECT w.ctid FROM unnest($14::text[]) AS k(key), ` +
  `LATERAL (SELECT ctid FROM webhook_delivery WHERE endpoint = $1 AND "recordKey" = k.key AND state = 'waiting' ORDER BY seq LIMIT 1) AS w)) ` +
  `RETURNING id, endpoint, attempts AS attempt, due`

export class WebhookStore {
  private readonly pool: pg.Pool

  constructor(options: { pool: pg.Pool }) {
    this.pool = options.pool
  }

  /**
   * The deliveries of the events first..last (sequencer's transaction); answers those to queue now.
   * The enabled endpoints are locked first, and a settle holds its endpoint (`settle`): planning
   * and settling the same endpoint's deliveries take turns, each seeing what the other committed.
   * Were both to run at once, a delivery planned `waiting` behind one being ended would be left
   * waiting, the settle not seeing it.
   */
  async planDeliveries(client: Queryable, first: number, last: number): Promise<Queued[]> {
    const { rows: endpoints } = await client.query<{ id: string }>({
      name: 'webhook-plan-lock',
      text: 'SELECT id FROM webhook_endpoint WHERE enabled ORDER BY id FOR UPDATE',
    })
    if (endpoints.length === 0) return []
    const ids = endpoints.map(({ id }) => id)
    return (await client.query<Queued>({ name: 'webhook-plan', text: PLAN_SQL, values: [first, last, ids] })).rows
  }

  async add(db: Queryable, endpoint: { id: string; url: string; types: string[]; description?: string; secret: Buffer }): Promise<void> {
    const { rowCount } = await db.query(
      `INSERT INTO webhook_endpoint (id, url, types, description, secret) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
      [endpoint.id, endpoint.url, endpoint.types, endpoint.description ?? null, endpoint.secret],
    )
    if (rowCount !== 1) throw new BusinessError(Code.idExists, message('alreadyExistsValue', { field: 'id', value: endpoint.id }))
  }

  async get(id: string, db: Queryable = this.pool): Promise<EndpointRow> {
    const { rows } = await db.query<EndpointRow>('SELECT * FROM webhook_endpoint WHERE id = $1', [id])
    if (!rows[0]) throw notFound(id)
    return rows[0]
  }

  async list(): Promise<EndpointRow[]> {
    return (await this.pool.query<EndpointRow>('SELECT * FROM webhook_endpoint ORDER BY id')).rows
  }

  /** Changes what is given; enabling clears the reason it was disabled and its run of failures. */
  async update(
    db: Queryable,
    id: string,
    patch: { url?: string; types?: string[]; description?: string; enabled?: boolean },
  ): Promise<void> {
    if (!(await lockEndpoint(db, id))) throw notFound(id)
    await db.query(
      `UPDATE webhook_endpoint SET url = coalesce($2, url), types = coalesce($3, types), description = coalesce($4, description), ` +
        `enabled = coalesce($5, enabled), "disabledReason" = CASE WHEN coalesce($5, enabled) THEN NULL ELSE coalesce("disabledReason", 'disabled by an admin') END, ` +
        `"failingSince" = CASE WHEN $5 THEN NULL ELSE "failingSince" END, "updateTime" = now() WHERE id = $1`,
      [id, patch.url ?? null, patch.types ?? null, patch.description ?? null, patch.enabled ?? null],
    )
    if (patch.enabled === false) await this.endDeliveries(db, id)
  }

  /** Deletes the endpoint, its deliveries and their attempts. */
  async delete(id: string): Promise<void> {
    const found = await inTransaction(this.pool, async (client) => {
      if (!(await lockEndpoint(client, id))) return false
      await client.query('WITH attempts AS (DELETE FROM webhook_attempt WHERE endpoint = $1) DELETE FROM webhook_endpoint WHERE id = $1', [
        id,
      ])
      return true
    })
    if (!found) throw notFound(id)
  }

  /** The new secret signs from now; the current one keeps signing beside it for `graceHours` (an older one stops at once). */
  async rotate(id: string, secret: Buffer, graceHours: number): Promise<void> {
    const { rowCount } = await this.pool.query(
      `UPDATE webhook_endpoint SET "previousSecret" = secret, "previousUntil" = now() + make_interval(hours => $3), secret = $2, ` +
        `"updateTime" = now() WHERE id = $1`,
      [id, secret, graceHours],
    )
    if (rowCount !== 1) throw notFound(id)
  }

  /** One delivery outside the order rule (a ping, a redelivery), pending at once. */
  async addDelivery(
    db: Queryable,
    delivery: { endpoint: string; eventId: string; type: string; seq: number | null; body: Record<string, unknown> | null },
  ): Promise<Queued> {
    const { rows } = await db
      .query<Queued>(
        `INSERT INTO webhook_delivery (endpoint, "eventId", type, seq, body, state) VALUES ($1, $2, $3, $4, $5, 'pending') ` +
          `RETURNING id, endpoint, attempts AS attempt, due`,
        [delivery.endpoint, delivery.eventId, delivery.type, delivery.seq, delivery.body],
      )
      .catch((error: unknown) => {
        // The endpoint deleted since it was read (a `delete` meanwhile): as if it had never been.
        if ((error as { code?: string }).code === '23503') throw notFound(delivery.endpoint)
        throw error
      })
    return rows[0]
  }

  /** The event of the feed with this id (its seq), if still kept. */
  async eventSeq(eventId: string): Promise<{ seq: number; type: string } | undefined> {
    const { rows } = await this.pool.query<{ seq: string; type: string }>(
      `SELECT seq, type FROM event WHERE id = $1 UNION ALL SELECT NULL, type FROM webhook_delivery WHERE "eventId" = $1 AND seq IS NULL LIMIT 1`,
      [eventId],
    )
    return rows[0] ? { seq: Number(rows[0].seq), type: rows[0].type } : undefined
  }

  /** A ping's body by its id (redelivered as it was). */
  async pingBody(eventId: string): Promise<Record<string, unknown> | undefined> {
    const { rows } = await this.pool.query<{ body: Record<string, unknown> }>(
      `SELECT body FROM webhook_delivery WHERE "eventId" = $1 AND body IS NOT NULL LIMIT 1`,
      [eventId],
    )
    return rows[0]?.body
  }

  /**
   * Of these (delivery, attempt) pairs, the deliveries whose attempt is the one due (a stale job's
   * are done already), each with its event when the feed still keeps it: one statement.
   */
  async dueMany(items: readonly (readonly [string, number])[]): Promise<DueDelivery[]> {
    const { rows } = await this.pool.query<DueDelivery>({
      name: 'webhook-due',
      text:
        `SELECT d.id, d.endpoint, d."eventId", d.type, d.seq, d.body, d."recordKey", d.state, d.attempts, ` +
        `e.time AS "eventTime", e."companyCode" AS "eventCompany", e.data AS "eventData" ` +
        `FROM webhook_delivery AS d JOIN unnest($1::bigint[], $2::int[]) AS j(id, attempt) ON d.id = j.id ` +
        `AND d.attempts = j.attempt LEFT JOIN event AS e ON e.seq = d.seq WHERE d.state = 'pending' ORDER BY d.id`,
      values: [items.map(([id]) => id), items.map(([, attempt]) => attempt)],
    })
    return rows
  }

  /** A page of an endpoint's attempts, newest first. */
  async attempts(endpoint: string, pageNum: number, pageSize: number): Promise<{ list: AttemptRow[]; total: number }> {
    const { rows } = await this.pool.query<AttemptRow & { total: number }>(
      `SELECT "eventId", type, attempt, time, status, "durationMs", outcome, error, count(*) OVER ()::int AS total ` +
        `FROM webhook_attempt WHERE endpoint = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
      [endpoint, pageSize, (pageNum - 1) * pageSize],
    )
    const total =
      rows[0]?.total ?? (await this.pool.query('SELECT count(*)::int AS n FROM webhook_attempt WHERE endpoint = $1', [endpoint])).rows[0].n
    return { list: rows.map(({ total: _, ...attempt }) => attempt), total }
  }

  /**
   * One endpoint's attempts recorded (as the deliveries page shows them) and the deliveries in
   * `ended` ended (delivered or failed, after their count of attempts), in one statement: a
   * delivery ends its run of failures; the next waiting delivery of each of their records becomes
   * pending (answered, to be queued). The sequencer plans the endpoint's next deliveries before or
   * after, never meanwhile (planDeliveries).
   */
  async settle(db: Queryable, endpoint: string, attempts: readonly Attempted[], ended: readonly Ended[]): Promise<Queued[]> {
    if (attempts.length === 0 && ended.length === 0) return []
    // The endpoint held to the transaction's end: none is recorded for an endpoint deleted
    // meanwhile, a deletion waits for those recorded before it, and so does the planning of the
    // endpoint's next deliveries (planDeliveries).
    const held = await db.query({
      name: 'webhook-hold',
      text: 'SELECT 1 FROM webhook_endpoint WHERE id = $1 FOR KEY SHARE',
      values: [endpoint],
    })
    if (held.rowCount !== 1) return []
    const keys = [...new Set(ended.map(({ delivery }) => delivery.recordKey).filter((key) => key !== null))]
    const { rows } = await db.query<Queued>({
      name: 'webhook-settle',
      text: SETTLE_SQL,
      values: [
        endpoint,
        attempts.map(({ delivery }) => delivery.id),
        attempts.map(({ delivery }) => delivery.eventId),
        attempts.map(({ delivery }) => delivery.type),
        attempts.map(({ attempt }) => attempt),
        attempts.map(({ time }) => time),
        attempts.map(({ status }) => status),
        attempts.map(({ durationMs }) => durationMs),
        attempts.map(({ outcome }) => outcome),
        attempts.map(({ error }) => error),
        ended.map(({ delivery }) => delivery.id),
        ended.map(({ state }) => state),
        ended.map(({ attempts: count }) => count),
        keys,
      ],
    })
    return rows
  }

  /**
   * The first waiting delivery of each record none of whose deliveries is pending, made pending (to
   * be queued): none, since planning and settling take turns; a sweep for safety, reading every
   * delivery waiting.
   */
  async stranded(db: Queryable): Promise<Queued[]> {
    const { rows } = await db.query<Queued>(
      `UPDATE webhook_delivery AS d SET state = 'pending', due = now() WHERE d.state = 'waiting' ` +
        `AND NOT EXISTS (SELECT 1 FROM webhook_delivery AS p WHERE p.endpoint = d.endpoint AND p."recordKey" = d."recordKey" AND p.state = 'pending') ` +
        `AND d.seq = (SELECT min(w.seq) FROM webhook_delivery AS w WHERE w.endpoint = d.endpoint AND w."recordKey" = d."recordKey" AND w.state = 'waiting') ` +
        `RETURNING d.id, d.endpoint, d.attempts AS attempt, d.due`,
    )
    return rows
  }

  /** Another attempt of each, at its `due`, after its count of attempts so far. */
  async retry(db: Queryable, retries: readonly { delivery: DeliveryRow; attempts: number; due: Date }[]): Promise<Queued[]> {
    if (retries.length === 0) return []
    const { rows } = await db.query<Queued>(
      `UPDATE webhook_delivery AS d SET attempts = r.attempts, due = r.due FROM json_to_recordset($1::json) ` +
        `AS r(id bigint, attempts int, due timestamptz) WHERE d.id = r.id RETURNING d.id, d.endpoint, d.attempts AS attempt, d.due`,
      [JSON.stringify(retries.map(({ delivery, attempts, due }) => ({ id: delivery.id, attempts, due })))],
    )
    return rows
  }

  /** Since when every attempt to the endpoint has failed (now, if this is the first failure). */
  async failing(db: Queryable, endpoint: string): Promise<Date> {
    const { rows } = await db.query<{ failingSince: Date }>(
      `UPDATE webhook_endpoint SET "failingSince" = coalesce("failingSince", now()) WHERE id = $1 RETURNING "failingSince"`,
      [endpoint],
    )
    return rows[0]?.failingSince ?? new Date()
  }

  /**
   * Deletes, with their attempts, the finished deliveries (delivered or failed) of the events the
   * feed no longer keeps, and those of pings made over `days` ago; answers how many deliveries.
   * Run after the events' own retention; a delivery still under way is never deleted.
   */
  async prune(days: number): Promise<number> {
    // Every event up to the oldest kept is gone (retention deletes the oldest first); none kept: every one given.
    const { rows } = await this.pool.query<{ gone: number }>(
      'SELECT coalesce((SELECT min(seq) FROM event) - 1, last) AS gone FROM event_counter',
    )
    return deleteInBatches(this.pool, {
      table: 'webhook_delivery',
      key: 'id',
      where: `state IN ('delivered', 'failed') AND (seq <= $1 OR (seq IS NULL AND "createTime" < now() - make_interval(days => $2)))`,
      values: [rows[0].gone, days],
      batch: PRUNE_BATCH,
      dependents: { table: 'webhook_attempt', column: 'delivery' },
    })
  }

  /**
   * Disables the endpoint (why), and ends every delivery to it still under way `failed`: the last
   * attempt of each, `pending` while it was to be retried, is `failed` now that it will not be.
   */
  async disable(db: Queryable, endpoint: string, reason: string): Promise<void> {
    // The deliveries first: another settle of the endpoint may hold some of them and then update the
    // endpoint (its run of failures ended); taken in the other order, each would wait for the other.
    await this.endDeliveries(db, endpoint)
    await db.query(`UPDATE webhook_endpoint SET enabled = false, "disabledReason" = $2, "updateTime" = now() WHERE id = $1`, [
      endpoint,
      reason,
    ])
  }

  /** Ends every delivery to the endpoint still under way `failed`, and so the last attempt of each. */
  private async endDeliveries(db: Queryable, endpoint: string): Promise<void> {
    await db.query(
      `WITH ended AS (UPDATE webhook_delivery SET state = 'failed' WHERE endpoint = $1 AND state IN ('waiting', 'pending') ` +
        `RETURNING id, attempts) ${LAST_ATTEMPT_FAILED}`,
      [endpoint],
    )
  }
}

/**
 * Locks the endpoint's row for an admin's change; false when there is none. Taken first, as a
 * settle takes it (`settle`): a settle either ends before or waits, so an attempt being recorded is
 * committed before a deletion removes its attempts, and a disable never ends deliveries a settle holds.
 */
async function lockEndpoint(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM webhook_endpoint WHERE id = $1 FOR UPDATE', [id])
  return rowCount === 1
}

function notFound(id: string): BusinessError {
  return new BusinessError(Code.notFound, message('webhookNotFound', { id }))
}
