// Supervision pushed to the park, with real processes: three enterprise editions in three zones,
// each with tasks, records, hidden dangers, tickets and training written with known dates, push to
// one park. After the push, the periods, the calendar and every indicator the park answers of an
// enterprise equal the enterprise's own; the park killed while the enterprises write on (a late
// record, a deletion re-judging a period, a calendar change) and started again loses nothing.
import t from 'tap'
import { dateAt, zoneNamed } from '../../src/domain/supervision/zone.ts'
import { record } from '../helpers/fixtures.ts'
import {
  allSynced,
  eventually,
  loginTo,
  postUntilServed,
  type PushingEnterprise,
  startEnterprisesPushingTo,
  startParkProcess,
} from '../helpers/park.ts'

const ZONES: Record<string, string> = { '111111111': '+08:00', '222222222': '-05:00', '333333333': 'Asia/Tokyo' }
const COMPANIES = Object.keys(ZONES)

const park = await startParkProcess(t)
const parkToken = await loginTo(park.url)
const enterprises = await startEnterprisesPushingTo(t, { url: park.url, token: parkToken }, COMPANIES, (companyCode) => ({
  TZ: ZONES[companyCode]!,
  SYNC_RETRY_DELAY_MAX_SECONDS: '1',
  SYNC_FAILED_RETRY_SECONDS: '0',
  PARK_TIMEOUT_MS: '2000',
  SYNC_PARK_PROBE_MS: '200',
}))
type Enterprise = PushingEnterprise

const call = async (enterprise: Enterprise, path: string, body: unknown) => {
  const answer = await postUntilServed(`${enterprise.edition.url}${path}`, body, enterprise.token)
  if (answer.code !== 0) throw new Error(`${path} on ${enterprise.companyCode}: ${answer.code} ${answer.msg}`)
  return answer.data
}
const add = (enterprise: Enterprise, resource: string, id: string, fields: Record<string, unknown>) =>
  call(enterprise, `/prevent/${resource}/add`, record(resource, id, fields))

const task = { riskMeasureId: 'RM-1' }
const danger = { riskMeasureId: null, checkRecordId: null, checkAcceptPerson: null, checkAcceptTime: null }
const ticket = { isContractorWork: '0', contractorOrg: null }

/** Each enterprise's records, the same shape with its own figures (`n` makes them differ). */
async function write(enterprise: Enterprise, n: number): Promise<void> {
  const today = dateAt(zoneNamed(ZONES[enterprise.companyCode]!), Date.now())
  await call(enterprise, '/system/calendar/set', { year: 2026, holidays: ['2026-01-07'], workdays: ['2026-01-10'] })
  for (const [id, level] of [
    ['RU-1', '1'],
    ['RU-2', String(1 + n)],
    ['RU-3', '4'],
  ] as const) {
    await add(enterprise, 'riskUnit', id, { riskLevel: level })
  }
  await add(enterprise, 'riskEvents', 'RE-1', { riskUnitId: 'RU-1' })
  await add(enterprise, 'riskMeasures', 'RM-1', { riskEventId: 'RE-1' })
  // T-1 daily from 5 January; T-2 every 3 hours in 20:00–23:00 on days off (the calendar counts);
  // T-3 hourly all day, from the first midnight after its start two days ago (a record now is on time).
  const schedules: [string, number, string, string | null, string | null, string, string, string][] = [
    ['T-1', 1, '天', null, null, '0', '0', '2026-01-05T08:00:00+08:00'],
    ['T-2', 3, '小时', '20:00:00', '23:00:00', '2', '1', '2026-01-05T00:00:00+08:00'],
    ['T-3', 1, '小时', '00:00:00', '00:00:00', '0', '2', new Date(Date.now() - 2 * 86_400_000).toISOString()],
  ]
  for (const [id, checkCycle, checkCycleUnit, workStartTime, workEndTime, workDayType, workType, taskStartTime] of schedules) {
    const taskNum = workType === '0' ? null : `N-${id}`
    const schedule = { checkCycle, checkCycleUnit, workStartTime, workEndTime, workDayType, workType, taskNum, taskStartTime }
    await add(enterprise, 'troubleshootTask', id, { ...task, ...schedule })
  }
  const inspection = (id: string, taskId: string, checkTime: string, checkStatus: string | null) =>
    add(enterprise, 'troubleshootRecord', id, { checkTaskId: taskId, checkTime, checkStatus })
  await inspection('R-1', 'T-1', '2026-01-05T10:00:00+08:00', '0')
  await inspection('R-2', 'T-1', '2026-01-06T09:00:00+08:00', '2')
  for (let day = 0; day < n; day++) await inspection(`R-D${day}`, 'T-1', `2026-01-${String(10 + day).padStart(2, '0')}T12:00:00+08:00`, '1')
  await inspection('R-3', 'T-2', '2026-01-10T21:00:00+08:00', null)
  await inspection('R-4', 'T-3', new Date().toISOString(), '0')

  // Hidden dangers: [id, registered, deadline, level, state]; `n` major ones open far ahead.
  const dangers: [string, string, string, string, string][] = [
    ['D-1', '2026-01-06T10:00:00+08:00', '2026-01-10', '0', '0'],
    ['D-2', '2026-01-07T10:00:00+08:00', '2026-01-10', '1', '9'],
    ['D-3', '2026-01-08T10:00:00+08:00', today, '0', '1'],
    ...Array.from({ length: n }, (_, i): [string, string, string, string, string] => [
      `D-M${i}`,
      '2026-01-09T10:00:00+08:00',
      '2099-01-01',
      '1',
      '1',
    ]),
  ]
  for (const [id, registTime, dangerManageDeadline, dangerLevel, dangerState] of dangers) {
    const accepted = dangerState === '9' ? { checkAcceptPerson: '王五', checkAcceptTime: '2026-01-09' } : {}
    await add(enterprise, 'troubleshootInfo', id, { ...danger, registTime, dangerManageDeadline, dangerLevel, dangerState, ...accepted })
  }
  // Tickets: [id, work type, level, status, planned start, planned end] (hot work, work at height and lifting take a level).
  const tickets: [string, string, string, string, string, string][] = [
    ['K-1', ['1', '4', '5'][n - 1]!, '2', '1', '2026-01-06T08:00:00+08:00', '2026-01-07T08:00:00+08:00'],
    ['K-2', '4', '1', '3', '2026-01-08T08:00:00+08:00', '2026-01-08T18:00:00+08:00'],
    ['K-3', '3', '', '2', '2026-01-20T08:00:00+08:00', '2099-01-01T08:00:00+08:00'],
  ]
  for (const [id, workType, workLevel, ticketStatus, planStartTime, planEndTime] of tickets) {
    await add(enterprise, 'ticketBaseInfo', id, {
      ...ticket,
      workType,
      workLevel: workLevel || null,
      ticketStatus,
      planStartTime,
      planEndTime,
    })
  }
  await add(enterprise, 'trainBaseInfo', 'S-1', {
    trainStartTime: '2026-01-05T09:00:00+08:00',
    trainEndTime: '2026-01-05T13:00:00+08:00',
    trainHours: 4,
    participantCount: 10 * n,
    passCount: 9 * n,
  })
}

