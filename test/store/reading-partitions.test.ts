// Readings live in daily partitions: made ahead at start, made on demand for the days a batch
// covers, and dropped whole once every reading of the day is past READINGS_RETENTION_DAYS.
import t from 'tap'
import { READING_EPOCH, ReadingStore, readingSecond } from '../../src/store/reading-store.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t, { env: { READINGS_RETENTION_DAYS: '30' } })
const { pool } = service.database
const partitions = async () =>
  (
    await pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'monitor_reading'::regclass ORDER BY 1`,
    )
  ).rows.map((row) => row.name)
const dayName = (ms: number) => `monitor_reading_${new Date(ms).toISOString().slice(0, 10).replaceAll('-', '')}`

t.test('the service makes the partitions from yesterday to two days ahead at start', async (t) => {
  const now = Date.now()
  const names = await partitions()
  for (const days of [-1, 0, 1, 2]) t.ok(names.includes(dayName(now + days * 86_400_000)), `day ${days}`)
})

t.test('a partition is made for an older day on demand; days past the retention are dropped whole', async (t) => {
  const store = new ReadingStore({ pool })
  const old = Date.now() - 40 * 86_400_000
  await store.ensurePartitions([readingSecond(old)])
  t.ok((await partitions()).includes(dayName(old)))
  const dropped = await store.dropBefore(readingSecond(Date.now() - 30 * 86_400_000))
  t.same(dropped, [dayName(old)])
  t.notOk((await partitions()).includes(dayName(old)))
  t.ok((await partitions()).includes(dayName(Date.now())), 'the days within the retention stay')
  t.equal(readingSecond((READING_EPOCH + 5) * 1000), 5)
})

t.test('a row of a reading stays compact: well under 100 bytes with its index', async (t) => {
  const [{ point }] = (await pool.query(`INSERT INTO monitor_point ("monitorEquipId", state) VALUES ('size-probe', '{}') RETURNING point`))
    .rows
  const start = readingSecond(Date.now()) - 20_000
  await pool.query(
    `INSERT INTO monitor_reading (time, point, fault, value) SELECT $1 + g, $2, false, (1000 + g % 997)::numeric / 100 FROM generate_series(0, 19999) g`,
    [start, point],
  )
  await pool.query('VACUUM ANALYZE monitor_reading')
  const { rows } = await pool.query(
    `SELECT sum(pg_total_relation_size(c.oid))::float8 AS bytes FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'monitor_reading'::regclass`,
  )
  const perReading = rows[0].bytes / 20_000
  t.ok(perReading < 100, `${perReading.toFixed(1)} bytes a reading`)
})
t.end()
