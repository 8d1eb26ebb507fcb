// Idempotency-Key: replay of the first answer, 1007 for another body, concurrent
// requests write once, keys scoped per user (by the never-reused id), keys expire.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const admin = await service.login()
const operator = await service.userToken('operator')
const add = (body: unknown, key: string, token = admin) =>
  service.call('/prevent/riskUnit/add', body, { token, headers: { 'idempotency-key': key } })
const count = async (id: string) =>
  (await service.database.pool.query('SELECT count(*)::int AS n FROM risk_unit WHERE id = $1', [id])).rows[0].n

t.test('a repeat with the same key and body replays the first answer and writes once', async (t) => {
  const body = record('riskUnit', 'RU-I1')
  t.equal((await add(body, 'key-1')).body.code, 0)
  t.same((await add(body, 'key-1')).body, { msg: '', code: 0, data: null, success: true }, 'not 1003: the first answer again')
  t.same((await add({ ...body }, 'key-1')).body.code, 0, 'the same body with its keys in another order')
  t.equal(await count('RU-I1'), 1)
  t.equal((await add(body, 'key-2')).body.code, 1003, 'a new key is a new request')
})

t.test('the same key with another body, or for another operation, is 1007', async (t) => {
  const reply = await add(record('riskUnit', 'RU-I2'), 'key-1')
  t.same(reply.body, { msg: 'Idempotency-Key reused with a different body', code: 1007, data: null, success: false })
  t.equal(await count('RU-I2'), 0)
  const other = await service.call('/prevent/riskUnit/update', record('riskUnit', 'RU-I1'), {
    token: admin,
    headers: { 'idempotency-key': 'key-1' },
  })
  t.equal(other.body.code, 1007)
})

t.test('keys are scoped per user', async (t) => {
  t.equal((await add(record('riskUnit', 'RU-I3'), 'shared', admin)).body.code, 0)
  t.equal((await add(record('riskUnit', 'RU-I3'), 'shared', operator)).body.code, 1003, "the operator's key is its own: its add runs")
})

t.test("keys are scoped by the user's id: a user deleted and added again under its name starts afresh", async (t) => {
  const first = await service.userToken('operator', 'reborn')
  t.equal((await add(record('riskUnit', 'RU-I6'), 'mine-1', first)).body.code, 0)
  t.equal((await add(record('riskUnit', 'RU-I7'), 'mine-2', first)).body.code, 0)
  t.equal((await service.call('/system/user/delete', { userName: 'reborn' }, { token: admin })).body.code, 0)
  const again = await service.userToken('operator', 'reborn')
  t.equal((await add(record('riskUnit', 'RU-I6'), 'mine-1', again)).body.code, 1003, 'not the old answer replayed: the add ran')
  t.equal((await add(record('riskUnit', 'RU-I8'), 'mine-2', again)).body.code, 0, 'not 1007: the old key is not this user\u2019s')
  t.equal(await count('RU-I8'), 1)
  const { rows } = await service.database.pool.query(
    `SELECT k."userId" FROM idempotency_key AS k JOIN app_user AS u ON u.id = k."userId" WHERE u."userName" = 'reborn' ORDER BY key`,
  )
  t.equal(rows.length, 2, "the new user's keys are its own, under its id")
})

t.test('a business refusal is replayed too', async (t) => {
  const duplicate = record('riskUnit', 'RU-I1')
  t.equal((await add(duplicate, 'key-dup')).body.code, 1003)
  await service.call('/prevent/riskUnit/delete', { id: 'RU-I1' }, { token: admin })
  t.equal((await add(duplicate, 'key-dup')).body.code, 1003)
})

t.test('concurrent requests with one key write once and all get the one answer', async (t) => {
  for (let round = 0; round < 5; round++) {
    const body = { list: Array.from({ length: 5 }, (_, i) => record('riskUnit', `RU-C${round}-${i}`)) }
    const replies = await Promise.all(
      Array.from({ length: 6 }, () =>
        service.call('/prevent/riskUnit/add-batch', body, { token: admin, headers: { 'idempotency-key': `batch-${round}` } }),
      ),
    )
    for (const reply of replies) t.same(reply.body.data, { succeeded: body.list.map((item) => item.id), failed: [] }, `round ${round}`)
    t.equal(await count(`RU-C${round}-0`), 1)
  }
})

t.test('inside an idempotent batch, a refused item fails alone', async (t) => {
  const list = [
    record('riskEvents', 'RE-I1', { riskUnitId: 'RU-I3' }),
    record('riskEvents', 'RE-I2', { riskUnitId: 'RU-404' }),
    record('riskEvents', 'RE-I3', { riskUnitId: 'RU-I3' }),
  ]
  const reply = await service.call('/prevent/riskEvents/add-batch', { list }, { token: admin, headers: { 'idempotency-key': 'batch-fk' } })
  t.same(reply.body.data.succeeded, ['RE-I1', 'RE-I3'])
  t.same(
    reply.body.data.failed.map((item: any) => item.code),
    [1006],
  )
})

t.test('an expired key is forgotten: the request runs again', async (t) => {
  const body = record('riskUnit', 'RU-I5')
  t.equal((await add(body, 'key-exp')).body.code, 0)
  await service.database.pool.query(`UPDATE idempotency_key SET "expiresAt" = now() - interval '1 second' WHERE key = 'key-exp'`)
  t.equal((await add(body, 'key-exp')).body.code, 1003, 'ran again, found the id taken')
})

t.test('an Idempotency-Key longer than 128 characters is 1002', async (t) => {
  const reply = await add(record('riskUnit', 'RU-I6'), 'k'.repeat(129))
  t.same(
    [reply.body.code, reply.body.msg],
    [1002, 'Idempotency-Key: must NOT have more than 128 characters'],
    'named as the document names it',
  )
})

t.end()
