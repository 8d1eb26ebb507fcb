// The `ingest` group: monitoring readings sent over HTTP (hazard/monitorData/add-batch, calls of
// BENCH_INGEST_BATCH readings, judged into alarms in the same transaction) to an enterprise edition
// that pushes to a park edition (both on this machine), by BENCH_INGEST_CONCURRENCY gateways at
// once, each with its own connection and its share of BENCH_INGEST_POINTS points, every point once
// a second; against a bare multi-row insert of the same rows (unnest arrays, one statement a call,
// no evaluation) into the same partitioned table of a fresh database, from as many connections.
// Rounds alternate the two loads and the median of the rounds' ratios is judged. Also: the CPU each
// process spends per 1 000 readings (steadier than rates on a shared machine), and the bytes a
// reading takes on disk.
import pg from 'pg'
import { ensureEnterpriseAccount } from '../dev/park-account.ts'
import { rememberingLast } from '../../src/contract/remember-last.ts'
import { READING_EPOCH } from '../../src/store/reading-store.ts'
import { fail, halted, median, note } from './common.ts'
import { type Databases, withPool } from './database.ts'
import { login, ok } from './http.ts'
import { backendCpuSeconds, COMPANY_CODE, cpuSeconds, EDITION_PASSWORD, type Proc, startEdition, stop } from './processes.ts'
import { addRow } from './report.ts'
import { settings } from './settings.ts'

const BATCH = Math.round(Number(process.env.BENCH_INGEST_BATCH ?? 1000))
const gateways = Math.round(Number(process.env.BENCH_INGEST_CONCURRENCY ?? 4))
const points = Math.round(Number(process.env.BENCH_INGEST_POINTS ?? 4000))
/** Each gateway sends the readings of its own points. */
const pointsPerGateway = Math.floor(points / gateways)
/** The readings start this long ago, one second apart per point: far more than a run sends. */
const SPAN_SECONDS = 12 * 3600
const parkAccount = {
  userName: 'bench-ingest-enterprise',
  password: `bench-${Math.random().toString(36).slice(2)}-push`,
  companyCode: COMPANY_CODE,
}

interface Reading {
  point: number
  second: number
  value: string
}

/** The values the readings take, written once: the load generator shares the service's cores. */
const VALUES = Array.from({ length: 300 }, (_, k) => (20 + k / 10).toFixed(1))

/** Call `n` of gateway `g`: its points' readings of consecutive seconds, every point once a second. */
function batch(g: number, n: number, start: number): Reading[] {
  return Array.from({ length: BATCH }, (_, j) => {
    const i = n * BATCH + j
    const point = g * pointsPerGateway + (i % pointsPerGateway)
    return { point, second: start + Math.floor(i / pointsPerGateway), value: VALUES[(i * 7 + point) % 300] }
  })
}

/**
 * A load run again and again, one connection per gateway, each run going on from the calls the
 * previous ones sent: readings a second.
 */
interface Load {
  run(seconds: number): Promise<{ rate: number; readings: number }>
  /** CPU seconds spent so far by the processes of the load, by process (the database's backends when it is local). */
  cpu(): Record<string, number>
  close(): Promise<void>
}

function continuing(send: (readings: Reading[]) => Promise<void>, start: number): Load['run'] {
  const next = Array.from({ length: gateways }, () => 0)
  return async (seconds) => {
    const until = Date.now() + seconds * 1000
    const started = Date.now()
    let done = 0
    const gateway = async (g: number) => {
      while (Date.now() < until && !halted()) {
        await send(batch(g, next[g]++, start))
        done++
      }
    }
    await Promise.all(next.map((_, g) => gateway(g)))
    return { rate: (done * BATCH) / ((Date.now() - started) / 1000), readings: done * BATCH }
  }
}

