// Row group `readings`: the reads of readings on an enterprise holding BENCH_READINGS readings of
// 10 000 points over the last 30 days, filled by SQL (generate_series) into the service's
// partitioned table in the order the ingest writes them (by time, every point at each instant),
// then VACUUM ANALYZE; one point in ten has an active alarm. Over HTTP, the median of
// BENCH_READ_CALLS calls: the live board of 1 000 points (`latest`, its two pages of 500), one
// point's hourly aggregates over 30 days, one point's `list` page. Also the bytes a reading takes
// on disk, indexes included.
import { fail, halted, median, note } from './common.ts'
import { type Databases, query, withPool } from './database.ts'
import { fillMonitorEquip, settle } from './fill.ts'
import { call, login } from './http.ts'
import { COMPANY_CODE, EDITION_PASSWORD, type Proc, startEdition, stop } from './processes.ts'
import { timeRead } from './reads.ts'
import { addRow } from './report.ts'
import { settings } from './settings.ts'
import { READING_EPOCH, ReadingStore } from '../../src/store/reading-store.ts'

const POINTS = 10_000
const DAYS = 30
const DAY = 86_400
const BOARD = 1000

/** The reading value of reading k of point p, as numeric (two decimals, in normal range). */
const VALUE = (k: string, p: string) => `round((50 + (${k} * 7 + ${p} * 13) % 100) / 100.0, 2)`

interface Span {
  /** Readings a point. */
  perPoint: number
  /** Seconds between two readings of a point. */
  step: number
  /** The reading second of reading k = 0. */
  first: number
}

/** Readings of every point, `step` seconds apart, the last a minute ago. */
function span(readings: number, now: number): Span {
  const perPoint = Math.max(1, Math.floor(readings / POINTS))
  const step = Math.max(1, Math.floor((DAYS * DAY) / perPoint))
  const last = Math.floor(now / 1000) - READING_EPOCH - 60
  return { perPoint, step, first: last - (perPoint - 1) * step }
}

