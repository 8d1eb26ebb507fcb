// CONTRACT §10, nothing stranded: a record the park can never apply ends `failed` with its reason
// readable through the API (and usable in search), counted in /system/sync/status and /metrics, and
// the sweep re-queues it a bounded number of times, not forever.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually, loginTo, post, startParkProcess } from '../helpers/park.ts'
import { startService } from '../helpers/service.ts'

const park = await startParkProcess(t)
// The enterprise pushes with the account of another enterprise: the park refuses every item (2003).
const added = await post(
  `${park.url}/system/user/add`,
  { userName: 'ent-other', password: 'password-other', role: 'enterprise', companyCode: '999999999' },
  await loginTo(park.url),
)
t.equal(added.code, 0)
const enterprise = await startService(t, {
  env: {
    COMPANY_CODE: '123456789',
    PARK_URL: park.url,
    PARK_USER: 'ent-other',
    PARK_PASSWORD: 'password-other',
    SYNC_FAILED_RETRY_SECONDS: '0',
    SYNC_FAILED_REQUEUE_ROUNDS: '2',
  },
})
const token = await enterprise.login()

t.test('a record the park refuses ends failed with its reason, readable and searchable', async (t) => {
  t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-REFUSED'), { token })).body.code, 0)
  const failed = await eventually(
    async () => {
      const read = (await enterprise.call('/prevent/riskUnit/getById', { id: 'RU-REFUSED' }, { token })).body.data
      return read.sync_status === 'failed' && read
    },
    { what: 'the record to fail' },
  )
  t.match(failed.sync_error, /^park refused with 2003: permission denied: this account pushes for companyCode 999999999, not 123456789/)
  const found = await enterprise.call(
    '/prevent/riskUnit/search',
    { conditions: [{ field: 'sync_error', op: 'like', value: 'refused with 2003' }] },
    { token },
  )
  t.same(
    found.body.data.list.map((unit: any) => unit.id),
    ['RU-REFUSED'],
    'sync_error is a search condition',
  )
})

t.test('the sweep re-queues it a bounded number of times, then it stays failed and counted', async (t) => {
  const rounds = async () => {
    await enterprise.app.push!.sweep()
    return (await enterprise.call('/prevent/riskUnit/getById', { id: 'RU-REFUSED' }, { token })).body.data.sync_status
  }
  // Two rounds (SYNC_FAILED_REQUEUE_ROUNDS): each sweep queues it again, the push fails it again.
  t.equal(await rounds(), 'failed', 'round 1 ends failed again')
  t.equal(await rounds(), 'failed', 'round 2 ends failed again')
  const attempts = await enterprise.database.pool.query(`SELECT sync_rounds FROM risk_unit WHERE id = 'RU-REFUSED'`)
  t.equal(attempts.rows[0].sync_rounds, 2)
  await enterprise.app.push!.sweep()
  const after = await enterprise.database.pool.query(`SELECT sync_rounds, sync_status FROM risk_unit WHERE id = 'RU-REFUSED'`)
  t.same(after.rows[0], { sync_rounds: 2, sync_status: 'failed' }, 'not queued a third time')
  const status = (await enterprise.call('/system/sync/status', {}, { token })).body.data
  t.equal(status.failedExhausted, 1)
  t.equal(status.resources.find((counts: any) => counts.resource === 'riskUnit').failed, 1)
  const metrics = await (await fetch(`${enterprise.url}/metrics`)).text()
  t.match(metrics, /^sync_records\{resource="riskUnit",state="failed"\} 1$/m)
  t.match(metrics, /^sync_records_failed_exhausted 1$/m)
  // An operator's retry queues it again, rounds and all.
  const retried = (await enterprise.call('/system/sync/retry', { resource: 'riskUnit', ids: ['RU-REFUSED'] }, { token })).body.data
  t.same(retried, { requeued: 1 })
  const reset = await enterprise.database.pool.query(`SELECT sync_rounds FROM risk_unit WHERE id = 'RU-REFUSED'`)
  t.equal(reset.rows[0].sync_rounds, 0)
})

t.end()
