// The enterprise pushes with its own park account and logs in again when the park answers 401
// (its token ended: the park restarted with another secret, or the account's tokens were revoked).
import t from 'tap'
import { pushedRecord, record } from '../helpers/fixtures.ts'
import { eventually, loginTo, post, startParkProcess } from '../helpers/park.ts'
import { startService } from '../helpers/service.ts'

const park = await startParkProcess(t)
const parkAdmin = await loginTo(park.url)
t.equal(
  (await post(`${park.url}/system/user/add`, { userName: 'enterprise-push', password: 'push-account-secret', role: 'admin' }, parkAdmin))
    .code,
  0,
)
const enterprise = await startService(t, {
  env: { PARK_URL: park.url, PARK_USER: 'enterprise-push', PARK_PASSWORD: 'push-account-secret' },
})
const token = await enterprise.login()
const syncStatus = async (id: string) => (await enterprise.call('/prevent/riskUnit/getById', { id }, { token })).body.data.sync_status

t.test('a 401 from the park makes the push log in again, and the record is delivered', async (t) => {
  await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-A'), { token })
  await eventually(async () => (await syncStatus('RU-A')) === 'synced', { what: 'the first push' })
  // Disabling then enabling the account ends every token it holds on the park.
  t.equal((await post(`${park.url}/system/user/update`, { userName: 'enterprise-push', enabled: false }, parkAdmin)).code, 0)
  t.equal((await post(`${park.url}/system/user/update`, { userName: 'enterprise-push', enabled: true }, parkAdmin)).code, 0)
  await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-B'), { token })
  await eventually(async () => (await syncStatus('RU-B')) === 'synced', { what: 'the push after the token ended' })
  const onPark = await post(`${park.url}/prevent/riskUnit/getById`, { id: 'RU-B' }, parkAdmin)
  t.equal(onPark.code, 0)
  t.equal(onPark.data.createBy, 'admin', 'the record as the enterprise wrote it, not as the push account')
})

t.test('the push is for admin and enterprise accounts of the park: refused to other roles', async (t) => {
  const operator = 'park-operator'
  await post(`${park.url}/system/user/add`, { userName: operator, password: 'operator-secret', role: 'operator' }, parkAdmin)
  const operatorToken = (await post(`${park.url}/system/login`, { userName: operator, password: 'operator-secret' })).data.token
  const reply = await fetch(`${park.url}/system/push/records`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorToken}` },
    body: JSON.stringify({ resource: 'riskUnit', list: [] }),
  })
  t.equal(reply.status, 403)
  t.equal(((await reply.json()) as any).code, 2003)
})

t.test('the enterprise edition takes no pushes, and add-batch there adds new records whatever X-Sync-Push says', async (t) => {
  const pushed = await enterprise.call(
    '/system/push/records',
    { resource: 'riskUnit', list: [pushedRecord('riskUnit', 'RU-X')] },
    { token },
  )
  t.same([pushed.status, pushed.body.code], [403, 2003])
  const added = await enterprise.call(
    '/prevent/riskUnit/add-batch',
    { list: [record('riskUnit', 'RU-Y')] },
    { token, headers: { 'x-sync-push': '1' } },
  )
  t.same(added.body.data.succeeded, ['RU-Y'], 'the header means nothing')
})

t.end()