async function fill(url: string, s: Span): Promise<void> {
  await fillMonitorEquip(url, { count: POINTS, status: 'synced', companyCode: COMPANY_CODE })
  const last = s.first + (s.perPoint - 1) * s.step
  await query(
    url,
    `INSERT INTO monitor_point (point, "monitorEquipId", state, "newestTime", "newestValue", "newestQuality") OVERRIDING SYSTEM VALUE ` +
      `SELECT p, 'ME-' || p, '{}', ${last}, ${VALUE(String(s.perPoint - 1), 'p')}::text, 0 FROM generate_series(1, ${POINTS}) p`,
  )
  await query(url, `SELECT setval(pg_get_serial_sequence('monitor_point', 'point'), ${POINTS})`)
  const days = Array.from(
    { length: Math.floor(last / DAY) - Math.floor(s.first / DAY) + 1 },
    (_, d) => (Math.floor(s.first / DAY) + d) * DAY,
  )
  await withPool(url, (pool) => new ReadingStore({ pool }).ensurePartitions(days))
  // Whole instants (every point's reading at each) a statement, in time order.
  const instants = Math.max(1, Math.floor(500_000 / POINTS))
  const started = performance.now()
  for (let k0 = 0; k0 < s.perPoint && !halted(); k0 += instants) {
    const k1 = Math.min(s.perPoint, k0 + instants) - 1
    await query(
      url,
      `INSERT INTO monitor_reading (time, point, fault, value) SELECT ${s.first} + k * ${s.step}, p, false, ${VALUE('k', 'p')} ` +
        `FROM generate_series(${k0}, ${k1}) k, generate_series(1, ${POINTS}) p ORDER BY k, p`,
    )
    const done = (k1 + 1) * POINTS
    if (Math.floor(done / 10_000_000) > Math.floor((k0 * POINTS) / 10_000_000)) {
      note(
        `readings: ${done.toLocaleString('en-US')} / ${(s.perPoint * POINTS).toLocaleString('en-US')} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
      )
    }
  }
  // One point in ten with an active high alarm.
  await query(
    url,
    `INSERT INTO monitor_alarm (id, "monitorEquipId", "monitorCode", "monitorName", kind, level, "maxLevel", threshold, "startTime", ` +
      `"startValue", "peakValue", status, "companyCode", "createTime", "updateTime", "createBy", "updateBy", sync_status) ` +
      `SELECT 'AL-' || e.n, e.id, e."monitorCode", e."monitorName", 'high', 1, 1, '1.6', now() - interval '1 hour', '1.7', '1.8', 'active', ` +
      `'${COMPANY_CODE}', now(), now(), 'system', 'system', 'synced' ` +
      `FROM (SELECT id, "monitorCode", "monitorName", substr(id, 4)::int AS n FROM monitor_equip) e WHERE e.n % 10 = 0`,
  )
  await settle(url, ['monitor_reading', 'monitor_point', 'monitor_equip', 'monitor_alarm'])
}

/** Both pages of 500 of the live board of `BOARD` points, `settings.readCalls` times: the median of their sum. */
async function timeBoard(baseUrl: string, token: string, ids: string[]): Promise<void> {
  const page = async (pageNum: number) => {
    const reply = await call(`${baseUrl}/hazard/monitorData/latest`, 'POST', { monitorEquipIds: ids, pageNum, pageSize: 500 }, token)
    const data = reply.body?.data
    if (reply.status !== 200 || reply.body.code !== 0 || data.list.length !== 500 || data.total !== BOARD) {
      fail(`readings: latest page ${pageNum}: HTTP ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`)
    }
    if (pageNum === 1 && !data.list.some((entry: any) => entry.alarms.length === 1)) fail('readings: latest answered no active alarm')
  }
  await page(1)
  const times: number[] = []
  for (let i = 0; i < settings.readCalls && !halted(); i++) {
    const started = performance.now()
    await page(1)
    await page(2)
    times.push(performance.now() - started)
  }
  if (halted()) return
  addRow({
    group: 'readings',
    what: `latest naming ${BOARD.toLocaleString('en-US')} points (its two pages of 500)`,
    value: median(times),
    unit: 'ms',
    target: { op: '<=', limit: 20, relative: false },
    detail: `median of ${times.length}; min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)} ms`,
  })
}

async function bytesPerReading(url: string, readings: number): Promise<void> {
  const [{ bytes, count }] = await query<{ bytes: number; count: number }>(
    url,
    `SELECT (SELECT sum(pg_total_relation_size(i.inhrelid)) FROM pg_inherits i WHERE i.inhparent = 'monitor_reading'::regclass)::float8 AS bytes, ` +
      `(SELECT count(*) FROM monitor_reading)::float8 AS count`,
  )
  if (count !== readings) fail(`readings: ${count} readings stored, ${readings} filled`)
  addRow({
    group: 'readings',
    what: 'a reading on disk, indexes included (the partitions over their rows)',
    value: Math.round((bytes / count) * 10) / 10,
    unit: 'bytes',
    target: { op: '<=', limit: 100, relative: false },
    detail: `${(bytes / 1024 ** 3).toFixed(2)} GB for ${count.toLocaleString('en-US')} readings`,
  })
}

export async function readingsGroup(databases: Databases): Promise<void> {
  const now = Date.now()
  const s = span(settings.readings, now)
  const readings = s.perPoint * POINTS
  const url = await databases.create('readings', 'enterprise')
  note(`readings: filling ${readings.toLocaleString('en-US')} readings of ${POINTS} points, one every ${s.step} s each`)
  const started = performance.now()
  await fill(url, s)
  note(`readings: filled and analysed in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  let edition: Proc | undefined
  try {
    edition = await startEdition('readings', 'enterprise', url, { raisedLimits: true })
    const token = await login(edition.url, 'admin', EDITION_PASSWORD)
    const board = Array.from({ length: BOARD }, (_, i) => `ME-${POINTS / 2 + i}`)
    await timeBoard(edition.url, token, board)
    const one = `ME-${POINTS / 2}`
    const day = 86_400_000
    const last = (s.first + (s.perPoint - 1) * s.step + READING_EPOCH) * 1000
    const hours = new Set(Array.from({ length: s.perPoint }, (_, k) => Math.floor((s.first + k * s.step) / 3600)))
    await timeRead('readings', edition.url, token, {
      what: `aggregate of one point over 30 days by the hour (${s.perPoint.toLocaleString('en-US')} readings)`,
      path: '/hazard/monitorData/aggregate',
      body: {
        monitorEquipIds: [one],
        from: new Date(last + 1000 - 30 * day).toISOString(),
        to: new Date(last + 1000).toISOString(),
        bucket: '1h',
      },
      target: 50,
      check: (data: any) => {
        const buckets = data?.list?.[0]?.buckets ?? []
        const counted = buckets.reduce((sum: number, bucket: any) => sum + bucket.count, 0)
        return buckets.length === hours.size && counted === s.perPoint
          ? undefined
          : `${buckets.length} buckets of ${counted} readings, expected ${hours.size} of ${s.perPoint}`
      },
    })
    const pageSize = 500
    const from = last - 20 * day
    const inRange = Array.from({ length: s.perPoint }, (_, k) => s.first + k * s.step).filter(
      (second) => (second + READING_EPOCH) * 1000 >= from,
    ).length
    await timeRead('readings', edition.url, token, {
      what: `list: a page of ${pageSize} readings of one point, the last 20 days`,
      path: '/hazard/monitorData/list',
      body: { monitorEquipId: one, from: new Date(from).toISOString(), to: new Date(last + 1000).toISOString(), pageSize },
      target: 20,
      check: (data: any) =>
        data?.list?.length === Math.min(pageSize, inRange)
          ? undefined
          : `${data?.list?.length} readings answered, expected ${Math.min(pageSize, inRange)}`,
    })
    // A yardstick of the machine's speed during the run: the reads group times the same call.
    await timeRead('readings', edition.url, token, {
      what: "/system/sync/status on the same edition (the machine's speed)",
      path: '/system/sync/status',
      body: {},
    })
    await bytesPerReading(url, readings)
  } finally {
    await stop(edition)
  }
}