/** Every period of the window, every page. */
async function periods(read: (body: Record<string, unknown>) => Promise<any>, from: string, to: string): Promise<any[]> {
  const all: any[] = []
  for (let pageNum = 1; ; pageNum++) {
    const page = await read({ from, to, pageNum, pageSize: 500 })
    // Each edition writes instants in its own zone: compared as instants.
    const instant = (text: string) => new Date(text).toISOString()
    all.push(
      ...page.list.map(({ companyCode: _company, start, end, ...period }: any) => ({
        ...period,
        start: instant(start),
        end: instant(end),
      })),
    )
    if (page.list.length < 500) return all
  }
}

/** What the enterprise answers of itself and what the park answers of it, for one window. */
async function both(enterprise: Enterprise, from: string, to: string) {
  const { companyCode } = enterprise
  const onPark = async (path: string, body: Record<string, unknown>) => {
    const answer = await postUntilServed(`${park.url}${path}`, { ...body, companyCode }, parkToken)
    if (answer.code !== 0) throw new Error(`${path} on the park: ${answer.code} ${answer.msg}`)
    return answer.data
  }
  const onEnterprise = (path: string, body: Record<string, unknown>) => call(enterprise, path, body)
  const [ownIndicators, parkIndicators] = await Promise.all([
    onEnterprise('/system/indicators', { from, to }),
    onPark('/system/indicators', { from, to }),
  ])
  const { sync, ...own } = ownIndicators.list[0]
  const { lastPushTime, ...held } = parkIndicators.list[0] ?? {}
  return {
    own: {
      periods: await periods((body) => onEnterprise('/prevent/troubleshootTask/periods', body), from, to),
      calendar: await onEnterprise('/system/calendar/get', { year: 2026 }),
      indicators: own,
    },
    park: {
      periods: await periods((body) => onPark('/prevent/troubleshootTask/periods', body), from, to),
      calendar: await onPark('/system/calendar/get', { year: 2026 }),
      indicators: held,
    },
    sync,
    lastPushTime,
  }
}

