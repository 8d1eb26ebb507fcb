// A push the park refuses for the account itself (its role not allowed to push, its password
// refused) is a configuration fault, not the records': they stay pending with the reason as their
// sync_error, shown in /system/sync/status and /metrics, retried with backoff, never failed; once
// the account is fixed they are delivered.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually, loginTo, post, startParkProcess } from '../helpers/park.ts'
import { startService } from '../helpers/service.ts'

const park = await startParkProcess(t)
const parkAdmin = await loginTo(park.url)
const added = await post(`${park.url}/system/user/add`, { userName: 'pusher', password: 'pusher-secret', role: 'operator' }, parkAdmin)
t.equal(added.code, 0, added.msg)
// One attempt allowed: a refusal of the records would fail them at the first failed call.
const enterprise = await startService(t, {
  env: { PARK_URL: park.url, PARK_USER: 'pusher', PARK_PASSWORD: 'pusher-secret', SYNC_RETRY_LIMIT: '0' },
})
const push = enterprise.app.push!
const token = await enterprise.login()
const stored = async (id: string) =>
  (await enterprise.database.pool.query(`SELECT sync_status, sync_attempts, sync_error FROM risk_unit WHERE id = $1`, [id])).rows[0]

t.test('an account whose role may not push: the records stay pending, the reason shown', async (t) => {
  t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-ROLE'), { token })).body.code, 0)
  await eventually(async () => (await stored('RU-ROLE')).sync_attempts >= 1, { what: 'a refused push' })
  // More drains than attempts allowed: still pending.
  for (let i = 0; i < 3; i++) await push.drain().catch(() => undefined)
  const row = await stored('RU-ROLE')
  t.equal(row.sync_status, 'pending', 'never failed')
  t.ok(row.sync_attempts > 1, `${row.sync_attempts} attempts`)
  t.match(
    row.sync_error,
    /^not delivered: park answered HTTP 403, code 2003: permission denied: role operator may not call systemPushRecords/,
  )
  const status = (await enterprise.call('/system/sync/status', {}, { token })).body.data
  t.equal(status.pushFailure.accountRefused, true)
  t.match(status.pushFailure.reason, /role operator may not call systemPushRecords/)
  t.equal(status.resources.find((counts: any) => counts.resource === 'riskUnit').failed, 0)
  const metrics = await (await fetch(`${enterprise.url}/metrics`)).text()
  t.match(metrics, /^sync_push_account_refused 1$/m)
})

t.test('a refused password: pending too, and delivered once the account is fixed', async (t) => {
  t.equal(
    (await post(`${park.url}/system/user/update`, { userName: 'pusher', password: 'another-secret', role: 'admin' }, parkAdmin)).code,
    0,
  )
  for (let i = 0; i < 3; i++) await push.drain().catch(() => undefined)
  const row = await stored('RU-ROLE')
  t.equal(row.sync_status, 'pending')
  t.match(row.sync_error, /^not delivered: park login refused/)
  t.equal((await enterprise.call('/system/sync/status', {}, { token })).body.data.pushFailure.accountRefused, true)
  // The account fixed on the park: the next drain delivers.
  t.equal((await post(`${park.url}/system/user/update`, { userName: 'pusher', password: 'pusher-secret' }, parkAdmin)).code, 0)
  push.retryNow()
  await eventually(async () => (await stored('RU-ROLE')).sync_status === 'synced', { what: 'the record delivered' })
  // The failure is cleared as the drain ends, after what is pushed beside the records (the enterprise's zone).
  await eventually(async () => (await enterprise.call('/system/sync/status', {}, { token })).body.data.pushFailure === null, {
    what: 'no push failure',
  })
  t.match(await (await fetch(`${enterprise.url}/metrics`)).text(), /^sync_push_account_refused 0$/m)
})

t.end()
