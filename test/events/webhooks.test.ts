// Webhooks (docs/events.md): deliveries signed per Standard Webhooks 1.0 (checked by the test's own
// verifier and the specification's example), retried on the schedule (driven by moving the due
// jobs forward, never by waiting), disabled by a 410 or 5 days of failures, delivered per record in
// order, a slow endpoint holding up no other; rotation, ping, deliveries and redelivery.
import { randomBytes, randomUUID } from 'node:crypto'
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { webhookSigner } from '../../src/operations/webhook-signature.ts'
import { WebhookStore } from '../../src/store/webhook-store.ts'
import { record } from '../helpers/fixtures.ts'
import { eventually } from '../helpers/eventually.ts'
import { startService } from '../helpers/service.ts'
import { type Received, type Reply, startReceiver, verifySignature } from '../helpers/webhook-receiver.ts'

const service = await startService(t, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', SYNC_SUPERVISE_SECONDS: '1' } })
const token = await service.login()
const pool = service.database.pool

async function ok(path: string, body: unknown) {
  const answer = (await service.call(path, body, { token })).body
  if (answer.code !== 0) throw new Error(`${path}: ${answer.code} ${answer.msg}`)
  return answer.data
}

/** The attempts due later are due now: the jobs and the deliveries alike. */
async function retriesDueNow(): Promise<void> {
  await pool.query(`UPDATE webhook_delivery SET due = now() WHERE state = 'pending'`)
  await pool.query(`UPDATE pgboss.job SET start_after = now() WHERE name = 'webhook-delivery' AND state IN ('created', 'retry')`)
}

const verified = (secret: string, delivery: Received) =>
  verifySignature(secret, delivery.id, delivery.timestamp, delivery.body, delivery.signatures.join(' '))

t.test("the test's verifier, the service's signer and the signing library agree with the specification's example", async (t) => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
  const body = '{"test": 2432232314}'
  const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
  const at = new Date(1614265330 * 1000)
  t.equal(new Webhook(secret).sign('msg_p5jXN8AQM9LWM0D4loKWxJek', at, body), expected)
  t.equal(webhookSigner(secret)('msg_p5jXN8AQM9LWM0D4loKWxJek', at, body), expected)
  t.ok(verifySignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', '1614265330', body, expected))
  t.notOk(verifySignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', '1614265331', body, expected))
})

t.test("the service's signer gives the signing library's bytes, whatever the secret, id, time and body", async (t) => {
  for (let n = 0; n < 200; n++) {
    const secret = `whsec_${randomBytes(1 + (n % 64)).toString('base64')}`
    const id = randomUUID()
    const at = new Date(Math.floor(Math.random() * 4e12))
    const body = JSON.stringify({ n, text: randomBytes(n * 7).toString('latin1'), nested: { emoji: '\u{1F525}', zh: '监测设备' } })
    t.equal(webhookSigner(secret)(id, at, body), new Webhook(secret).sign(id, at, body), `case ${n}`)
  }
})

t.test('a write is delivered as its feed event, signed with the secret answered once', async (t) => {
  const receiver = await startReceiver(t)
  const added = await ok('/system/webhook/add', { id: 'main', url: receiver.url, types: ['record.added', 'record.updated'] })
  t.match(added.secret, /^whsec_[A-Za-z0-9+/]+=*$/)
  t.equal(Buffer.from(added.secret.slice(6), 'base64').length, 32)
  t.notOk('secret' in (await ok('/system/webhook/list', {})).list[0], 'list shows no secret')
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-W1'))
  await ok('/prevent/riskUnit/delete', { id: 'RU-W1' })
  await eventually(() => receiver.received.length === 1, { what: 'the delivery' })
  const [delivery] = receiver.received
  t.ok(verified(added.secret, delivery), 'the signature verifies')
  t.ok(Math.abs(Number(delivery.timestamp) - Date.now() / 1000) < 60, 'webhook-timestamp: seconds, now')
  const feed = (await ok('/system/event/list', {})).list
  t.same(delivery.event, feed[0], 'the body is the feed event')
  t.equal(delivery.id, feed[0].id, 'webhook-id: the event id')
  // An attempt is saved once its answer is read: maybe a moment after the receiver has it.
  const deliveries = await eventually(
    async () => {
      const page = await ok('/system/webhook/deliveries', { id: 'main' })
      return page.list.length > 0 && page
    },
    { what: 'the attempt saved' },
  )
  t.match(deliveries.list[0], { eventId: feed[0].id, type: 'record.added', attempt: 1, status: 204, outcome: 'delivered', error: null })
  t.equal(receiver.received.length, 1, 'record.deleted is not among its types')
  await ok('/system/webhook/delete', { id: 'main' })
  const left = await pool.query(
    `SELECT (SELECT count(*)::int FROM webhook_delivery WHERE endpoint = 'main') AS deliveries, ` +
      `(SELECT count(*)::int FROM webhook_attempt WHERE endpoint = 'main') AS attempts`,
  )
  t.same(left.rows, [{ deliveries: 0, attempts: 0 }], 'a deleted endpoint leaves no delivery and no attempt')
})

t.test('a test or redelivery whose endpoint is deleted meanwhile is refused as an unknown endpoint (1004)', async (t) => {
  // The moment after the endpoint was read and before the delivery is written, as a delete would leave it.
  const adding = new WebhookStore({ pool }).addDelivery(pool, {
    endpoint: 'deleted',
    eventId: randomUUID(),
    type: 'ping',
    seq: null,
    body: {},
  })
  await t.rejects(adding, { code: 1004 })
})

t.test('a failed attempt is retried about 5 s then 5 min later; a 2xx delivers it', async (t) => {
  const receiver = await startReceiver(t)
  const { secret } = await ok('/system/webhook/add', { id: 'flaky', url: receiver.url, types: ['record.added'] })
  let failures = 2
  receiver.answer = () => (failures-- > 0 ? 500 : 200)
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-W2'))
  await eventually(() => receiver.received.length === 1, { what: 'the first attempt' })
  const nextIn = async () => {
    const { rows } = await pool.query(`SELECT extract(epoch FROM due - now()) AS s FROM webhook_delivery WHERE endpoint = 'flaky'`)
    return Number(rows[0].s)
  }
  await eventually(async () => (await ok('/system/webhook/deliveries', { id: 'flaky' })).total === 1)
  const first = await nextIn()
  t.ok(first > 5 * 0.8 - 1 && first <= 5 * 1.2, `the second attempt in about 5 s (${first})`)
  await retriesDueNow()
  await eventually(() => receiver.received.length === 2, { what: 'the second attempt' })
  await eventually(async () => (await ok('/system/webhook/deliveries', { id: 'flaky' })).total === 2)
  const second = await nextIn()
  t.ok(second > 300 * 0.8 - 1 && second <= 300 * 1.2, `the third in about 5 min (${second})`)
  await retriesDueNow()
  await eventually(() => receiver.received.length === 3, { what: 'the third attempt' })
  const attempts = await eventually(async () => {
    const page = await ok('/system/webhook/deliveries', { id: 'flaky' })
    return page.total === 3 && page
  })
  t.same(
    attempts.list.map((attempt: any) => [attempt.attempt, attempt.status, attempt.outcome]),
    [
      [3, 200, 'delivered'],
      [2, 500, 'pending'],
      [1, 500, 'pending'],
    ],
  )
  t.ok(
    receiver.received.every((delivery) => delivery.id === receiver.received[0].id && verified(secret, delivery)),
    'the same webhook-id each time',
  )
  await ok('/system/webhook/delete', { id: 'flaky' })
})

t.test("a record's events go in order: the next waits while one is retried; other records' do not", async (t) => {
  const receiver = await startReceiver(t)
  await ok('/system/webhook/add', { id: 'ordered', url: receiver.url, types: ['record.added', 'record.updated'] })
  let failFirst = true
  receiver.answer = (delivery) => (delivery.event.data.id === 'RU-W3' && failFirst ? 503 : 200)
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-W3'))
  await eventually(() => receiver.received.length === 1)
  await ok('/prevent/riskUnit/update', { id: 'RU-W3', riskUnitName: 'second' })
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-W4'))
  await eventually(() => receiver.received.some((delivery) => delivery.event.data.id === 'RU-W4'), { what: 'the other record' })
  t.notOk(
    receiver.received.some((delivery) => delivery.event.type === 'record.updated'),
    'the update waits behind the add being retried',
  )
  failFirst = false
  await retriesDueNow()
  await eventually(() => receiver.received.some((delivery) => delivery.event.type === 'record.updated'), { what: 'the update' })
  const own = receiver.received.filter((delivery) => delivery.event.data.id === 'RU-W3').map((delivery) => delivery.event.data.version)
  t.same(own, [1, 1, 2], 'retried add, then the update')
  await ok('/system/webhook/delete', { id: 'ordered' })
})

t.test('a 410 disables the endpoint at once; events meanwhile are not delivered; enabling brings it back', async (t) => {
  const receiver = await startReceiver(t)
  await ok('/system/webhook/add', { id: 'gone', url: receiver.url, types: ['record.added'] })
  receiver.answer = () => 410
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-W5'))
  const listed = await eventually(async () => {
    const [endpoint] = (await ok('/system/webhook/list', {})).list
    return endpoint.enabled === false && endpoint
  })
  t.equal(listed.disabledReason, 'the endpoint answered 410 Gone')
  t.match((await ok('/system/webhook/deliveries', { id: 'gone' })).list[0], { status: 410, outcome: 'failed' })
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-W6'))
  receiver.answer = () => 200
  t.match(await ok('/system/webhook/update', { id: 'gone', enabled: true }), { enabled: true, disabledReason: null })
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-W7'))
  await eventually(() => receiver.received.some((delivery) => delivery.event.data.id === 'RU-W7'))
  t.same(
    receiver.received.map((delivery) => delivery.event.data.id),
    ['RU-W5', 'RU-W7'],
    'the event written while disabled went to the feed only',
  )
  await ok('/system/webhook/delete', { id: 'gone' })
})

t.test('a 410 ends the deliveries being retried failed: their last attempts say so, even one answered after', async (t) => {
  const receiver = await startReceiver(t)
  await ok('/system/webhook/add', { id: 'h5', url: receiver.url, types: ['record.added'] })
  const answers: Record<string, Reply> = { 'RU-H1': 500, 'RU-H2': 'hang', 'RU-H3': 410 }
  receiver.answer = (delivery) => answers[delivery.event.data.id]
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-H1'))
  await eventually(async () => (await ok('/system/webhook/deliveries', { id: 'h5' })).total === 1, { what: 'the first attempt' })
  // Its retry (queued with the attempt) is not due before the 410 ends it.
  await pool.query(`UPDATE pgboss.job SET start_after = now() + interval '1 hour' WHERE name = 'webhook-delivery' AND state = 'created'`)
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-H2'))
  await eventually(() => receiver.received.some((delivery) => delivery.event.data.id === 'RU-H2'), { what: 'an attempt in flight' })
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-H3'))
  await eventually(async () => (await ok('/system/webhook/list', {})).list[0].enabled === false, { what: 'the 410' })
  // The attempt in flight ends now, its delivery already failed.
  await receiver.close()
  const page = await eventually(
    async () => {
      const attempts = await ok('/system/webhook/deliveries', { id: 'h5' })
      return attempts.total === 3 && attempts
    },
    { what: 'the attempt in flight recorded' },
  )
  const { rows } = await pool.query(`SELECT state FROM webhook_delivery WHERE endpoint = 'h5'`)
  t.same(
    rows.map((row) => row.state),
    ['failed', 'failed', 'failed'],
  )
  const idOf = (eventId: string) => receiver.received.find((delivery) => delivery.id === eventId)?.event.data.id
  t.same(page.list.map((attempt: any) => [idOf(attempt.eventId), attempt.status, attempt.outcome]).sort(), [
    ['RU-H1', 500, 'failed'],
    ['RU-H2', null, 'failed'],
    ['RU-H3', 410, 'failed'],
  ])
  await ok('/system/webhook/delete', { id: 'h5' })
})

t.test('an endpoint disabled by an admin: the retry cut off ends failed at once, and a ping is refused', async (t) => {
  const receiver = await startReceiver(t)
  await ok('/system/webhook/add', { id: 'h6', url: receiver.url, types: ['record.added'] })
  receiver.answer = () => 500
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-H4'))
  await eventually(async () => (await ok('/system/webhook/deliveries', { id: 'h6' })).total === 1, { what: 'the first attempt' })
  t.match((await ok('/system/webhook/deliveries', { id: 'h6' })).list[0], { status: 500, outcome: 'pending' })
  await ok('/system/webhook/update', { id: 'h6', enabled: false })
  // Ended by the update itself, before its retry is due.
  t.same((await pool.query(`SELECT state FROM webhook_delivery WHERE endpoint = 'h6'`)).rows, [{ state: 'failed' }])
  const page = await ok('/system/webhook/deliveries', { id: 'h6' })
  t.equal(page.total, 1, 'no attempt is made')
  t.match(page.list[0], { attempt: 1, status: 500, outcome: 'failed' })
  const refused = (await service.call('/system/webhook/test', { id: 'h6' }, { token })).body
  t.match(refused, { code: 1002, msg: 'webhook h6 is disabled: enable it first' })
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM webhook_delivery WHERE endpoint = 'h6' AND type = 'ping'`)
  t.equal(rows[0].n, 0, 'no ping is queued')
  t.equal(receiver.received.length, 1)
  await ok('/system/webhook/delete', { id: 'h6' })
})

t.test('an endpoint whose every attempt failed for 5 days is disabled', async (t) => {
  const receiver = await startReceiver(t)
  await ok('/system/webhook/add', { id: 'dead', url: receiver.url, types: ['record.added'] })
  receiver.answer = () => 500
  await pool.query(`UPDATE webhook_endpoint SET "failingSince" = now() - interval '5 days 1 minute' WHERE id = 'dead'`)
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-W8'))
  const listed = await eventually(async () => {
    const [endpoint] = (await ok('/system/webhook/list', {})).list
    return endpoint.enabled === false && endpoint
  })
  t.equal(listed.disabledReason, 'every attempt failed for 5 days')
  await ok('/system/webhook/delete', { id: 'dead' })
})

t.test('rotation: both secrets sign for a while, never more than two; ping and redelivery', async (t) => {
  const receiver = await startReceiver(t)
  const { secret: first } = await ok('/system/webhook/add', { id: 'rotating', url: receiver.url, types: ['record.added'] })
  const { secret: second } = await ok('/system/webhook/rotateSecret', { id: 'rotating' })
  t.not(second, first)
  t.match((await ok('/system/webhook/list', {})).list[0].previousSecretUntil, /^\d{4}-/)
  const { eventId } = await ok('/system/webhook/test', { id: 'rotating' })
  await eventually(() => receiver.received.length === 1, { what: 'the ping' })
  const [ping] = receiver.received
  t.equal(ping.id, eventId)
  t.match(ping.event, { id: eventId, type: 'ping' })
  t.notOk('seq' in ping.event, 'a ping has no seq')
  t.equal(ping.signatures.length, 2)
  t.ok(verified(first, ping) && verified(second, ping), 'both secrets verify')
  const { secret: third } = await ok('/system/webhook/rotateSecret', { id: 'rotating' })
  const answered = await ok('/system/webhook/redeliver', { id: 'rotating', eventId: eventId.toUpperCase() })
  t.equal(answered.eventId, eventId, 'the webhook-id as delivered, whatever the case sent')
  await eventually(() => receiver.received.length === 2, { what: 'the redelivery' })
  const redelivered = receiver.received[1]
  t.equal(redelivered.id, eventId, 'the same webhook-id')
  t.equal(redelivered.signatures.length, 2, 'never more than two')
  t.ok(verified(third, redelivered) && verified(second, redelivered))
  t.notOk(verified(first, redelivered), "the oldest's grace ended at the second rotation")
  t.equal((await service.call('/system/webhook/redeliver', { id: 'rotating', eventId: crypto.randomUUID() }, { token })).body.code, 1004)
  await ok('/system/webhook/delete', { id: 'rotating' })
})

t.test('an address no connection can reach is refused, private networks allowed or not', async (t) => {
  const answer = await service.call(
    '/system/webhook/add',
    { id: 'port-zero', url: 'http://127.0.0.1:0/hook', types: ['record.added'] },
    { token },
  )
  t.match(answer.body, { code: 1002, msg: /port 0/ })
  t.equal((await ok('/system/webhook/list', {})).list.filter((endpoint: { id: string }) => endpoint.id === 'port-zero').length, 0)
})

t.test('a slow endpoint slows neither a write nor another endpoint', async (t) => {
  const slow = await startReceiver(t)
  const fast = await startReceiver(t)
  slow.answer = () => 'hang'
  await ok('/system/webhook/add', { id: 'slow', url: slow.url, types: ['record.added'] })
  await ok('/system/webhook/add', { id: 'fast', url: fast.url, types: ['record.added'] })
  await ok('/prevent/riskUnit/add', record('riskUnit', 'RU-S0'))
  await eventually(() => slow.received.length > 0, { what: 'the slow endpoint to hold its first attempt' })
  for (let n = 1; n < 6; n++) await ok('/prevent/riskUnit/add', record('riskUnit', `RU-S${n}`))
  await eventually(() => fast.received.length === 6, { what: 'the fast endpoint to receive every event', timeoutMs: 60_000 })
  // Ordered by the slow attempt's own 15 s timeout rather than by a clock: had the writes or the fast
  // endpoint waited on it, it would have ended (and been listed) first.
  t.same(
    (await ok('/system/webhook/deliveries', { id: 'slow' })).list,
    [],
    'every write answered, every fast delivery made, while it hangs',
  )
  const attempt = await eventually(
    async () => (await ok('/system/webhook/deliveries', { id: 'slow' })).list.find((item: any) => item.outcome === 'pending'),
    { what: 'the slow attempt to time out', timeoutMs: 60_000 },
  )
  t.match(attempt, { status: null, error: 'no answer within 15 s' })
  t.ok(attempt.durationMs >= 14_000 && attempt.durationMs < 30_000, 'cut by its 15 s timeout')
  await ok('/system/webhook/delete', { id: 'slow' })
  await ok('/system/webhook/delete', { id: 'fast' })
})

t.test('private and unresolvable addresses are refused unless allowed', async (t) => {
  const strict = await startService(t)
  const strictToken = await strict.login()
  for (const url of [
    'http://127.0.0.1/hook',
    'http://10.1.2.3/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.1/hook',
    'http://100.64.0.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0/hook',
    'http://[::1]/hook',
    'http://[::]/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:10.0.0.1]/hook',
    'http://[::127.0.0.1]/hook',
    'http://[::ffff:0:127.0.0.1]/hook',
    'http://[64:ff9b::a00:1]/hook',
    'http://[64:ff9b:1::1]/hook',
    'http://2130706433/hook',
    'http://localhost/hook',
    'http://no-such-host.invalid/hook',
    'ftp://example.com/hook',
  ]) {
    const answer = (await strict.call('/system/webhook/add', { id: 'x', url, types: ['record.added'] }, { token: strictToken })).body
    t.equal(answer.code, 1002, url)
  }
  const viewer = await strict.userToken('viewer')
  t.equal((await strict.call('/system/webhook/list', {}, { token: viewer })).status, 403, 'admins only')
})

t.end()
