// The database unreachable is 503/4001; anything unexpected is 500/-1 with a generic
// message; neither leaks anything internal, and the service recovers when the database is back.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { freshDatabase, startService } from '../helpers/service.ts'
import { tcpProxy } from '../helpers/tcp-proxy.ts'

const databaseUrl = await freshDatabase(t)
const proxy = await tcpProxy(databaseUrl)
t.after(() => proxy.close())
const service = await startService(t, { databaseUrl: proxy.url })
const token = await service.login()

t.test('the database unreachable: 503/4001, not ready; back again: answers and ready', async (t) => {
  await proxy.cut()
  const reply = await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-DOWN'), { token })
  t.equal(reply.status, 503)
  t.same(reply.body, { msg: reply.body.msg, code: 4001, data: null, success: false })
  t.notMatch(reply.body.msg, /ECONN|127\.0\.0\.1|pg|postgres/i, 'nothing internal in the message')
  t.equal((await fetch(`${service.url}/health/ready`)).status, 503)
  t.equal((await fetch(`${service.url}/health/live`)).status, 200, 'alive all the same')

  await proxy.restore()
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-UP'), { token })).body.code, 0)
  t.equal((await fetch(`${service.url}/health/ready`)).status, 200)
  t.equal(
    (await service.call('/prevent/riskUnit/getById', { id: 'RU-DOWN' }, { token })).body.code,
    1004,
    'the refused write wrote nothing',
  )
})

t.test('an unexpected failure is 500/-1 with the generic message only', async (t) => {
  await service.database.pool.query('ALTER TABLE train_base_info RENAME TO train_base_info_gone')
  t.teardown(() => service.database.pool.query('ALTER TABLE train_base_info_gone RENAME TO train_base_info'))
  const reply = await service.call('/prevent/trainBaseInfo/list', {}, { token })
  t.equal(reply.status, 500)
  t.same(reply.body, { msg: 'system busy, please retry later', code: -1, data: null, success: false })
})

t.end()
