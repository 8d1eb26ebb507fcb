// Webhooks across processes (docs/events.md): a process killed in the middle of a delivery loses
// no event (its job is taken again once expired, by another process on the same database), and two
// instances deliver every event of the feed, each at least once, under the same webhook-id.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually, loginTo, post, startEdition } from '../helpers/park.ts'
import { startReceiver, verifySignature } from '../helpers/webhook-receiver.ts'

const env = { WEBHOOK_ALLOW_PRIVATE: 'true', SYNC_SUPERVISE_SECONDS: '1' }
const first = await startEdition(t, { edition: 'enterprise', env })
const receiver = await startReceiver(t)
let token = await loginTo(first.url)
const added = await post(`${first.url}/system/webhook/add`, { id: 'kept', url: receiver.url, types: ['record.added'] }, token)
t.equal(added.code, 0)
const secret: string = added.data.secret

t.test('a process killed mid-delivery loses no event: another delivers it', async (t) => {
  let hang = true
  receiver.answer = () => (hang ? 'hang' : 204)
  t.equal((await post(`${first.url}/prevent/riskUnit/add`, record('riskUnit', 'RU-K1'), token)).code, 0)
  await eventually(() => receiver.received.length === 1, { what: 'the delivery in progress' })
  await first.stop('SIGKILL')
  hang = false
  const second = await startEdition(t, { edition: 'enterprise', databaseUrl: first.databaseUrl, env })
  await first.start()
  token = await loginTo(second.url)
  await eventually(() => receiver.received.length >= 2, { what: 'the delivery again, after the kill', timeoutMs: 120_000 })
  t.equal(receiver.received[1].id, receiver.received[0].id, 'the same event, the same webhook-id')
  t.ok(
    verifySignature(
      secret,
      receiver.received[1].id,
      receiver.received[1].timestamp,
      receiver.received[1].body,
      receiver.received[1].signatures.join(' '),
    ),
  )

  // Both instances write and deliver: every event of the feed arrives.
  // One login per instance: logins are rate-limited across the instances sharing the database.
  const firstToken = await loginTo(first.url)
  const writes = []
  for (let n = 0; n < 20; n++) {
    const url = n % 2 === 0 ? first.url : second.url
    writes.push(post(`${url}/prevent/riskUnit/add`, record('riskUnit', `RU-K${n + 2}`), n % 2 === 0 ? firstToken : token))
  }
  t.ok((await Promise.all(writes)).every((answer) => answer.code === 0))
  const feed = (await post(`${second.url}/system/event/list`, { types: ['record.added'] }, token)).data.list
  t.equal(feed.length, 21)
  await eventually(() => feed.every((event: any) => receiver.received.some((delivery) => delivery.id === event.id)), {
    what: 'every event of the feed delivered',
  })
  t.same(
    feed.map((event: any) => event.seq),
    feed.map((_: unknown, n: number) => n + 1),
  )
})

t.end()
