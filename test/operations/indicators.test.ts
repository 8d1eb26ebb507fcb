// Supervision of dual prevention on the enterprise edition, against figures counted by hand from a
// small fixture written with known dates (January 2026, zone +08:00): inspection periods and their
// judgement, the indicators, the computed `overdue` of hidden dangers and tickets; the alarm figures
// from readings sent a few days back and handled at instants set by the service's clock.
import t from 'tap'
import { dateAt, zoneNamed } from '../../src/domain/supervision/zone.ts'
import { eventually } from '../helpers/eventually.ts'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'
import { OPEN_DANGER, OWN_TICKET, todayInFixtureZone } from '../helpers/supervision-fixtures.ts'

/** The service's clock: set while an alarm is handled, so that its handling time is known; put ahead to let points go offline. */
let handledAt: number | undefined
let ahead = 0
const service = await startService(t, { clock: () => handledAt ?? Date.now() + ahead })
const token = await service.login()
const call = async (path: string, body: unknown) => (await service.call(path, body, { token })).body
const add = async (resource: string, id: string, fields: Record<string, unknown>) => {
  const answer = await call(`/prevent/${resource}/add`, record(resource, id, fields))
  if (answer.code !== 0) throw new Error(`add ${resource} ${id}: ${answer.msg}`)
}
/** A record written back then: its createTime set to when it was written. */
const writtenAt = (id: string, instant: string) =>
  service.database.pool.query(`UPDATE troubleshoot_record SET "createTime" = $2 WHERE id = $1`, [id, instant])

for (const [id, level] of [
  ['RU-1', '2'],
  ['RU-2', '3'],
  ['RU-3', '3'],
  ['RU-4', '1'],
] as const) {
  await add('riskUnit', id, { riskLevel: level })
}
await add('riskEvents', 'RE-1', { riskUnitId: 'RU-1' })
await add('riskMeasures', 'RM-1', { riskEventId: 'RE-1' })
await call('/prevent/riskUnit/delete', { id: 'RU-4' })

const task = { riskMeasureId: 'RM-1', workDayType: '0', workType: '0', taskNum: null, workStartTime: null, workEndTime: null }
// T-1: daily from Monday 5 January 08:00.
await add('troubleshootTask', 'T-1', { ...task, checkCycle: 1, checkCycleUnit: '天', taskStartTime: '2026-01-05T08:00:00+08:00' })
// T-2: every 4 hours in a window 22:00–02:00 (crossing midnight), working days, work type 1.
await add('troubleshootTask', 'T-2', {
  ...task,
  checkCycle: 4,
  checkCycleUnit: '小时',
  workStartTime: '22:00:00',
  workEndTime: '02:00:00',
  workDayType: '1',
  workType: '1',
  taskNum: 'N-2',
  taskStartTime: '2026-01-09T00:00:00+08:00',
})
const inspection = async (id: string, taskId: string, checkTime: string, checkStatus: string | null, written?: string) => {
  await add('troubleshootRecord', id, { checkTaskId: taskId, checkTime, checkStatus })
  if (written) await writtenAt(id, written)
}
await inspection('R-1', 'T-1', '2026-01-05T10:00:00+08:00', '0', '2026-01-05T10:05:00+08:00')
await inspection('R-2', 'T-1', '2026-01-06T09:00:00+08:00', '2', '2026-01-06T09:00:00+08:00')
await inspection('R-3', 'T-1', '2026-01-06T12:00:00+08:00', '1')
await inspection('R-4', 'T-1', '2026-01-08T09:00:00+08:00', null, '2026-01-08T09:00:00+08:00')
await inspection('R-5', 'T-1', '2026-01-09T07:00:00+08:00', '0', '2026-01-09T07:00:00+08:00')
await inspection('R-6', 'T-2', '2026-01-10T01:00:00+08:00', '0', '2026-01-10T01:00:00+08:00')

