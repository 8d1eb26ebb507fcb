// Tables filled by SQL (generate_series), in chunks, with realistic values: what a long-lived
// enterprise or park holds. monitorEquip: unique ids and monitorCodes (PT-<i>), names to search by
// substring ('<unit><n>#<quantity>监测', six units), times spread back from now (one second
// apart, so the default order is that of i descending); riskUnit and riskEvents: a parent and its
// children, to search children by their reference field.
import { note } from './common.ts'
import { query } from './database.ts'

const CHUNK = 100_000

export const UNITS = ['液氨储罐', '甲醇储罐', '反应釜', '精馏塔', '压缩机', '换热器']
const QUANTITIES = ['压力', '温度', '液位', '流量']
const array = (values: string[]) => `ARRAY[${values.map((value) => `'${value}'`).join(', ')}]`

/** The name of the monitorEquip record number i (as the SQL below writes it). */
export const monitorName = (i: number) => `${UNITS[i % 6]}${Math.floor(i / 6)}#${QUANTITIES[i % 4]}监测`

export interface MonitorEquipFill {
  count: number
  /** 'synced' (with 1 record in `failedEvery` failed, when given), or 'pending' (a backlog). */
  status: 'synced' | 'pending'
  failedEvery?: number
  /** Enterprises the records spread over (park), or one companyCode. */
  companyCode: string | { enterprises: number }
}

function monitorEquipSql(fill: MonitorEquipFill, from: number, to: number): string {
  const company = typeof fill.companyCode === 'string' ? `'${fill.companyCode}'` : `(320115000 + i % ${fill.companyCode.enterprises})::text`
  const failed = fill.failedEvery ? `i % ${fill.failedEvery} = 0` : 'false'
  const time = `now() - (${fill.count} - i) * interval '1 second'`
  const status = fill.status === 'pending' ? `'pending'` : `CASE WHEN ${failed} THEN 'failed' ELSE 'synced' END`
  return (
    `INSERT INTO monitor_equip (id, "monitorName", "monitorCode", "monitorType", "numericalUnit", "rangeMax", "rangeMin", ` +
    `"responsibilityPeopleName", "deptName", longitude, latitude, address, manufacturer, "checkTime", "checkCycle", "oneLevelHigh", ` +
    `"twoLevelHigh", "oneLevelLow", "twoLevelLow", "monitorSpotType", state, "equipmentType", "equipmentName", "companyCode", ` +
    `"createTime", "updateTime", "createBy", "updateBy", sync_status, sync_time, sync_error) ` +
    `SELECT 'ME-' || i, (${array(UNITS)})[1 + i % 6] || (i / 6) || '#' || (${array(QUANTITIES)})[1 + i % 4] || '监测', 'PT-' || i, ` +
    `(${array(QUANTITIES)})[1 + i % 4], 'MPa', '2.5', '0', (ARRAY['张伟', '李娜', '王强', '刘洋'])[1 + i % 4], ` +
    `(ARRAY['储运车间', '合成车间', '精馏车间', '公用工程'])[1 + i / 7 % 4], 118.7 + (i % 1000) / 10000.0, 32.0 + (i % 997) / 10000.0, ` +
    `'江苏省南京市江北新区化工园区方水路' || (i % 200) || '号', '重庆川仪自动化股份有限公司', now() - (i % 365) * interval '1 day', '12个月', ` +
    `'1.6', '2.0', '0.2', '0.1', (ARRAY['储罐', '装置', '仓库', '管道'])[1 + i % 4], '在用', '压力变送器', '智能压力变送器 EJA530E', ${company}, ` +
    `${time}, ${time}, 'admin', 'admin', ${status}, ${fill.status === 'pending' ? 'NULL' : time}, ` +
    `CASE WHEN ${failed} THEN 'park unreachable: bench' END ` +
    `FROM generate_series(${from}, ${to}) AS i`
  )
}

