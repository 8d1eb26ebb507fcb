// Retention of the webhooks' deliveries (docs/events.md), in both editions: the daily job that
// prunes events older than EVENT_RETENTION_DAYS also deletes the finished deliveries (delivered or
// failed) of the events gone, and of pings older than that, with their attempts, in batches; a
// delivery still under way (pending, waiting) stays whatever its age, and so does every delivery of
// an event still kept. Ages are made by backdating rows, never by waiting.
import { PgBoss } from 'pg-boss'
import t from 'tap'
import { EVENT_PRUNE_QUEUE } from '../../src/operations/event-operations.ts'
import { recordEvent } from '../../src/store/event-store.ts'
import { eventually } from '../helpers/eventually.ts'
import { startService, type TestService } from '../helpers/service.ts'
import { startReceiver } from '../helpers/webhook-receiver.ts'

const COMPANY = '111111111'

async function ok(service: TestService, token: string, path: string, body: unknown) {
  const answer = (await service.call(path, body, { token })).body
  if (answer.code !== 0) throw new Error(`${path}: ${answer.code} ${answer.msg}`)
  return answer.data
}

/** Runs the events' retention job as the schedule does (queued by another process's pg-boss), until it completed. */
async function runRetention(service: TestService): Promise<void> {
  const { pool } = service.database
  const jobState = async (id: string) =>
    (await pool.query(`SELECT state FROM pgboss.job WHERE name = $1 AND id = $2`, [EVENT_PRUNE_QUEUE, id])).rows[0]?.state
  // The run queued at start is over first: the queue takes one run at a time and would refuse this one meanwhile.
  await eventually(
    async () =>
      (await pool.query(`SELECT 1 FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active')`, [EVENT_PRUNE_QUEUE]))
        .rowCount === 0,
    { what: 'the retention run of the start' },
  )
  const sender = new PgBoss({ connectionString: service.databaseUrl, schema: 'pgboss', max: 1, supervise: false, schedule: false })
  await sender.start()
  try {
    const id = await sender.send(EVENT_PRUNE_QUEUE, {})
    if (!id) throw new Error('the retention run was not queued')
    await eventually(async () => (await jobState(id)) === 'completed', { what: 'the retention run' })
  } finally {
    await sender.stop({ graceful: false })
  }
}