/** After every enterprise pushed all it holds: the park answers of each what it answers of itself. */
async function assertParkEqualsEnterprises(
  t: { same(...args: unknown[]): unknown; ok(...args: unknown[]): unknown; match(...args: unknown[]): unknown },
  stage: string,
): Promise<void> {
  for (const enterprise of enterprises) {
    // A read of periods writes those that started and were not written yet (the job does it every few seconds).
    await call(enterprise, '/prevent/troubleshootTask/periods', { from: '2026-01-01', to: '2026-01-01' })
    await eventually(() => allSynced(enterprise.edition.url, enterprise.token), {
      timeoutMs: 120_000,
      everyMs: 200,
      what: `${enterprise.companyCode} to have pushed everything`,
    })
  }
  for (const enterprise of enterprises) {
    const { companyCode } = enterprise
    // January: periods long ended, judged as pushed.
    const january = await both(enterprise, '2026-01-01', '2026-01-31')
    t.same(january.park, january.own, `${stage}: the park's periods, calendar and indicators of ${companyCode} in January are its own`)
    t.ok(january.own.periods.length > 30, `${stage}: ${companyCode} has periods in January`)
    t.same(january.sync, { pending: 0, failed: 0 }, `${stage}: ${companyCode} has nothing left to push`)
    t.match(january.lastPushTime, /^\d{4}-\d{2}-\d{2}T/, `${stage}: the park knows when ${companyCode} pushed`)
    // Today: a period may start between the two reads; both agree once it is pushed.
    const zone = zoneNamed(ZONES[companyCode]!)
    const from = dateAt(zone, Date.now() - 86_400_000)
    const to = dateAt(zone, Date.now())
    let last: Awaited<ReturnType<typeof both>> | undefined
    await eventually(
      async () => {
        last = await both(enterprise, from, to)
        return JSON.stringify(last.park) === JSON.stringify(last.own)
      },
      { timeoutMs: 60_000, everyMs: 500, what: `the park's figures of ${companyCode} for today to be its own` },
    ).catch(() => undefined)
    t.same(last?.park, last?.own, `${stage}: the park's periods and indicators of ${companyCode} since yesterday are its own`)
    t.ok(
      last?.own.indicators.inspections.byWorkType.some((entry: any) => entry.workType === '2' && entry.done === 1 && entry.doneLate === 0),
      `${stage}: ${companyCode}'s inspection now is done on time`,
    )
  }
}

await Promise.all(enterprises.map((enterprise, n) => write(enterprise, n + 1)))

t.test('after the push, the park answers every enterprise’s periods, calendar and indicators as it does', async (t) => {
  await assertParkEqualsEnterprises(t, 'pushed')
  const all = (await postUntilServed(`${park.url}/system/indicators`, { from: '2026-01-01', to: '2026-01-31' }, parkToken)).data.list
  t.same(
    all.map((entry: any) => entry.companyCode),
    COMPANIES,
    'one entry per enterprise',
  )
  t.not(all[0].inspections.done, all[2].inspections.done, 'the enterprises differ')
})

t.test('the park killed while the enterprises write on, then started again, loses nothing', async (t) => {
  await park.stop('SIGKILL')
  for (const [n, enterprise] of enterprises.entries()) {
    // A late record turns a missed period into done late; a deleted one re-judges its period.
    await add(enterprise, 'troubleshootRecord', 'R-LATE', { checkTaskId: 'T-1', checkTime: '2026-01-20T12:00:00+08:00', checkStatus: '0' })
    await call(enterprise, '/prevent/troubleshootRecord/delete', { id: 'R-1' })
    await call(enterprise, '/system/calendar/set', { year: 2026, holidays: ['2026-01-07', `2026-01-1${n + 1}`], workdays: [] })
    await add(enterprise, 'troubleshootInfo', 'D-NEW', {
      ...danger,
      registTime: '2026-01-21T10:00:00+08:00',
      dangerManageDeadline: '2026-01-25',
      dangerLevel: '0',
      dangerState: '0',
    })
    await call(enterprise, '/prevent/ticketBaseInfo/update', { id: 'K-1', ticketStatus: '2' })
    const waiting = (await call(enterprise, '/system/indicators', { from: '2026-01-01', to: '2026-01-31' })).list[0].sync
    t.ok(waiting.pending > 0, `${enterprise.companyCode}'s writes wait for the park (periods and calendar counted)`)
    const status = await call(enterprise, '/system/sync/status', {})
    const kinds = new Set(status.resources.filter((entry: any) => entry.pending > 0).map((entry: any) => entry.resource))
    t.ok(kinds.has('inspectionPeriod') && kinds.has('workCalendar'), 'sync status counts the periods and the calendar pending')
  }
  await park.start()
  await assertParkEqualsEnterprises(t, 'after the restart')
  const metrics = await (await fetch(`${enterprises[0]!.edition.url}/metrics`)).text()
  for (const kind of ['enterpriseZone', 'workCalendar', 'inspectionPeriod']) {
    t.match(metrics, new RegExp(`sync_records\\{resource="${kind}",state="synced"\\} [1-9]`), `/metrics counts the ${kind} pushed`)
    t.match(metrics, new RegExp(`sync_records\\{resource="${kind}",state="pending"\\} 0`), `and none of them pending`)
  }
})

t.end()