const today = todayInFixtureZone()
await add('troubleshootInfo', 'D-1', { ...OPEN_DANGER, registTime: '2026-01-06T10:00:00+08:00', dangerManageDeadline: '2026-01-10' })
await add('troubleshootInfo', 'D-2', {
  ...OPEN_DANGER,
  registTime: '2026-01-07T10:00:00+08:00',
  dangerManageDeadline: '2026-01-10',
  dangerLevel: '1',
  dangerState: '9',
  checkAcceptPerson: '王五',
  checkAcceptTime: '2026-01-09',
})
await add('troubleshootInfo', 'D-3', {
  ...OPEN_DANGER,
  registTime: '2025-12-20T10:00:00+08:00',
  dangerManageDeadline: '2099-01-01',
  dangerLevel: '1',
  dangerState: '1',
})
await add('troubleshootInfo', 'D-4', { ...OPEN_DANGER, registTime: '2025-12-21T10:00:00+08:00', dangerManageDeadline: today })

await add('ticketBaseInfo', 'K-1', {
  ...OWN_TICKET,
  workType: '1',
  workLevel: '2',
  ticketStatus: '1',
  planStartTime: '2026-01-06T08:00:00+08:00',
  planEndTime: '2026-01-07T08:00:00+08:00',
})
await add('ticketBaseInfo', 'K-2', {
  ...OWN_TICKET,
  workType: '4',
  workLevel: '1',
  ticketStatus: '3',
  planStartTime: '2026-01-08T08:00:00+08:00',
  planEndTime: '2026-01-08T18:00:00+08:00',
})
await add('ticketBaseInfo', 'K-3', {
  ...OWN_TICKET,
  workType: '2',
  ticketStatus: '2',
  planStartTime: '2026-02-01T08:00:00+08:00',
  planEndTime: '2099-02-01T08:00:00+08:00',
})

const training = { trainEndTime: null, passCount: null }
await add('trainBaseInfo', 'S-1', {
  ...training,
  trainStartTime: '2026-01-05T09:00:00+08:00',
  trainEndTime: '2026-01-05T13:00:00+08:00',
  trainHours: 4,
  participantCount: 20,
  passCount: 19,
})
await add('trainBaseInfo', 'S-2', {
  ...training,
  trainStartTime: '2026-01-07T09:00:00+08:00',
  trainEndTime: '2026-01-07T11:00:00+08:00',
  trainHours: 2,
  participantCount: 10,
})
await add('trainBaseInfo', 'S-3', {
  ...training,
  trainStartTime: '2026-02-07T09:00:00+08:00',
  trainEndTime: '2026-02-07T11:00:00+08:00',
  trainHours: 8,
  participantCount: 5,
  passCount: 5,
})

// Alarms: points judged against high/low thresholds and a range, readings sent on `alarmDay` (and
// one the day before), handled at known instants.
const zone = zoneNamed('+08:00')
const alarmDay = dateAt(zone, Date.now() - 3 * 86_400_000)
const dayBefore = dateAt(zone, Date.now() - 4 * 86_400_000)
const at = (date: string, time: string) => `${date}T${time}+08:00`
const unset = { oneLevelHigh: '', twoLevelHigh: '', oneLevelLow: '', twoLevelLow: '' }
const point = async (id: string, fields: Record<string, unknown>) => {
  const settings = { rangeMin: '0', rangeMax: '2.5', ...fields }
  const answer = await call('/hazard/monitorEquip/add', record('monitorEquip', id, settings))
  if (answer.code !== 0) throw new Error(`add monitorEquip ${id}: ${answer.msg}`)
}
const thresholds = { oneLevelHigh: '1.6', twoLevelHigh: '2.0', oneLevelLow: '0.2', twoLevelLow: '0.1' }
await point('P-1', thresholds)
await point('P-2', unset)
await point('P-3', thresholds)
await point('P-4', unset)
await point('P-5', thresholds)
const send = async (monitorEquipId: string, readings: [time: string, value: string, quality?: number][]) => {
  const list = readings.map(([time, value, quality]) => ({ monitorEquipId, time, value, quality: quality ?? 0 }))
  const answer = await call('/hazard/monitorData/add-batch', { list })
  if (answer.data?.accepted !== list.length) throw new Error(`add-batch ${monitorEquipId}: ${JSON.stringify(answer)}`)
}
// P-1: high reaching level 2, cleared; high at level 1, cleared; low at level 1, cleared.
await send('P-1', [
  [at(alarmDay, '10:00:00'), '1.7'],
  [at(alarmDay, '10:01:00'), '2.1'],
  [at(alarmDay, '10:02:00'), '1.0'],
  [at(alarmDay, '10:03:00'), '1.8'],
  [at(alarmDay, '10:04:00'), '1.0'],
  [at(alarmDay, '10:05:00'), '0.15'],
  [at(alarmDay, '10:06:00'), '1.0'],
])
// P-2: out of range, then a device fault; both cleared by the next good reading in range.
await send('P-2', [
  [at(alarmDay, '11:00:00'), '3'],
  [at(alarmDay, '11:01:00'), '1', 1],
  [at(alarmDay, '11:02:00'), '1'],
])
// P-3: high at level 1 the day before, still active.
await send('P-3', [[at(dayBefore, '10:00:00'), '1.7']])
// P-5: shelved, then high at level 1, still active.
await call('/hazard/monitorEquip/shelve', { id: 'P-5', until: new Date(Date.now() + 86_400_000).toISOString(), reason: 'calibration' })
await send('P-5', [[at(alarmDay, '12:00:00'), '1.7']])
const alarmsOf = async (monitorEquipId: string) =>
  (
    await call('/hazard/monitorAlarm/search', {
      conditions: [{ field: 'monitorEquipId', op: 'eq', value: monitorEquipId }],
      orderBy: [{ field: 'startTime', direction: 'asc' }],
    })
  ).data.list