for (const edition of ['enterprise', 'park'] as const) {
  t.test(`${edition}: finished deliveries of pruned events and old pings go with their attempts; the rest stays`, async (t) => {
    const service = await startService(t, { env: { EDITION: edition, WEBHOOK_ALLOW_PRIVATE: 'true' } })
    const token = await service.login()
    const { pool } = service.database
    const sql = async (text: string, values: unknown[] = []) => (await pool.query(text, values)).rows
    const receiver = await startReceiver(t)
    await ok(service, token, '/system/webhook/add', { id: 'hook', url: receiver.url, types: ['sync.failed'] })

    // seq 1 RU-A, 2 RU-B, 3 and 4 RU-C (two events of one record), 5 RU-D, 6 RU-E.
    for (const [id, version] of [
      ['RU-A', 1],
      ['RU-B', 1],
      ['RU-C', 1],
      ['RU-C', 2],
      ['RU-D', 1],
      ['RU-E', 1],
    ] as const)
      await recordEvent(pool, {
        type: 'sync.failed',
        companyCode: COMPANY,
        data: { resource: 'prevent/riskUnit', id, version, error: 'refused' },
      })
    t.same(
      (await ok(service, token, '/system/event/list', {})).list.map((event: { seq: number }) => event.seq),
      [1, 2, 3, 4, 5, 6],
    )
    const events = await sql(`SELECT seq, id FROM event ORDER BY seq`)
    const old = (await ok(service, token, '/system/webhook/test', { id: 'hook' })).eventId as string
    const oldUnderWay = (await ok(service, token, '/system/webhook/test', { id: 'hook' })).eventId as string
    const recent = (await ok(service, token, '/system/webhook/test', { id: 'hook' })).eventId as string
    // A redelivery of seq 1 today: a new delivery of an event about to go.
    await ok(service, token, '/system/webhook/redeliver', { id: 'hook', eventId: events[0].id })
    await eventually(async () => (await sql(`SELECT count(*)::int AS n FROM webhook_attempt WHERE outcome = 'delivered'`))[0].n === 10, {
      what: 'the 10 deliveries delivered',
    })

    // Ages and states as time and failures would have made them; seq 1's deliveries stay recent, seq 5's is old.
    const ago = (days: number) => `now() - interval '${days} days'`
    await sql(`UPDATE event SET time = ${ago(40)} WHERE seq <= 4`)
    await sql(`UPDATE event SET time = ${ago(29)} WHERE seq = 5`)
    await sql(`UPDATE webhook_delivery SET "createTime" = ${ago(40)} WHERE seq BETWEEN 2 AND 5 OR "eventId" IN ($1, $2)`, [
      old,
      oldUnderWay,
    ])
    await sql(
      `UPDATE webhook_attempt SET time = ${ago(40)} WHERE delivery IN (SELECT id FROM webhook_delivery WHERE "createTime" < ${ago(30)})`,
    )
    await sql(`UPDATE webhook_delivery SET state = 'failed' WHERE seq = 2`)
    await sql(`UPDATE webhook_delivery SET state = 'pending' WHERE seq = 3 OR "eventId" = $1`, [oldUnderWay])
    await sql(`UPDATE webhook_delivery SET state = 'waiting' WHERE seq = 4`)
    // More finished deliveries of a pruned event than one statement deletes, an attempt each.
    await sql(
      `WITH added AS (INSERT INTO webhook_delivery (endpoint, "eventId", type, seq, state, attempts, "createTime") ` +
        `SELECT 'hook', $1, 'sync.failed', 1, 'delivered', 1, ${ago(40)} FROM generate_series(1, 12000) RETURNING id) ` +
        `INSERT INTO webhook_attempt (endpoint, delivery, "eventId", type, attempt, time, status, "durationMs", outcome) ` +
        `SELECT 'hook', id, $1, 'sync.failed', 1, ${ago(40)}, 204, 3, 'delivered' FROM added`,
      [events[0].id],
    )

    await runRetention(service)

    const pings = new Map([
      [old, 'old ping'],
      [oldUnderWay, 'old ping under way'],
      [recent, 'recent ping'],
    ])
    const kept = await sql(
      `SELECT d.seq, d."eventId", d.state, (SELECT count(*)::int FROM webhook_attempt AS a WHERE a.delivery = d.id) AS attempts ` +
        `FROM webhook_delivery AS d ORDER BY d.seq NULLS LAST, d.id`,
    )
    t.same(
      kept.map((row) => [row.seq ?? pings.get(row.eventId), row.state, row.attempts]),
      [
        [3, 'pending', 1],
        [4, 'waiting', 1],
        [5, 'delivered', 1],
        [6, 'delivered', 1],
        ['old ping under way', 'pending', 1],
        ['recent ping', 'delivered', 1],
      ],
      'seq 1 (delivered, redelivered, bulk) and 2 (failed) and the old ping are gone; under way, kept events and the recent ping stay',
    )
    t.same(await sql(`SELECT count(*)::int AS n FROM webhook_attempt`), [{ n: 6 }], 'no attempt outlives its delivery')
    t.same(
      (await ok(service, token, '/system/event/list', {})).list.map((event: { seq: number }) => event.seq),
      [5, 6],
      'the events older than the retention are gone',
    )
    t.equal((await ok(service, token, '/system/webhook/deliveries', { id: 'hook' })).total, 6, 'the deliveries page shows what is kept')
    const redelivered = (await service.call('/system/webhook/redeliver', { id: 'hook', eventId: old }, { token })).body
    t.equal(redelivered.code, 1004, 'a pruned ping is no longer kept')
  })
}
