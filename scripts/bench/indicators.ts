// Row groups `indicators` and `park-indicators`: the supervision indicators over a year, on periods
// and alarms filled by SQL (the per-day tally kept by the periods' own triggers, as in service).
// `indicators`: one enterprise with BENCH_INDICATOR_RECORDS periods of hourly tasks over the past
// year (and one alarm per hundred periods), `/system/indicators` for the year and one task's periods
// for the year. `park-indicators`: BENCH_PARK_INDICATOR_RECORDS periods of 100 enterprises on a park,
// `/system/indicators` of every enterprise for the year. Each answer is checked against the counts
// filled, so a fast wrong figure is a failure.
import { halted, note } from './common.ts'
import { type Databases, query } from './database.ts'
import { chunked, settle } from './fill.ts'
import { login } from './http.ts'
import { COMPANY_CODE, EDITION_PASSWORD, type Proc, startEdition, stop } from './processes.ts'
import { timeRead } from './reads.ts'
import { settings, wants } from './settings.ts'

const HOURS_A_YEAR = 8760
const ENTERPRISES = 100
const KINDS = `ARRAY['high', 'low', 'outOfRange', 'fault', 'offline', 'frozen']`

/** One enterprise's share of the records, or 100 enterprises' (record i of enterprise 320115000 + i % 100). */
interface Spread {
  records: number
  enterprises: number
}

const tasksOf = ({ records, enterprises }: Spread) => Math.max(1, Math.ceil(records / enterprises / HOURS_A_YEAR))
const companyOf = ({ enterprises }: Spread) => (enterprises === 1 ? `'${COMPANY_CODE}'` : `(320115000 + i % ${enterprises})::text`)

/**
 * Hourly periods back from two hours ago, every one ended: record i is period k of task t of its
 * enterprise; nine in ten done (one in twenty of those late), the rest missed.
 */
function periodsSql(spread: Spread, from: number, to: number): string {
  const tasks = tasksOf(spread)
  const n = `(i / ${spread.enterprises})`
  return (
    `INSERT INTO inspection_period ("companyCode", id, "taskId", start, "end", "workType", "recordId", "doneLate", sync_status) ` +
    `SELECT ${companyOf(spread)}, 'T-' || t || '@' || k, 'T-' || t, s, s + interval '1 hour', (t % 4)::text, ` +
    `CASE WHEN i % 10 <> 0 THEN 'R-' || i END, i % 20 = 1, 'synced' ` +
    `FROM generate_series(${from}, ${to}) AS i, LATERAL (SELECT ${n} % ${tasks} AS t, ${n} / ${tasks} AS k) x, ` +
    `LATERAL (SELECT date_trunc('hour', now()) - interval '2 hours' - k * interval '1 hour' AS s) y`
  )
}

/** Cleared alarms spread over the past year: a third raised only, a third acknowledged, a third disposed. */
function alarmsSql(spread: Spread, from: number, to: number, count: number): string {
  const start = `now() - i * (interval '364 days' / ${count})`
  return (
    `INSERT INTO monitor_alarm (id, "monitorEquipId", "monitorCode", "monitorName", kind, level, "maxLevel", "startTime", status, ` +
    `handling, "acknowledgedTime", disposal, "companyCode", "createTime", "updateTime", "createBy", "updateBy", sync_status) ` +
    `SELECT 'A-' || i, 'ME-' || i % 500, 'PT-' || i % 500, '监测点' || i % 500, (${KINDS})[1 + i % 6], lv, lv, ${start}, 'cleared', ` +
    `(ARRAY['raised', 'acknowledged', 'disposed'])[1 + i % 3], CASE WHEN i % 3 = 1 THEN ${start} + (i % 600) * interval '1 second' END, ` +
    `CASE WHEN i % 3 = 2 THEN jsonb_build_object('cause', '1', 'measures', '复位', 'disposedBy', 'admin', ` +
    `'disposedTime', (${start} + (i % 3600) * interval '1 second')::text, 'troubleshootInfoId', NULL) END, ` +
    `${companyOf(spread)}, ${start}, ${start}, 'system', 'system', 'synced' ` +
    `FROM generate_series(${from}, ${to}) AS i, LATERAL (SELECT CASE WHEN i % 6 < 2 THEN 1 + i / 6 % 2 END AS lv) l`
  )
}

