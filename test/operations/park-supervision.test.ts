// Supervision on the park edition, from what its enterprises hold there: the periods of every
// enterprise or the one named, each enterprise's indicators ordered as asked, its danger overdue in
// the zone it pushed, and an enterprise account reading its own only.
import t from 'tap'
import { pushedRecord } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t, { env: { EDITION: 'park' } })
const token = await service.login()
const call = async (path: string, body: unknown, as = token, headers?: Record<string, string>) =>
  (await service.call(path, body, { token: as, headers })).body

const COMPANIES = ['111111111', '222222222']
for (const companyCode of [...COMPANIES, '333333333']) {
  const added = await call('/system/user/add', {
    userName: `ent-${companyCode}`,
    password: `password-${companyCode}`,
    role: 'enterprise',
    companyCode,
  })
  t.equal(added.code, 0)
}
const enterpriseToken = await service.login('ent-111111111', 'password-111111111')

/** Pushes facts or records of one kind as the park's admin; every item applied. */
const push = async (resource: string, list: unknown[]) => {
  const answer = await call('/system/push/records', { resource, list })
  t.same(answer.data?.failed, [], `${resource} pushed: ${answer.msg}`)
}

// Periods as the enterprises pushed them: 111111111 missed one of two, 222222222 did its one late.
const period = (companyCode: string, id: string, start: string, end: string, recordId: string | null, doneLate = false) => ({
  id,
  companyCode,
  taskId: 'T-1',
  start,
  end,
  workType: '0',
  recordId,
  doneLate,
  createTime: start,
  updateTime: start,
  version: 1,
  deleted: false,
})
await push('inspectionPeriod', [
  period('111111111', 'T-1@a', '2026-01-05T08:00:00+08:00', '2026-01-06T08:00:00+08:00', 'R-1'),
  period('111111111', 'T-1@b', '2026-01-06T08:00:00+08:00', '2026-01-07T08:00:00+08:00', null),
  period('222222222', 'T-1@a', '2026-01-05T08:00:00+08:00', '2026-01-06T08:00:00+08:00', 'R-9', true),
])

// A hidden danger of each enterprise, its deadline today at -12:00: 222222222 pushed that zone (the
// deadline day: not overdue), 111111111 pushed +14:00 (a day or two later there: overdue).
const deadline = new Date(Date.now() - 12 * 3600_000).toISOString().slice(0, 10)
for (const companyCode of COMPANIES) {
  const pushed = pushedRecord('troubleshootInfo', 'D-1', {
    companyCode,
    fields: {
      riskMeasureId: null,
      checkRecordId: null,
      dangerState: '0',
      dangerManageDeadline: deadline,
      checkAcceptPerson: null,
      checkAcceptTime: null,
    },
  })
  await push('troubleshootInfo', [pushed])
}
const zone = (companyCode: string, timeZone: string, version = 1) => ({
  id: companyCode,
  companyCode,
  timeZone,
  updateTime: '2026-01-01T00:00:00Z',
  version,
  deleted: false,
})
await push('enterpriseZone', [zone('111111111', '+14:00'), zone('222222222', '-12:00')])

t.test('periods of every enterprise carry their companyCode; one named, its own', async (t) => {
  const all = (await call('/prevent/troubleshootTask/periods', { from: '2026-01-04', to: '2026-01-06' })).data
  t.same(
    all.list.map((item: any) => [item.companyCode, item.id, item.status]),
    [
      ['111111111', 'T-1@a', 'done'],
      ['222222222', 'T-1@a', 'done'],
      ['111111111', 'T-1@b', 'missed'],
    ],
  )
  const one = (await call('/prevent/troubleshootTask/periods', { from: '2026-01-04', to: '2026-01-04', companyCode: '222222222' })).data
  t.same(
    one.list.map((item: any) => [item.companyCode, item.doneLate]),
    [['222222222', true]],
    'its period started on 4 January in the zone it pushed (-12:00)',
  )
  const next = (await call('/prevent/troubleshootTask/periods', { from: '2026-01-05', to: '2026-01-06', companyCode: '222222222' })).data
  t.same(next.list, [], 'and not on 5 January')
  const own = (await call('/prevent/troubleshootTask/periods', { from: '2026-01-05', to: '2026-01-06' }, enterpriseToken)).data
  t.same(new Set(own.list.map((item: any) => item.companyCode)), new Set(['111111111']))
  const other = await call(
    '/prevent/troubleshootTask/periods',
    { from: '2026-01-05', to: '2026-01-06', companyCode: '222222222' },
    enterpriseToken,
  )
  t.equal(other.code, 2003)
})

