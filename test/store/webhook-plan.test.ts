// The webhooks' bookkeeping on a real database with a backlog of deliveries written after the
// last statistics (an endpoint down for hours, faster than autovacuum): planning the deliveries of
// newly numbered events, settling a job's attempts and retrying its failures read the rows of
// those deliveries, not the backlog; planning and settling one endpoint take turns. Each statement
// the store sent is run again (EXPLAIN ANALYZE, rolled back) and the rows it read from the tables
// that grow with the backlog are counted.
import t from 'tap'
import { type Attempted, type DeliveryRow, type Ended, WebhookStore } from '../../src/store/webhook-store.ts'
import { eventually } from '../helpers/eventually.ts'
import { storeOnService } from '../helpers/gathering.ts'
import { recording, rowsRead, type Sent } from '../helpers/plans.ts'

const { pool } = await storeOnService(t)
const BACKLOG = 20_000
const NEW = 500
/** Tables that grow with the backlog. */
const LARGE = ['webhook_delivery', 'webhook_attempt', 'event']

const webhooks = new WebhookStore({ pool })

/** The most rows any statement sent read from the large tables. */
async function mostRead(sent: Sent[]): Promise<number> {
  return Math.max(...(await Promise.all(sent.map((statement) => rowsRead(pool, statement, LARGE)))))
}