async function overHttp(databases: Databases, start: number): Promise<Load & { waitingPoints(): Promise<number> }> {
  const procs: Proc[] = []
  try {
    const park = await startEdition('ingest-park', 'park', await databases.create('ingest_park'), { raisedLimits: false })
    procs.push(park)
    await ensureEnterpriseAccount(park.url, EDITION_PASSWORD, parkAccount)
    const url = await databases.create('ingest_http')
    const edition = await startEdition('ingest', 'enterprise', url, {
      raisedLimits: true,
      extra: { PARK_URL: park.url, PARK_USER: parkAccount.userName, PARK_PASSWORD: parkAccount.password },
    })
    procs.push(edition)
    const token = await login(edition.url, 'admin', EDITION_PASSWORD)
    for (let from = 0; from < points; from += 500) {
      const list = Array.from({ length: Math.min(500, points - from) }, (_, i) => equipmentRecord(from + i))
      await ok(`${edition.url}/hazard/monitorEquip/add-batch`, { list }, token, 'adding the points')
    }
    return {
      run: continuing(async (readings) => {
        // Readings of one second follow each other: their instant is written once.
        const instant = rememberingLast((second: number) => new Date(second * 1000).toISOString())
        const list = readings.map((reading) => ({
          monitorEquipId: `BP-${reading.point}`,
          time: instant(reading.second),
          value: reading.value,
        }))
        const data = await ok(`${edition.url}/hazard/monitorData/add-batch`, { list }, token, 'sending readings')
        if (data.accepted !== BATCH) fail(`ingest: ${data.accepted} of ${BATCH} readings accepted: ${JSON.stringify(data.failed[0])}`)
      }, start),
      cpu: () => ({ service: cpuSeconds(edition) ?? NaN, park: cpuSeconds(park) ?? NaN, database: backendCpuSeconds(url) }),
      waitingPoints: () =>
        withPool(
          url,
          async (pool) =>
            (await pool.query(`SELECT count(*)::int AS n FROM monitor_point WHERE "pushFrom" IS NOT NULL OR "pushTaken" IS NOT NULL`))
              .rows[0].n as number,
        ),
      close: async () => {
        for (const proc of procs.reverse()) await stop(proc)
      },
    }
  } catch (error) {
    for (const proc of procs.reverse()) await stop(proc)
    throw error
  }
}