const handle = async (alarm: { id: string }, move: 'acknowledge' | 'dispose', instant: string) => {
  handledAt = Date.parse(instant)
  try {
    const body = move === 'dispose' ? { id: alarm.id, cause: '3', measures: 'checked on site' } : { id: alarm.id }
    const answer = await call(`/hazard/monitorAlarm/${move}`, body)
    if (answer.code !== 0) throw new Error(`${move} ${alarm.id}: ${answer.msg}`)
  } finally {
    handledAt = undefined
  }
}
const [highToTwo, highAtOne, low] = await alarmsOf('P-1')
const [outOfRange, fault] = await alarmsOf('P-2')
const [[before], [shelved]] = [await alarmsOf('P-3'), await alarmsOf('P-5')]
// Seconds to acknowledge, on alarmDay: 30, 120, 60, 10 (median of four: the lower middle, 30).
// Seconds to dispose, on alarmDay: 600, 100 (without acknowledgement), 1800, 5 (median 100).
// The day before: 1000 and 2000, which would move both medians were they counted.
await handle(highToTwo, 'acknowledge', at(alarmDay, '10:00:30'))
await handle(highToTwo, 'dispose', at(alarmDay, '10:10:00'))
await handle(highAtOne, 'acknowledge', at(alarmDay, '10:05:00'))
await handle(low, 'dispose', at(alarmDay, '10:06:40'))
await handle(outOfRange, 'acknowledge', at(alarmDay, '11:01:00'))
await handle(outOfRange, 'dispose', at(alarmDay, '11:30:00'))
await handle(fault, 'acknowledge', at(alarmDay, '11:01:10'))
await handle(shelved, 'dispose', at(alarmDay, '12:00:05'))
await handle(before, 'acknowledge', at(dayBefore, '10:16:40'))
await handle(before, 'dispose', at(dayBefore, '10:33:20'))
// P-4: a reading in range, no alarm (until the points go offline, by a clock put ahead below).
await send('P-4', [[at(alarmDay, '13:00:00'), '1.0']])

const periodsOf = async (body: Record<string, unknown>) => (await call('/prevent/troubleshootTask/periods', body)).data

t.test('periods of a daily task: judged by the earliest record inside (status 2 ignored), late, missed', async (t) => {
  const { list, total } = await periodsOf({ taskId: 'T-1', from: '2026-01-05', to: '2026-01-09' })
  t.equal(total, 5)
  t.same(
    list.map((period: any) => [period.start, period.end, period.status, period.doneLate, period.recordId]),
    [
      ['2026-01-05T08:00:00+08:00', '2026-01-06T08:00:00+08:00', 'done', false, 'R-1'],
      ['2026-01-06T08:00:00+08:00', '2026-01-07T08:00:00+08:00', 'done', true, 'R-3'],
      ['2026-01-07T08:00:00+08:00', '2026-01-08T08:00:00+08:00', 'missed', false, null],
      ['2026-01-08T08:00:00+08:00', '2026-01-09T08:00:00+08:00', 'done', false, 'R-4'],
      ['2026-01-09T08:00:00+08:00', '2026-01-10T08:00:00+08:00', 'missed', false, null],
    ],
  )
  t.equal(list[0].id, 'T-1@2026-01-05T00:00:00Z')
})

