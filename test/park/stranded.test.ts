// Nothing stranded: a record the park can never apply ends `failed` with its reason
// readable through the API (and usable in search), counted in /system/sync/status and /metrics, and
// the sweep re-queues it a bounded number of times, not forever. An attachment too, though
// the park refuses it with an HTTP error status (403) where it refuses a record's item inside a 200.
import t, { type Test } from 'tap'
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

/**
 * Two sweeps (SYNC_FAILED_REQUEUE_ROUNDS), each queueing it again and the push failing it again
 * (`status` reads it through the API), then a third that leaves it failed.
 */
async function sweptToTheBound(t: Test, table: string, id: string, status: () => Promise<string>): Promise<void> {
  const rounds = async () =>
    (await enterprise.database.pool.query(`SELECT sync_rounds, sync_status FROM ${table} WHERE id = $1`, [id])).rows[0]
  // Each sweep's pushes settle before the next sweep: every row refused (the zone too) counts its rounds in step.
  const settled = async () =>
    (await enterprise.call('/system/sync/status', {}, { token })).body.data.resources.every((counts: any) => counts.pending === 0)
  // The zone is noted by the upkeep's first run and pushed at once: it must have failed before the first sweep.
  const zoneFailed = async () =>
    (await enterprise.database.pool.query(`SELECT sync_status FROM enterprise_zone`)).rows[0]?.sync_status === 'failed'
  await eventually(async () => (await zoneFailed()) && (await settled()), { what: 'the zone refused' })
  for (const round of [1, 2]) {
    await enterprise.app.push!.sweep()
    await eventually(settled, { what: `round ${round} settled` })
    t.equal(await status(), 'failed', `round ${round} ends failed again`)
  }
  t.equal((await rounds()).sync_rounds, 2)
  await enterprise.app.push!.sweep()
  t.same(await rounds(), { sync_rounds: 2, sync_status: 'failed' }, 'not queued a third time')
}

/** /system/sync/status and /metrics count `exhausted` failed records the sweep leaves, and one failed of `resource`. */
async function countedExhausted(t: Test, resource: string, exhausted: number): Promise<void> {
  const status = (await enterprise.call('/system/sync/status', {}, { token })).body.data
  t.equal(status.failedExhausted, exhausted)
  t.equal(status.resources.find((counts: any) => counts.resource === resource).failed, 1)
  // /metrics reuses each of its reads for a second (the counts and the exhausted are two reads).
  const counted = await eventually(
    async () => {
      const text = await (await fetch(`${enterprise.url}/metrics`)).text()
      return (
        text.includes(`\nsync_records_failed_exhausted ${exhausted}\n`) &&
        text.includes(`\nsync_records{resource="${resource}",state="failed"} 1\n`)
      )
    },
    { what: `/metrics to count ${exhausted} exhausted, and 1 failed of ${resource}` },
  )
  t.ok(counted, `${resource}: counted in /metrics`)
}

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
  await sweptToTheBound(
    t,
    'risk_unit',
    'RU-REFUSED',
    async () => (await enterprise.call('/prevent/riskUnit/getById', { id: 'RU-REFUSED' }, { token })).body.data.sync_status,
  )
  // And the enterprise's zone, pushed beside the records and refused the same way, swept with it.
  await countedExhausted(t, 'riskUnit', 2)
  // An operator's retry queues it again, rounds and all.
  const retried = (await enterprise.call('/system/sync/retry', { resource: 'riskUnit', ids: ['RU-REFUSED'] }, { token })).body.data
  t.same(retried, { requeued: 1 })
  const reset = await enterprise.database.pool.query(`SELECT sync_rounds FROM risk_unit WHERE id = 'RU-REFUSED'`)
  t.equal(reset.rows[0].sync_rounds, 0)
})

t.test(
  'an attachment the park refuses (2003, another enterprise’s) ends failed with its reason, and is re-queued a bounded number of times',
  async (t) => {
    const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
    t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-ATTACHED'), { token })).body.code, 0)
    const attached = await enterprise.call(
      '/prevent/riskUnit/attachment/add',
      { id: 'AT-REFUSED', recordId: 'RU-ATTACHED', fileName: 'refused.png', contentType: 'image/png', content: PNG },
      { token },
    )
    t.equal(attached.body.code, 0)
    const read = async () =>
      (await enterprise.call('/prevent/riskUnit/attachment/list', { recordId: 'RU-ATTACHED' }, { token })).body.data.list[0]
    // The park refuses the attachment with 2003: its own refusal, not the park being away.
    const failed = await eventually(
      async () => {
        const attachment = await read()
        return attachment.sync_status === 'failed' && attachment
      },
      { what: 'the attachment to fail' },
    )
    t.match(failed.sync_error, /^park refused with 2003: permission denied: this account pushes companyCode 999999999 only/)
    t.ok(failed.sync_time, 'when it failed')

    await sweptToTheBound(t, 'risk_unit_attachment', 'AT-REFUSED', async () => (await read()).sync_status)
    // Exhausted: the record of the tests above (its rounds started over by the operator's retry, the
    // sweeps here used them up again), this one's record, the attachment, and the enterprise's zone.
    await countedExhausted(t, 'riskUnit/attachment', 4)
  },
)

t.test('a failed delete, of an attachment or of a record, has its reason in the status', async (t) => {
  t.equal((await enterprise.call('/prevent/riskUnit/attachment/delete', { id: 'AT-REFUSED' }, { token })).body.code, 0)
  t.equal((await enterprise.call('/prevent/riskUnit/delete', { id: 'RU-ATTACHED' }, { token })).body.code, 0)
  // Deleted, they are found by no read: getById answers 1004, search and attachment/list leave them out.
  t.equal((await enterprise.call('/prevent/riskUnit/getById', { id: 'RU-ATTACHED' }, { token })).body.code, 1004)
  const failures = await eventually(
    async () => {
      const status = (await enterprise.call('/system/sync/status', {}, { token })).body.data
      const deleted = status.failures.filter((item: any) => item.deleted)
      return deleted.length === 2 && status.failures
    },
    { what: 'both deletes to fail' },
  )
  const find = (resource: string, id: string) => failures.find((item: any) => item.resource === resource && item.id === id)
  t.match(find('riskUnit', 'RU-ATTACHED'), { deleted: true, sync_error: /^park refused with 2003: /, sync_time: /^\d{4}-/ })
  t.match(find('riskUnit/attachment', 'AT-REFUSED'), { deleted: true, version: 2, sync_error: /^park refused with 2003: / })
  t.ok(
    failures.every((item: any) => item.sync_error),
    'each with its reason',
  )
  const times = failures.map((item: any) => Date.parse(item.sync_time))
  t.same(
    times,
    [...times].sort((a: number, b: number) => b - a),
    'the most recently failed first',
  )
})

t.end()