async function bareInsert(databases: Databases, start: number): Promise<Load & { bytesPerReading(): Promise<number> }> {
  const url = await databases.create('ingest_bare', 'enterprise')
  const pool = new pg.Pool({ connectionString: url, max: gateways })
  pool.on('error', () => {})
  await pool.query(`INSERT INTO monitor_point ("monitorEquipId", state) SELECT 'BP-' || g, '{}' FROM generate_series(0, $1 - 1) g`, [
    points,
  ])
  const first = Math.floor((start - READING_EPOCH) / 86_400)
  const last = Math.floor((Date.now() / 1000 - READING_EPOCH) / 86_400) + 1
  for (let d = first; d <= last; d++) {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS monitor_reading_bench_${d} PARTITION OF monitor_reading FOR VALUES FROM (${d * 86_400}) TO (${(d + 1) * 86_400})`,
    )
  }
  return {
    run: continuing(async (readings) => {
      await pool.query(
        `INSERT INTO monitor_reading (time, point, fault, value) SELECT * FROM unnest($1::int[], $2::int[], $3::bool[], $4::numeric[]) ON CONFLICT DO NOTHING`,
        [
          readings.map((reading) => reading.second - READING_EPOCH),
          readings.map((reading) => reading.point + 1),
          readings.map(() => false),
          readings.map((reading) => reading.value),
        ],
      )
    }, start),
    cpu: () => ({ database: backendCpuSeconds(url) }),
    bytesPerReading: async () => {
      const [{ bytes, count }] = (
        await pool.query(
          `SELECT (SELECT sum(pg_total_relation_size(i.inhrelid)) FROM pg_inherits i WHERE i.inhparent = 'monitor_reading'::regclass)::float8 AS bytes, ` +
            `(SELECT count(*) FROM monitor_reading)::float8 AS count`,
        )
      ).rows
      return bytes / count
    },
    close: () => pool.end(),
  }
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
  note(
    `ingest: ${gateways} gateways of ${pointsPerGateway} points each, calls of ${BATCH} readings, ${settings.rounds} round(s) of ${settings.seconds} s, ` +
      `the enterprise pushing to a park`,
  )
  const start = Math.floor(Date.now() / 1000) - SPAN_SECONDS
  const bare = await bareInsert(databases, start)
  let http: Awaited<ReturnType<typeof overHttp>> | undefined
  try {
    http = await overHttp(databases, start)
    if (settings.warmupSeconds > 0) {
      note(`ingest: warming up (${settings.warmupSeconds} s each)`)
      await bare.run(settings.warmupSeconds)
      await http.run(settings.warmupSeconds)
    }
    const bareRates: number[] = []
    const httpRates: number[] = []
    /** CPU milliseconds per 1 000 readings, by load and process, over every round. */
    const cpu: Record<string, { ms: number; readings: number }> = {}
    const measured = async (name: string, load: Load) => {
      const before = load.cpu()
      const { rate, readings } = await load.run(settings.seconds)
      for (const [process, seconds] of Object.entries(load.cpu())) {
        const key = `${name} ${process}`
        cpu[key] ??= { ms: 0, readings: 0 }
        cpu[key].ms += (seconds - before[process]) * 1000
        cpu[key].readings += readings
      }
      return rate
    }
    for (let round = 1; round <= settings.rounds && !halted(); round++) {
      bareRates.push(await measured('bare', bare))
      httpRates.push(await measured('add-batch', http))
      note(`ingest round ${round}: bare ${Math.round(bareRates.at(-1)!)}, add-batch ${Math.round(httpRates.at(-1)!)} readings/s`)
    }
    const cpuPerThousand = Object.entries(cpu)
      .map(([key, { ms, readings }]) => `${key} ${((ms / readings) * 1000).toFixed(1)}`)
      .join(', ')
    note(`ingest: CPU ms per 1 000 readings: ${cpuPerThousand}`)
    const ratios = httpRates.map((rate, i) => rate / bareRates[i])
    const waiting = await http.waitingPoints()
    const rounds = (rates: number[]) => rates.map((rate) => Math.round(rate).toLocaleString('en-US')).join(', ')
    addRow({
      group: 'ingest',
      what: `baseline: bare multi-row insert (unnest) of the same readings, ${BATCH} a statement, no evaluation`,
      value: Math.round(median(bareRates)),
      unit: 'readings/s',
      detail: `rounds: ${rounds(bareRates)}`,
    })
    addRow({
      group: 'ingest',
      what: `hazard/monitorData/add-batch over HTTP, ${BATCH} a call, judged, the park configured`,
      value: Math.round(median(httpRates)),
      unit: 'readings/s',
      target: { op: '>=', limit: 0.5, relative: true, of: 'the bare insert' },
      ratio: median(ratios),
      detail:
        `rounds: ${rounds(httpRates)}; ratios ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; ` +
        `${waiting} points with minutes waiting for the park at the end; CPU ms per 1 000 readings: ${cpuPerThousand}`,
    })
    addRow({
      group: 'ingest',
      what: 'hazard/monitorData/add-batch, absolute',
      value: Math.round(median(httpRates)),
      unit: 'readings/s',
      target: { op: '>=', limit: 50_000, relative: false },
    })
    addRow({
      group: 'ingest',
      what: 'a reading on disk, with its primary key',
      value: Math.round((await bare.bytesPerReading()) * 10) / 10,
      unit: 'bytes',
      target: { op: '<=', limit: 100, relative: false },
    })
  } finally {
    await http?.close()
    await bare.close()
  }
}