t.test('periods of an hourly task: a window crossing midnight on working days only', async (t) => {
  const { list } = await periodsOf({ taskId: 'T-2', from: '2026-01-09', to: '2026-01-12' })
  t.same(
    list.map((period: any) => [period.start, period.end, period.status]),
    [
      ['2026-01-09T22:00:00+08:00', '2026-01-10T02:00:00+08:00', 'done'],
      ['2026-01-12T22:00:00+08:00', '2026-01-13T02:00:00+08:00', 'missed'],
    ],
  )
})

t.test('periods are ordered by task then start, filtered by status, and paged', async (t) => {
  const missed = await periodsOf({ from: '2026-01-05', to: '2026-01-09', status: 'missed' })
  t.same(
    missed.list.map((period: any) => [period.taskId, period.start.slice(0, 10)]),
    [
      ['T-1', '2026-01-07'],
      ['T-1', '2026-01-09'],
    ],
  )
  const second = await periodsOf({ from: '2026-01-05', to: '2026-01-09', pageNum: 2, pageSize: 4 })
  t.same(
    second.list.map((period: any) => [period.taskId, period.start.slice(0, 10)]),
    [
      ['T-1', '2026-01-09'],
      ['T-2', '2026-01-09'],
    ],
  )
  t.equal(second.total, 6)
})

t.test('a record deleted, or set to status 2, judges its period again; a late record turns missed into done late', async (t) => {
  const january8 = async () => (await periodsOf({ taskId: 'T-1', from: '2026-01-08', to: '2026-01-08' })).list[0]
  await call('/prevent/troubleshootRecord/update', { id: 'R-4', checkStatus: '2' })
  t.same([(await january8()).status, (await january8()).recordId], ['done', 'R-5'], 'the next record inside names it')
  await call('/prevent/troubleshootRecord/delete', { id: 'R-5' })
  t.same([(await january8()).status, (await january8()).recordId], ['missed', null])
  await inspection('R-7', 'T-1', '2026-01-08T20:00:00+08:00', '0')
  const late = await january8()
  t.same([late.status, late.doneLate, late.recordId], ['done', true, 'R-7'])
  await call('/prevent/troubleshootRecord/delete', { id: 'R-7' })
  await call('/prevent/troubleshootRecord/update', { id: 'R-4', checkStatus: '0' })
  const restored = await january8()
  t.same([restored.status, restored.doneLate, restored.recordId], ['done', false, 'R-4'])
})

t.test('the indicators of January 5 to 9 are the figures counted by hand', async (t) => {
  await service.database.pool.query(`UPDATE troubleshoot_record SET sync_status = 'failed' WHERE id = 'R-1'`)
  const answer = await call('/system/indicators', { from: '2026-01-05', to: '2026-01-09' })
  t.equal(answer.code, 0)
  const [entry] = answer.data.list
  t.equal(entry.companyCode, service.config.companyCode)
  const figures = (
    due: number,
    done: number,
    doneLate: number,
    missed: number,
    completionRate: string | null,
    onTimeRate: string | null,
  ) => ({
    due,
    done,
    doneLate,
    missed,
    open: 0,
    completionRate,
    onTimeRate,
  })
  t.same(entry.inspections, {
    ...figures(6, 4, 1, 2, '0.6667', '0.5000'),
    byWorkType: [
      { workType: '0', ...figures(5, 3, 1, 2, '0.6000', '0.4000') },
      { workType: '1', ...figures(1, 1, 0, 0, '1.0000', '1.0000') },
      { workType: '2', ...figures(0, 0, 0, 0, null, null) },
      { workType: '3', ...figures(0, 0, 0, 0, null, null) },
    ],
  })
  t.same(entry.dangers, { found: 2, accepted: 1, rectificationRate: '0.5000', open: 3, overdue: 1, majorOpen: 1 })
  t.same(entry.riskUnits, [
    { riskLevel: '1', count: 0 },
    { riskLevel: '2', count: 1 },
    { riskLevel: '3', count: 2 },
    { riskLevel: '4', count: 0 },
  ])
  t.same(
    entry.tickets.byWorkType.filter((item: any) => item.count > 0),
    [
      { workType: '1', count: 1 },
      { workType: '4', count: 1 },
    ],
  )
  t.equal(entry.tickets.byWorkType.length, 8, 'every work type, zeros included')
  t.same(entry.tickets.byStatus, [
    { ticketStatus: '1', count: 1 },
    { ticketStatus: '2', count: 0 },
    { ticketStatus: '3', count: 1 },
    { ticketStatus: '4', count: 0 },
  ])
  t.equal(entry.tickets.overdue, 1)
  t.same(entry.training, { sessions: 2, hours: 6, participants: 30, passRate: '0.9500' })
  t.same(
    entry.alarms.raised.map((item: any) => item.count),
    [0, 0, 0, 0, 0, 0, 0, 0],
    'no alarm was raised in January',
  )
  t.same([entry.alarms.medianSecondsToAcknowledge, entry.alarms.medianSecondsToDispose], [null, null])
  t.equal(entry.sync.failed, 1)
  t.ok(entry.sync.pending > 0)
})