async function fill(url: string, spread: Spread): Promise<number> {
  note(`${spread.records.toLocaleString('en-US')} periods and alarms of ${spread.enterprises} enterprise(s)`)
  await chunked(url, 'periods', spread.records, (from, to) => periodsSql(spread, from, to))
  const alarms = Math.max(1, Math.floor(spread.records / 100))
  await chunked(url, 'alarms', alarms, (from, to) => alarmsSql(spread, from, to, alarms))
  await settle(url, ['inspection_period', 'inspection_period_day', 'monitor_alarm'])
  return alarms
}

/** The window of the reads: a year back to today (dates, +08:00). */
function yearWindow(): { from: string; to: string } {
  const date = (ms: number) => new Date(ms + 8 * 3_600_000).toISOString().slice(0, 10)
  return { from: date(Date.now() - 366 * 86_400_000), to: date(Date.now()) }
}

const sum = (list: { count: number }[]) => list.reduce((total, item) => total + item.count, 0)

async function enterpriseIndicators(databases: Databases, procs: Proc[]): Promise<void> {
  const spread = { records: settings.indicatorRecords, enterprises: 1 }
  const url = await databases.create('indicators', 'enterprise')
  const alarms = await fill(url, spread)
  const proc = await startEdition('indicators-enterprise', 'enterprise', url, { raisedLimits: true })
  procs.push(proc)
  const token = await login(proc.url, 'admin', EDITION_PASSWORD)
  const window = yearWindow()
  const records = spread.records.toLocaleString('en-US')
  await timeRead('indicators', proc.url, token, {
    what: `/system/indicators of a year (${records} periods, ${alarms.toLocaleString('en-US')} alarms)`,
    path: '/system/indicators',
    body: window,
    target: 100,
    check: (data: any) => {
      const [entry] = data?.list ?? []
      const due = entry?.inspections?.due
      const raised = entry && sum(entry.alarms.raised)
      return due === spread.records && raised === alarms ? undefined : `due ${due}, raised ${raised}: expected ${spread.records}, ${alarms}`
    },
  })
  const tasks = tasksOf(spread)
  const ofTask = tasks === 1 ? spread.records : Math.floor((spread.records - 1) / tasks) + 1
  await timeRead('indicators', proc.url, token, {
    what: `prevent/troubleshootTask/periods of one task for a year (${ofTask.toLocaleString('en-US')} periods, page 1 and total)`,
    path: '/prevent/troubleshootTask/periods',
    body: { ...window, taskId: 'T-1' },
    target: 20,
    check: (data: any) => (data?.total === ofTask && data.list.length === 20 ? undefined : `total ${data?.total}, expected ${ofTask}`),
  })
}

async function parkIndicators(databases: Databases, procs: Proc[]): Promise<void> {
  const spread = { records: settings.parkIndicatorRecords, enterprises: ENTERPRISES }
  const url = await databases.create('park_indicators', 'park')
  await fill(url, spread)
  const park = await startEdition('indicators-park', 'park', url, { raisedLimits: true })
  procs.push(park)
  await query(url, `INSERT INTO park_enterprise SELECT (320115000 + n)::text, now() FROM generate_series(0, ${ENTERPRISES - 1}) AS n`)
  const token = await login(park.url, 'admin', EDITION_PASSWORD)
  await timeRead('park-indicators', park.url, token, {
    what: `/system/indicators of a year, ${ENTERPRISES} enterprises (${spread.records.toLocaleString('en-US')} periods)`,
    path: '/system/indicators',
    body: yearWindow(),
    target: 500,
    check: (data: any) => {
      const due = (data?.list ?? []).reduce((total: number, entry: any) => total + entry.inspections.due, 0)
      return data?.list?.length === ENTERPRISES && due === spread.records
        ? undefined
        : `${data?.list?.length} enterprises, due ${due}: expected ${ENTERPRISES}, ${spread.records}`
    },
  })
}

export async function indicatorGroups(databases: Databases): Promise<void> {
  const procs: Proc[] = []
  try {
    if (wants('indicators')) await enterpriseIndicators(databases, procs)
    for (const proc of procs.splice(0).reverse()) await stop(proc)
    if (wants('park-indicators') && !halted()) await parkIndicators(databases, procs)
  } finally {
    for (const proc of procs.reverse()) await stop(proc)
  }
}
