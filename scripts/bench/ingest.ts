// The `ingest` group: monitoring readings sent over HTTP (hazard/monitorData/add-batch, 5 000 a
// call, judged into alarms in the same transaction) against a bare multi-row insert of the same
// rows (unnest arrays, one statement a batch, no evaluation) into the same partitioned table, each
// on a fresh database, BENCH_INGEST_POINTS points, for BENCH_SECONDS, BENCH_INGEST_CONCURRENCY
// batches at a time. Also: the bytes a reading takes on disk with its primary key.
import pg from 'pg'
import { READING_EPOCH } from '../../src/store/reading-store.ts'
import { fail, halted, note } from './common.ts'
import { type Databases, withPool } from './database.ts'
import { login, ok } from './http.ts'
import { EDITION_PASSWORD, startEdition, stop } from './processes.ts'
import { addRow } from './report.ts'
import { settings } from './settings.ts'

const BATCH = 5000
const points = Math.round(Number(process.env.BENCH_INGEST_POINTS ?? 1000))
const concurrency = Math.round(Number(process.env.BENCH_INGEST_CONCURRENCY ?? 4))

/** Batch `n` of the run: every point's readings of consecutive seconds, starting an hour ago. */
function batch(n: number, start: number): { monitorEquipId: string; time: string; value: string }[] {
  const perPoint = BATCH / points
  return Array.from({ length: BATCH }, (_, i) => {
    const point = i % points
    const second = start + n * perPoint + Math.floor(i / points)
    return { monitorEquipId: `BP-${point}`, time: new Date(second * 1000).toISOString(), value: (20 + ((i * 7) % 300) / 10).toFixed(1) }
  })
}

/** Runs `send(n)` for batches 0, 1, ... with `concurrency` in flight until the time is up: readings a second. */
async function rate(seconds: number, send: (n: number) => Promise<void>): Promise<number> {
  const until = Date.now() + seconds * 1000
  const started = Date.now()
  let next = 0
  let done = 0
  const worker = async () => {
    while (Date.now() < until && !halted()) {
      await send(next++)
      done++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return (done * BATCH) / ((Date.now() - started) / 1000)
}

const startSecond = () => Math.floor(Date.now() / 1000) - 3600

async function overHttp(databases: Databases): Promise<number> {
  const url = await databases.create('ingest_http')
  const edition = await startEdition('ingest', 'enterprise', url, { raisedLimits: true })
  try {
    const token = await login(edition.url, 'admin', EDITION_PASSWORD)
    for (let from = 0; from < points; from += 500) {
      const list = Array.from({ length: Math.min(500, points - from) }, (_, i) => equipmentRecord(from + i))
      await ok(`${edition.url}/hazard/monitorEquip/add-batch`, { list }, token, 'adding the points')
    }
    const start = startSecond()
    return await rate(settings.seconds, async (n) => {
      const data = await ok(`${edition.url}/hazard/monitorData/add-batch`, { list: batch(n, start) }, token, 'sending readings')
      if (data.accepted !== BATCH) fail(`ingest: ${data.accepted} of ${BATCH} readings accepted: ${JSON.stringify(data.failed[0])}`)
    })
  } finally {
    await stop(edition)
  }
}

async function bareInsert(databases: Databases): Promise<{ rate: number; bytesPerReading: number }> {
  const url = await databases.create('ingest_bare', 'enterprise')
  return withPool(url, async (pool: pg.Pool) => {
    await pool.query(`INSERT INTO monitor_point ("monitorEquipId", state) SELECT 'BP-' || g, '{}' FROM generate_series(0, $1 - 1) g`, [
      points,
    ])
    const start = startSecond()
    const day = Math.floor((start - READING_EPOCH) / 86_400)
    for (const d of [day, day + 1]) {
      await pool.query(
        `CREATE TABLE IF NOT EXISTS monitor_reading_bench_${d} PARTITION OF monitor_reading FOR VALUES FROM (${d * 86_400}) TO (${(d + 1) * 86_400})`,
      )
    }
    const readings = await rate(settings.seconds, async (n) => {
      const rows = batch(n, start)
      await pool.query(
        `INSERT INTO monitor_reading (time, point, fault, value) SELECT * FROM unnest($1::int[], $2::int[], $3::bool[], $4::numeric[]) ON CONFLICT DO NOTHING`,
        [
          rows.map((row) => Date.parse(row.time) / 1000 - READING_EPOCH),
          rows.map((row) => Number(row.monitorEquipId.slice(3)) + 1),
          rows.map(() => false),
          rows.map((row) => row.value),
        ],
      )
    })
    const [{ bytes, count }] = (
      await pool.query(
        `SELECT (SELECT sum(pg_total_relation_size(i.inhrelid)) FROM pg_inherits i WHERE i.inhparent = 'monitor_reading'::regclass)::float8 AS bytes, ` +
          `(SELECT count(*) FROM monitor_reading)::float8 AS count`,
      )
    ).rows
    return { rate: readings, bytesPerReading: bytes / count }
  })
}

function equipmentRecord(i: number): Record<string, unknown> {
  return {
    id: `BP-${i}`,
    monitorName: `bench point ${i}`,
    monitorCode: `BPC-${i}`,
    monitorType: '温度',
    numericalUnit: '℃',
    rangeMax: '100',
    rangeMin: '0',
    responsibilityPeopleName: 'bench',
    deptName: 'bench',
    longitude: 118.8,
    latitude: 32.06,
    address: 'bench',
    manufacturer: 'bench',
    checkTime: '2026-11-21T13:02:35+08:00',
    checkCycle: '12个月',
    oneLevelHigh: '60',
    twoLevelHigh: '65',
    oneLevelLow: '10',
    twoLevelLow: '5',
    monitorSpotType: '储罐',
    state: '在用',
    equipmentType: '温度变送器',
    equipmentName: 'bench',
  }
}

export async function ingestGroup(databases: Databases): Promise<void> {
  note(`ingest: ${points} points, batches of ${BATCH}, ${concurrency} at a time, ${settings.seconds} s each`)
  const bare = await bareInsert(databases)
  const http = await overHttp(databases)
  addRow({
    group: 'ingest',
    what: 'baseline: bare multi-row insert (unnest) of the same readings, no evaluation',
    value: Math.round(bare.rate),
    unit: 'readings/s',
  })
  addRow({
    group: 'ingest',
    what: 'hazard/monitorData/add-batch over HTTP, judged into alarms',
    value: Math.round(http),
    unit: 'readings/s',
    target: { op: '>=', limit: 0.25, relative: true },
    ratio: http / bare.rate,
    detail: `${(http / bare.rate).toFixed(2)} × the bare insert`,
  })
  addRow({
    group: 'ingest',
    what: 'a reading on disk, with its primary key',
    value: Math.round(bare.bytesPerReading * 10) / 10,
    unit: 'bytes',
    target: { op: '<=', limit: 100, relative: false },
  })
}