t.test('an empty window has zero counts and null rates', async (t) => {
  const [entry] = (await call('/system/indicators', { from: '2025-06-01', to: '2025-06-02' })).data.list
  t.same(
    [entry.inspections.due, entry.inspections.completionRate, entry.dangers.found, entry.dangers.rectificationRate],
    [0, null, 0, null],
  )
  t.equal(entry.training.passRate, null)
  t.equal(entry.dangers.open, 3, 'open dangers are counted now, whatever the window')
})

t.test('a window ending before it starts, or an unknown figure to order by, answers 1002', async (t) => {
  t.equal((await call('/system/indicators', { from: '2026-01-09', to: '2026-01-05' })).code, 1002)
  const unknown = await call('/system/indicators', { from: '2026-01-05', to: '2026-01-09', orderBy: [{ field: 'inspections.late' }] })
  t.equal(unknown.code, 1002)
  t.match(unknown.msg, /inspections\.late/)
  const parksOwn = await call('/system/indicators', { from: '2026-01-05', to: '2026-01-09', orderBy: [{ field: 'lastPushTime' }] })
  t.equal(parksOwn.code, 1002, "the park's figure, which the enterprise's entries do not have")
  t.equal((await call('/prevent/troubleshootTask/periods', { from: '2026-01-09', to: '2026-01-05' })).code, 1002)
})

t.test('overdue is computed on reads of hidden dangers (the deadline day itself is not overdue) and searchable with eq', async (t) => {
  t.equal((await call('/prevent/troubleshootInfo/getById', { id: 'D-1' })).data.overdue, true)
  t.equal((await call('/prevent/troubleshootInfo/getById', { id: 'D-4' })).data.overdue, false)
  const search = async (value: boolean) =>
    (await call('/prevent/troubleshootInfo/search', { conditions: [{ field: 'overdue', op: 'eq', value }] })).data.list
      .map((item: any) => item.id)
      .sort()
  t.same(await search(true), ['D-1'])
  t.same(await search(false), ['D-2', 'D-3', 'D-4'])
  t.equal((await call('/prevent/troubleshootInfo/search', { conditions: [{ field: 'overdue', op: 'ne', value: true }] })).code, 1002)
  t.equal((await call('/prevent/troubleshootInfo/search', { orderBy: [{ field: 'overdue' }] })).code, 1002)
})

t.test('overdue of work tickets: issued or in progress after the planned end', async (t) => {
  const search = async (value: boolean) =>
    (await call('/prevent/ticketBaseInfo/search', { conditions: [{ field: 'overdue', op: 'eq', value }] })).data.list
      .map((item: any) => item.id)
      .sort()
  t.same(await search(true), ['K-1'])
  t.same(await search(false), ['K-2', 'K-3'])
})

t.test('overdue is read-only: an add or update naming it answers 1002', async (t) => {
  t.equal((await call('/prevent/ticketBaseInfo/update', { id: 'K-1', overdue: false })).code, 1002)
})

