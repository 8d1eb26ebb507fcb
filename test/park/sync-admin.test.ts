// The push's administration: retries exhausted → failed, with the last error kept; POST /system/sync/retry (admin)
// queues failed records again; /system/sync/status counts them.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually, pushingTo, startParkProcess } from '../helpers/park.ts'
import { startService } from '../helpers/service.ts'

const park = await startParkProcess(t)
await park.stop()
// The probe looks at the park once a minute: its return would queue every undelivered record again
// (park-probe.test.ts), and here only the operator's retries may.
const enterprise = await startService(t, {
  env: pushingTo(park.url, { SYNC_RETRY_LIMIT: '0', SYNC_FAILED_RETRY_SECONDS: '3600', SYNC_PARK_PROBE_MS: '60000' }),
})
const token = await enterprise.login()
const status = async () => (await enterprise.call('/system/sync/status', {}, { token })).body.data
const counts = async (resource: string) => (await status()).resources.find((row: any) => row.resource === resource)
const unitCounts = () => counts('riskUnit')
const zoneCounts = () => counts('enterpriseZone')

t.test('a push that cannot be delivered ends failed, with its error kept', async (t) => {
  // One write, so one drain fails both: a write arriving after a failed drain waits for the backoff's
  // retries (none here) or the minute's sweep, since writes do not knock while the park is known down.
  const list = [record('riskUnit', 'RU-F1'), record('riskUnit', 'RU-F2')]
  t.same((await enterprise.call('/prevent/riskUnit/add-batch', { list }, { token })).body.data.succeeded, ['RU-F1', 'RU-F2'])
  await eventually(async () => (await unitCounts()).failed === 2, { what: 'both records failed' })
  const { rows } = await enterprise.database.pool.query("SELECT id, sync_error FROM risk_unit WHERE sync_status = 'failed' ORDER BY id")
  t.same(
    rows.map((row) => row.id),
    ['RU-F1', 'RU-F2'],
  )
  for (const row of rows) t.match(row.sync_error, /park unreachable/)
  const read = await enterprise.call('/prevent/riskUnit/getById', { id: 'RU-F1' }, { token })
  t.equal(read.body.data.sync_status, 'failed')
  const found = await enterprise.call(
    '/prevent/riskUnit/search',
    { conditions: [{ field: 'sync_status', op: 'eq', value: 'failed' }] },
    { token },
  )
  t.equal(found.body.data.total, 2, 'operators find failed pushes by search')
  // The enterprise's zone, noted by the upkeep's first run, fails the same way (later, by the retry job).
  await eventually(async () => (await zoneCounts()).failed === 1, { what: 'the zone failed' })
})

t.test('sync/retry by resource and ids queues those failed records again, and they reach the park', async (t) => {
  const pool = enterprise.database.pool
  const failedAt = async () =>
    Object.fromEntries(
      (await pool.query("SELECT id, sync_time FROM risk_unit WHERE sync_status = 'failed' ORDER BY id")).rows.map((row) => [
        row.id,
        row.sync_time.getTime(),
      ]),
    )
  // The park still away: a retried record is pushed again and fails again, one not asked for is left.
  // Their failure times moved an hour back first: sync_time is kept to the second, and a failure
  // again within the same second would not move it.
  await pool.query("UPDATE risk_unit SET sync_time = sync_time - interval '1 hour' WHERE sync_status = 'failed'")
  const before = await failedAt()
  const retried = await enterprise.call('/system/sync/retry', { resource: 'riskUnit', ids: ['RU-F1'] }, { token })
  t.same(retried.body.data, { requeued: 1 })
  const after = await eventually(
    async () => {
      const now = await failedAt()
      return now['RU-F1'] > before['RU-F1'] && now
    },
    { what: 'RU-F1 pushed again, and failed again' },
  )
  t.equal(after['RU-F2'], before['RU-F2'], 'RU-F2 was not asked for')

  // The park back: every failed record, asked for at once, reaches it.
  await park.start()
  t.same((await enterprise.call('/system/sync/retry', {}, { token })).body.data, { requeued: 3 }, 'all failed records and facts')
  await eventually(async () => (await unitCounts()).synced === 2, { what: 'both synced' })
  await eventually(async () => (await status()).oldestPendingSeconds === null, { what: 'nothing pending' })
  const zone = await zoneCounts()
  t.same([zone.synced, zone.failed], [1, 0], 'the zone reached the park too')
})

t.end()