t.test('indicators per enterprise, ordered by a figure, ties by companyCode; lastPushTime in place of sync', async (t) => {
  const { list } = (
    await call('/system/indicators', { from: '2026-01-04', to: '2026-01-06', orderBy: [{ field: 'inspections.completionRate' }] })
  ).data
  t.same(
    list.map((entry: any) => [entry.companyCode, entry.inspections.due, entry.inspections.completionRate, entry.inspections.onTimeRate]),
    [
      ['111111111', 2, '0.5000', '0.5000'],
      ['222222222', 1, '1.0000', '0.0000'],
      ['333333333', 0, null, null],
    ],
    'a null rate last',
  )
  t.match(list[0].lastPushTime, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00$/, 'the time of its last push')
  t.equal(list[2].lastPushTime, null, 'an enterprise with an account and no push')
  t.notOk('sync' in list[0])
  const bySync = await call('/system/indicators', { from: '2026-01-04', to: '2026-01-06', orderBy: [{ field: 'sync.pending' }] })
  t.equal(bySync.code, 1002, "the enterprise's figure, which the park's entries do not have")
  const later = (await call('/system/indicators', { from: '2026-01-05', to: '2026-01-06', companyCode: '222222222' })).data
  t.equal(later.list[0].inspections.due, 0, "222222222's period started on 4 January in its zone (-12:00)")
  const descending = (
    await call('/system/indicators', {
      from: '2026-01-04',
      to: '2026-01-06',
      orderBy: [{ field: 'inspections.completionRate', direction: 'desc' }],
    })
  ).data
  t.same(
    descending.list.map((entry: any) => entry.companyCode),
    ['222222222', '111111111', '333333333'],
    'nulls last, descending too',
  )
})

t.test("hidden dangers are overdue in each enterprise's zone", async (t) => {
  const { list } = (await call('/system/indicators', { from: '2026-01-05', to: '2026-01-06' })).data
  t.same(
    list.map((entry: any) => [entry.companyCode, entry.dangers.open, entry.dangers.overdue]),
    [
      ['111111111', 1, 1],
      ['222222222', 1, 0],
      ['333333333', 0, 0],
    ],
  )
  const overdue = (await call('/prevent/troubleshootInfo/search', { conditions: [{ field: 'overdue', op: 'eq', value: true }] })).data
  t.same(
    overdue.list.map((item: any) => item.companyCode),
    ['111111111'],
  )
})

t.test('an enterprise account reads its own indicators; an unknown enterprise gives an empty list', async (t) => {
  const own = (await call('/system/indicators', { from: '2026-01-05', to: '2026-01-06' }, enterpriseToken)).data
  t.same(
    own.list.map((entry: any) => entry.companyCode),
    ['111111111'],
  )
  t.same((await call('/system/indicators', { from: '2026-01-05', to: '2026-01-06', companyCode: '999999999' })).data, { list: [] })
})

t.test('calendar/get on the park names the enterprise; calendar/set is the enterprise edition’s', async (t) => {
  t.equal((await call('/system/calendar/get', { year: 2026 })).code, 1002)
  t.same((await call('/system/calendar/get', { year: 2026, companyCode: '111111111' })).data, {
    year: 2026,
    holidays: [],
    workdays: [],
    default: true,
  })
  t.equal((await call('/system/calendar/set', { year: 2026, holidays: [], workdays: [] })).code, 2003)
})

t.test('pushed facts are applied by version like records: a late one changes nothing; a bad one fails alone', async (t) => {
  const stale = await call('/system/push/records', { resource: 'enterpriseZone', list: [zone('111111111', '+08:00', 1)] })
  t.same(stale.data.held, [{ id: '111111111', index: 0, version: 1 }], 'the version held, not the late one applied')
  const newer = await call('/system/push/records', {
    resource: 'enterpriseZone',
    list: [zone('222222222', 'Not/AZone', 2), zone('222222222', '-12:00', 2), { ...zone('222222222', '+01:00'), id: '1' }],
  })
  t.same(
    newer.data.failed.map((failure: any) => [failure.index, failure.code]),
    [
      [0, 1002],
      [2, 1002],
    ],
  )
  t.same(newer.data.held, [{ id: '222222222', index: 1, version: 2 }])
  const calendar = {
    id: '2026',
    companyCode: '111111111',
    year: 2026,
    holidays: ['2026-01-05'],
    workdays: [],
    updateTime: '2026-01-01T00:00:00Z',
  }
  await push('workCalendar', [{ ...calendar, version: 1, deleted: false }])
  t.same((await call('/system/calendar/get', { year: 2026, companyCode: '111111111' })).data, {
    year: 2026,
    holidays: ['2026-01-05'],
    workdays: [],
    default: false,
  })
  const mismatched = await call('/system/push/records', {
    resource: 'workCalendar',
    list: [{ ...calendar, id: '2025', version: 2, deleted: false }],
  })
  t.equal(mismatched.data.failed[0].code, 1002, 'the id of a calendar year is its year')
  const early = { ...calendar, id: '100', year: 100, holidays: ['0100-01-01'], version: 1, deleted: false }
  await push('workCalendar', [early])
  t.same(
    (await call('/system/calendar/get', { year: 100, companyCode: '111111111' })).data.holidays,
    ['0100-01-01'],
    'a year of three digits is its id as the enterprise writes it',
  )
  const other = await call(
    '/system/push/records',
    { resource: 'inspectionPeriod', list: [period('222222222', 'T-2@a', '2026-01-05T08:00:00+08:00', '2026-01-06T08:00:00+08:00', null)] },
    enterpriseToken,
  )
  t.equal(other.data.failed[0].code, 2003, "an enterprise account pushes its own enterprise's facts only")
})

t.end()