t.test('the calendar: set a year, read it back; an unset year is Monday to Friday; bad dates answer 1002', async (t) => {
  t.same((await call('/system/calendar/get', { year: 2026 })).data, { year: 2026, holidays: [], workdays: [], default: true })
  t.equal((await call('/system/calendar/set', { year: 2026, holidays: ['2026-02-04'], workdays: ['2026-02-07'] })).code, 0)
  t.same((await call('/system/calendar/get', { year: 2026 })).data, {
    year: 2026,
    holidays: ['2026-02-04'],
    workdays: ['2026-02-07'],
    default: false,
  })
  t.equal((await call('/system/calendar/set', { year: 2026, holidays: ['2027-01-01'], workdays: [] })).code, 1002)
  t.equal((await call('/system/calendar/set', { year: 2026, holidays: ['2026-02-05'], workdays: ['2026-02-05'] })).code, 1002)
  t.same((await call('/system/calendar/get', { year: 2026 })).data.holidays, ['2026-02-04'], 'a refused set writes nothing')
  t.equal((await call('/system/calendar/set', { year: 50, holidays: ['0050-06-01'], workdays: ['0050-06-02'] })).code, 0, 'year 50')
  t.same((await call('/system/calendar/get', { year: 50 })).data.holidays, ['0050-06-01'])
  const days = (count: number) => Array.from({ length: count }, (_, n) => new Date(Date.UTC(2029, 0, 1 + n)).toISOString().slice(0, 10))
  t.equal((await call('/system/calendar/set', { year: 2029, holidays: days(365), workdays: [] })).code, 0, 'every day of a year')
  const tooMany = await call('/system/calendar/set', { year: 2029, holidays: [...days(365), '2029-12-31', '2029-12-30'], workdays: [] })
  t.equal(tooMany.code, 1002, 'more than 366 dates: a bad parameter, not a body too large')
})

t.test('working days follow the calendar: a holiday is not due, a working Saturday is', async (t) => {
  await add('troubleshootTask', 'T-6', {
    ...task,
    checkCycle: 1,
    checkCycleUnit: '天',
    workDayType: '1',
    taskStartTime: '2026-02-02T08:00:00+08:00',
  })
  const { list } = await periodsOf({ taskId: 'T-6', from: '2026-02-02', to: '2026-02-08' })
  t.same(
    list.map((period: any) => period.start.slice(0, 10)),
    ['2026-02-02', '2026-02-03', '2026-02-05', '2026-02-06', '2026-02-07'],
  )
})

t.test('an edited or deleted task keeps the periods already started', async (t) => {
  const before = await periodsOf({ taskId: 'T-1', from: '2026-01-05', to: '2026-01-09' })
  await call('/prevent/troubleshootTask/update', { id: 'T-1', checkCycle: 7 })
  t.same((await periodsOf({ taskId: 'T-1', from: '2026-01-05', to: '2026-01-09' })).list, before.list)
  await add('troubleshootTask', 'T-7', { ...task, checkCycle: 1, checkCycleUnit: '月', taskStartTime: '2026-01-31T00:00:00+08:00' })
  const started = (await periodsOf({ taskId: 'T-7', from: '2026-01-01', to: today })).list
  await call('/prevent/troubleshootTask/delete', { id: 'T-7' })
  t.same((await periodsOf({ taskId: 'T-7', from: '2026-01-01', to: today })).list, started)
  t.same(
    started.slice(0, 3).map((period: any) => period.start.slice(0, 10)),
    ['2026-01-31', '2026-02-28', '2026-03-31'],
  )
})

t.test('a running period without a record is open, and counted open by the indicators', async (t) => {
  // Started at today's midnight so that the period lies in today's window whatever the hour.
  const start = `${today}T00:00:00+08:00`
  await add('troubleshootTask', 'T-8', {
    ...task,
    checkCycle: 1,
    checkCycleUnit: '年',
    workType: '2',
    taskNum: 'N-8',
    taskStartTime: start,
  })
  const { list } = await periodsOf({ taskId: 'T-8', from: '2026-01-01', to: '2099-12-31' })
  t.same(
    list.map((period: any) => period.status),
    ['open'],
  )
  const [entry] = (await call('/system/indicators', { from: today, to: today })).data.list
  const byType = entry.inspections.byWorkType.find((item: any) => item.workType === '2')
  t.same([byType.open, byType.due, byType.completionRate], [1, 0, null])
})

const alarmsIn = async (from: string, to: string) => (await call('/system/indicators', { from, to })).data.list[0].alarms