export async function chunked(url: string, what: string, count: number, sql: (from: number, to: number) => string): Promise<void> {
  const started = performance.now()
  for (let from = 1; from <= count; from += CHUNK) {
    const to = Math.min(count, from + CHUNK - 1)
    await query(url, sql(from, to))
    if (count > CHUNK)
      note(
        `${what}: ${to.toLocaleString('en-US')} / ${count.toLocaleString('en-US')} rows (${((performance.now() - started) / 1000).toFixed(0)} s)`,
      )
  }
}

export async function fillMonitorEquip(url: string, fill: MonitorEquipFill): Promise<void> {
  await chunked(url, 'monitorEquip', fill.count, (from, to) => monitorEquipSql(fill, from, to))
}

/** riskUnit: `parents` records RU-<n>; riskEvents: `count` records, the i-th a child of RU-<1 + i % parents>. */
export async function fillRiskEvents(url: string, count: number, parents: number): Promise<void> {
  const time = (total: number) => `now() - (${total} - i) * interval '1 second'`
  const server = (total: number) => `'000000000', ${time(total)}, ${time(total)}, 'admin', 'admin', 'synced', ${time(total)}`
  const columns = `"companyCode", "createTime", "updateTime", "createBy", "updateBy", sync_status, sync_time`
  await query(
    url,
    `INSERT INTO risk_unit (id, "riskUnitName", ${columns}) SELECT 'RU-' || i, '风险分析单元' || i, ${server(parents)} FROM generate_series(1, ${parents}) AS i`,
  )
  await chunked(
    url,
    'riskEvents',
    count,
    (from, to) =>
      `INSERT INTO risk_events (id, "riskUnitId", "riskEventName", ${columns}) ` +
      `SELECT 'RE-' || i, 'RU-' || (1 + i % ${parents}), '储罐超压导致泄漏中毒' || i, ${server(count)} FROM generate_series(${from}, ${to}) AS i`,
  )
}

/** What a long-lived database has: statistics, and the visibility map (index-only scans). */
export async function settle(url: string, tables: string[]): Promise<void> {
  for (const table of tables) await query(url, `VACUUM (ANALYZE) ${table}`)
}

/**
 * `count` events of the feed after the last one given, as the sequencer numbers them (their seqs
 * reserved first): monitorEquip records' events over the last 29 days (within the default
 * retention), each record added, updated twice, then deleted. Answers the first seq filled.
 */
export async function fillEvents(url: string, count: number, companyCode: string): Promise<number> {
  const [{ first }] = await query<{ first: number }>(
    url,
    `UPDATE event_counter SET last = last + ${count} RETURNING (last - ${count} + 1)::float8 AS first`,
  )
  const time = `now() - (${count} - i) * ${(29 * 86_400) / count} * interval '1 second'`
  const changes =
    `CASE i % 4 WHEN 0 THEN jsonb_build_object('monitorName', (${array(UNITS)})[1 + i % 6] || (i / 4) || '#压力监测', ` +
    `'monitorCode', 'PT-' || (i / 4), 'monitorType', '压力', 'numericalUnit', 'MPa', 'rangeMax', '2.5', 'rangeMin', '0', ` +
    `'deptName', '储运车间', 'address', '江苏省南京市江北新区化工园区方水路' || (i % 200) || '号', 'state', '在用') ` +
    `WHEN 3 THEN '{}'::jsonb ELSE jsonb_build_object('rangeMax', jsonb_build_array('2.5', '2.' || (i % 10))) END`
  await chunked(
    url,
    'events',
    count,
    (from, to) =>
      `INSERT INTO event (seq, id, type, time, "companyCode", data) ` +
      `SELECT ${first - 1} + i, gen_random_uuid(), (ARRAY['record.added', 'record.updated', 'record.updated', 'record.deleted'])[1 + i % 4], ` +
      `${time}, '${companyCode}', jsonb_build_object('resource', 'hazard/monitorEquip', 'id', 'EV-' || (i / 4), 'version', 1 + i % 4, ` +
      `'changes', ${changes}) FROM generate_series(${from}, ${to}) AS i`,
  )
  await settle(url, ['event'])
  return first
}