// Statistics of the tables while empty, then none again (autovacuum kept away).
for (const table of LARGE) await pool.query(`ANALYZE ${table}`)
for (const table of LARGE) await pool.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`)
await pool.query(
  `INSERT INTO webhook_endpoint (id, url, types, secret) VALUES ('plan', 'https://example.com/hook', '{record.updated}', '\\x00')`,
)
// Events 1..BACKLOG+NEW, updates of BACKLOG+100 records. The first BACKLOG are delivered to the
// endpoint and failing: their deliveries pending (to be retried), each with its attempt.
await pool.query(
  `INSERT INTO event (seq, id, type, time, "companyCode", data) SELECT i, gen_random_uuid(), 'record.updated', now(), 'C', ` +
    `jsonb_build_object('resource', 'hazard/monitorEquip', 'id', 'R-' || (i % ($1::int + 100)), 'changes', '{}'::jsonb) ` +
    `FROM generate_series(1, $1::int + $2::int) AS i`,
  [BACKLOG, NEW],
)
await pool.query(
  `WITH planned AS (INSERT INTO webhook_delivery (endpoint, "eventId", type, seq, "recordKey", state, attempts) ` +
    `SELECT 'plan', id, type, seq, 'C hazard/monitorEquip ' || (data ->> 'id'), 'pending', 1 FROM event WHERE seq <= $1 RETURNING id, "eventId") ` +
    `INSERT INTO webhook_attempt (endpoint, delivery, "eventId", type, attempt, time, status, "durationMs", outcome) ` +
    `SELECT 'plan', id, "eventId", 'record.updated', 1, now(), 500, 3, 'pending' FROM planned`,
  [BACKLOG],
)

t.test('planning the deliveries of new events reads theirs, not the deliveries under way', async (t) => {
  const sent: Sent[] = []
  const client = await pool.connect()
  try {
    const queued = await webhooks.planDeliveries(recording(client, sent), BACKLOG + 1, BACKLOG + NEW)
    // The 100 records first updated now have no delivery under way; the other 400 wait behind theirs.
    t.equal(queued.length, 100)
    const { rows } = await client.query(
      `SELECT state, count(*)::int AS n FROM webhook_delivery WHERE seq > $1 GROUP BY state ORDER BY state`,
      [BACKLOG],
    )
    t.same(rows, [
      { state: 'pending', n: 100 },
      { state: 'waiting', n: NEW - 100 },
    ])
  } finally {
    client.release()
  }
  const read = await mostRead(sent)
  t.ok(read <= 4 * NEW, `${read} rows read for ${NEW} events`)
})

t.test("settling a job's attempts reads their deliveries, not the backlog", async (t) => {
  const { rows } = await pool.query<DeliveryRow>(`SELECT * FROM webhook_delivery WHERE seq <= $1 ORDER BY seq DESC LIMIT $1`, [NEW])
  const attempts: Attempted[] = rows.map((delivery) => ({
    delivery,
    attempt: 2,
    time: new Date(),
    status: 204,
    durationMs: 2,
    outcome: 'delivered',
    error: null,
  }))
  const ended: Ended[] = rows.map((delivery) => ({ delivery, state: 'delivered', attempts: 2 }))
  const sent: Sent[] = []
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    const queued = await webhooks.settle(recording(client, sent), 'plan', attempts, ended)
    await client.query('COMMIT')
    // The records of the last 400 delivered have a delivery waiting behind: each is pending now.
    t.equal(queued.length, NEW - 100)
  } finally {
    client.release()
  }
  const { rows: counts } = await pool.query(
    `SELECT (SELECT count(*)::int FROM webhook_delivery WHERE state = 'delivered') AS delivered, ` +
      `(SELECT count(*)::int FROM webhook_attempt WHERE outcome = 'delivered') AS attempts`,
  )
  t.same(counts, [{ delivered: NEW, attempts: NEW }])
  const read = await mostRead(sent)
  t.ok(read <= 4 * NEW, `${read} rows read for ${NEW} attempts`)
})

t.test("retrying a job's failed deliveries reads theirs, not the backlog", async (t) => {
  const { rows } = await pool.query<DeliveryRow>(`SELECT * FROM webhook_delivery WHERE state = 'pending' ORDER BY seq LIMIT $1`, [NEW])
  const due = new Date(Date.now() + 300_000)
  const sent: Sent[] = []
  const client = await pool.connect()
  try {
    const queued = await webhooks.retry(
      recording(client, sent),
      rows.map((delivery) => ({ delivery, attempts: 2, due })),
    )
    t.equal(queued.length, NEW)
  } finally {
    client.release()
  }
  const read = await mostRead(sent)
  t.ok(read <= 4 * NEW, `${read} rows read for ${NEW} retries`)
})

t.test("planning waits for a settle of the endpoint's deliveries, and sees what it ended", async (t) => {
  // Record R-race: an event delivered (pending, its attempt answered), and the next being planned.
  const first = BACKLOG + NEW + 1
  await pool.query(
    `INSERT INTO event (seq, id, type, time, "companyCode", data) SELECT i, gen_random_uuid(), 'record.updated', now(), 'C', ` +
      `'{"resource": "hazard/monitorEquip", "id": "R-race", "changes": {}}' FROM generate_series($1::int, $1::int + 1) AS i`,
    [first],
  )
  const sequencer = await pool.connect()
  const settler = await pool.connect()
  try {
    t.equal((await webhooks.planDeliveries(sequencer, first, first)).length, 1, 'the first event pending')
    const { rows } = await pool.query<DeliveryRow>(`SELECT * FROM webhook_delivery WHERE seq = $1`, [first])
    await settler.query('BEGIN')
    const attempt: Attempted = {
      delivery: rows[0],
      attempt: 1,
      time: new Date(),
      status: 204,
      durationMs: 2,
      outcome: 'delivered',
      error: null,
    }
    await webhooks.settle(settler, 'plan', [attempt], [{ delivery: rows[0], state: 'delivered', attempts: 1 }])
    // The settle not committed yet: the sequencer plans the next event.
    await sequencer.query('BEGIN')
    const sequencerPid = (await sequencer.query('SELECT pg_backend_pid() AS pid')).rows[0].pid
    let planned = false
    const planning = webhooks.planDeliveries(sequencer, first + 1, first + 1).finally(() => (planned = true))
    const waits = async () =>
      (await pool.query(`SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1`, [sequencerPid])).rows[0]?.wait_event_type === 'Lock'
    t.ok(await eventually(async () => (await waits()) || planned, { what: 'the planning to wait or end' }), 'the planning waits or ends')
    t.notOk(planned, 'the planning waits for the settle')
    await settler.query('COMMIT')
    const queued = await planning
    await sequencer.query('COMMIT')
    t.equal(queued.length, 1, 'the next event is queued at once')
    const { rows: states } = await pool.query(`SELECT state FROM webhook_delivery WHERE seq = $1`, [first + 1])
    t.same(states, [{ state: 'pending' }], 'pending, not left waiting behind a delivery already ended')
  } finally {
    sequencer.release()
    settler.release()
  }
})

t.end()