t.test('alarms raised in the window: every kind and level, each alarm once at the highest level it reached', async (t) => {
  const { raised } = await alarmsIn(alarmDay, alarmDay)
  t.same(raised, [
    { kind: 'high', level: 1, count: 2 },
    { kind: 'high', level: 2, count: 1 },
    { kind: 'low', level: 1, count: 1 },
    { kind: 'low', level: 2, count: 0 },
    { kind: 'outOfRange', level: null, count: 1 },
    { kind: 'fault', level: null, count: 1 },
    { kind: 'offline', level: null, count: 0 },
    { kind: 'frozen', level: null, count: 0 },
  ])
  const day = await alarmsIn(dayBefore, dayBefore)
  t.same(
    day.raised.filter((item: any) => item.count > 0),
    [{ kind: 'high', level: 1, count: 1 }],
  )
})

t.test('the medians of acknowledging and disposing take the alarms raised in the window, the lower middle of an even count', async (t) => {
  const inDay = await alarmsIn(alarmDay, alarmDay)
  t.same([inDay.medianSecondsToAcknowledge, inDay.medianSecondsToDispose], [30, 100])
  const before = await alarmsIn(dayBefore, dayBefore)
  t.same([before.medianSecondsToAcknowledge, before.medianSecondsToDispose], [1000, 2000])
  const both = await alarmsIn(dayBefore, alarmDay)
  t.same([both.medianSecondsToAcknowledge, both.medianSecondsToDispose], [60, 600], 'five of each: the middle one')
  const none = await alarmsIn('2025-06-01', '2025-06-02')
  t.same([none.medianSecondsToAcknowledge, none.medianSecondsToDispose], [null, null])
})

t.test(
  'active alarms now leave the shelved ones out; offline points are counted now (shelved ones included), whatever the window',
  async (t) => {
    const now = await alarmsIn('2025-06-01', '2025-06-02')
    t.same([now.active, now.offlinePoints], [1, 0], 'P-3 high; P-5 high shelved, left out')
    // Ten minutes on, every point that received readings is offline (the default: after 300 s).
    ahead = 600_000
    try {
      const offline = await eventually(
        async () => {
          const alarms = await alarmsIn('2025-06-01', '2025-06-02')
          return alarms.offlinePoints === 5 && alarms
        },
        { timeoutMs: 40_000, what: 'five points offline' },
      )
      t.equal(offline.active, 5, 'P-3 high and P-1 to P-4 offline; P-5 shelved, its two alarms left out')
      t.same(offline.raised, (await alarmsIn('2025-06-01', '2025-06-02')).raised)
      const inDay = await alarmsIn(alarmDay, alarmDay)
      t.equal(inDay.raised.find((item: any) => item.kind === 'offline').count, 0, 'offline started today, outside the window')
    } finally {
      ahead = 0
    }
  },
)

t.test('the per-day tally of periods equals the periods counted afresh after edits, deletions and late records', async (t) => {
  const pool = service.database.pool
  const tally = async () =>
    (
      await pool.query(
        `SELECT "companyCode", "dayStart", "workType", periods, done, "doneLate" FROM inspection_period_day ` +
          `WHERE periods <> 0 OR done <> 0 OR "doneLate" <> 0 ORDER BY 1, 2, 3`,
      )
    ).rows
  const afresh = async () =>
    (
      await pool.query(
        `SELECT "companyCode", utc_day(start) AS "dayStart", "workType", count(*)::int AS periods, count("recordId")::int AS done, ` +
          `(count(*) FILTER (WHERE "recordId" IS NOT NULL AND "doneLate"))::int AS "doneLate" FROM inspection_period GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      )
    ).rows
  t.same(await tally(), await afresh(), 'after the records written, changed, deleted and written late above')
  await call('/prevent/troubleshootRecord/update', { id: 'R-1', checkStatus: '2' })
  await inspection('R-8', 'T-1', '2026-01-07T20:00:00+08:00', '0')
  t.same(await tally(), await afresh(), 'after a record set to status 2 and a late one')
  const removed = await pool.query(`DELETE FROM inspection_period WHERE "taskId" = 'T-2' RETURNING *`)
  t.ok(removed.rowCount)
  t.same(await tally(), await afresh(), 'after periods deleted')
  const [entry] = (await call('/system/indicators', { from: '2026-01-05', to: '2026-01-09' })).data.list
  t.same(
    [entry.inspections.due, entry.inspections.done, entry.inspections.doneLate, entry.inspections.missed],
    [5, 3, 2, 2],
    'January 5 to 9 counted by hand again: T-1 alone; January 5 and 9 missed, 6 and 7 done late (R-3, R-8), 8 done',
  )
})

t.end()
