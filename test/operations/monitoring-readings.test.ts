// Readings in: hazard/monitorData/add-batch stores each reading once per point and instant, refuses
// bad ones alone, and judges the stored ones into alarms in reading-time order, state kept between
// calls. Alarm reads (list, search, getById, history) show what evaluation did.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()
const call = (path: string, body: unknown, as = token) => service.call(path, body, { token: as })
const send = async (list: unknown[], as = token) => {
  const reply = await call('/hazard/monitorData/add-batch', { list }, as)
  if (reply.body.code !== 0) throw new Error(`add-batch answered ${reply.body.code}: ${reply.body.msg}`)
  return reply.body.data
}
const now = Date.now()
/** An instant `seconds` from a base one hour ago, in UTC. */
const at = (seconds: number) => new Date(Math.floor(now / 1000) * 1000 - 3600_000 + seconds * 1000).toISOString().replace('.000Z', 'Z')
const reading = (id: string, seconds: number, value: string, quality?: 0 | 1) => ({
  monitorEquipId: id,
  time: at(seconds),
  value,
  ...(quality === undefined ? {} : { quality }),
})

async function equipment(id: string, overrides: Record<string, unknown> = {}) {
  const fields = {
    rangeMin: '0',
    rangeMax: '100',
    twoLevelLow: '10',
    oneLevelLow: '20',
    oneLevelHigh: '80',
    twoLevelHigh: '90',
    ...overrides,
  }
  const reply = await call('/hazard/monitorEquip/add', record('monitorEquip', id, fields))
  if (reply.body.code !== 0) throw new Error(`monitorEquip/add answered ${reply.body.code}: ${reply.body.msg}`)
}
const alarmsOf = async (id: string) =>
  (
    await call('/hazard/monitorAlarm/search', {
      conditions: [{ field: 'monitorEquipId', op: 'eq', value: id }],
      orderBy: [{ field: 'startTime', direction: 'asc' }],
      pageSize: 100,
    })
  ).body.data.list

await equipment('P-1')

t.test('readings are stored once per point and instant; refusals fail alone; the counts add up', async (t) => {
  const data = await send([
    reading('P-1', 0, '50'),
    reading('P-1', 1, '51'),
    { monitorEquipId: 'P-1', time: at(0).replace('Z', '+00:00'), value: '99' },
    reading('NOPE', 0, '1'),
    reading('P-1', 2, ''),
    { monitorEquipId: 'P-1', time: new Date(now + 10 * 60_000).toISOString(), value: '1' },
    { monitorEquipId: 'P-1', time: new Date(now - 91 * 86_400_000).toISOString(), value: '1' },
    { monitorEquipId: 'P-1', time: at(3), value: '1', extra: true },
  ])
  t.equal(data.accepted, 2)
  t.equal(data.duplicates, 1, 'the same instant with another offset is a duplicate')
  t.same(
    data.failed.map((failure: any) => [failure.index, failure.code]),
    [
      [3, 1006],
      [4, 1002],
      [5, 1002],
      [6, 1002],
      [7, 1002],
    ],
  )
  t.match(data.failed[2].reason, /5 minutes ahead/)
  t.match(data.failed[3].reason, /retention/)
  const again = await send([reading('P-1', 0, '77')])
  t.same(again, { accepted: 0, duplicates: 1, failed: [] }, 'a repeat in a later call is a duplicate too')
  const stored = await call('/hazard/monitorData/list', { monitorEquipId: 'P-1', from: at(0), to: at(10) })
  t.same(
    stored.body.data.list.map((item: any) => item.value),
    ['50', '51'],
    'the first value stays',
  )
})

t.test('a refused reading names its point only by an identifier: text that is not one is answered null', async (t) => {
  const data = await send([
    { monitorEquipId: 'A\u0000B', time: at(0), value: '1' },
    { monitorEquipId: 'x'.repeat(65), time: at(0), value: '1' },
    { monitorEquipId: 42, time: at(0), value: '1' },
    'x',
  ])
  t.same(
    data.failed.map((failure: any) => [failure.index, failure.monitorEquipId, failure.code]),
    [
      [0, null, 1002],
      [1, null, 1002],
      [2, null, 1002],
      [3, null, 1002],
    ],
  )
  t.equal(data.failed[3].reason, 'item: must be object')
})

t.test('a batch sent again with its Idempotency-Key is answered as the first time', async (t) => {
  const body = { list: [reading('P-1', 700, '3'), reading('P-1', 701, '4')] }
  const headers = { 'idempotency-key': 'gateway-batch-700' }
  const first = await service.call('/hazard/monitorData/add-batch', body, { token, headers })
  const again = await service.call('/hazard/monitorData/add-batch', body, { token, headers })
  t.same(first.body.data, { accepted: 2, duplicates: 0, failed: [] })
  t.same(again.body, first.body)
  const other = await service.call('/hazard/monitorData/add-batch', { list: [reading('P-1', 702, '5')] }, { token, headers })
  t.equal(other.body.code, 1007)
})

t.test('the batch size is 1..5000 (1005 beyond, nothing stored)', async (t) => {
  t.equal((await call('/hazard/monitorData/add-batch', { list: [] })).body.code, 1005)
  const many = Array.from({ length: 5001 }, (_, i) => reading('P-1', 100 + i, '1'))
  t.equal((await call('/hazard/monitorData/add-batch', { list: many })).body.code, 1005)
})

t.test('a high alarm rises to level 2 and falls back within one alarm, then clears; each change is in its history', async (t) => {
  await equipment('P-H')
  await send([reading('P-H', 0, '85'), reading('P-H', 1, '95.0')])
  await send([reading('P-H', 2, '84'), reading('P-H', 3, '50')])
  const [alarm] = await alarmsOf('P-H')
  t.match(alarm, {
    kind: 'high',
    level: 1,
    maxLevel: 2,
    threshold: '80',
    startValue: '85',
    peakValue: '95.0',
    status: 'cleared',
    endValue: '50',
    handling: 'raised',
    shelved: false,
    createBy: 'system',
    monitorCode: record('monitorEquip', 'P-H').monitorCode,
  })
  t.equal(new Date(alarm.startTime).getTime(), new Date(at(0)).getTime(), 'starts at the first reading over the threshold')
  t.match(alarm.startTime, /\+08:00$/, 'instants in the configured zone')
  const byId = await call('/hazard/monitorAlarm/getById', { id: alarm.id })
  t.same(byId.body.data, alarm)
  const history = (await call('/hazard/monitorAlarm/history', { id: alarm.id })).body.data
  t.same(
    history.list.map((entry: any) => [entry.action, entry.userName, Object.keys(entry.changes).sort().join(',')]),
    [
      ['update', 'system', 'endTime,endValue,status'],
      ['update', 'system', 'level,threshold'],
      ['update', 'system', 'level,maxLevel,peakValue,threshold'],
      [
        'add',
        'system',
        'id,kind,level,maxLevel,monitorCode,monitorEquipId,monitorName,peakValue,shelved,startTime,startValue,status,handling,threshold'
          .split(',')
          .sort()
          .join(','),
      ],
    ],
  )
})

t.test('on-delay holds across calls: the state is kept between batches', async (t) => {
  await equipment('P-D', { alarmDelaySeconds: 10 })
  await send([reading('P-D', 0, '85')])
  await send([reading('P-D', 5, '86')])
  t.same(await alarmsOf('P-D'), [])
  await send([reading('P-D', 10, '87')])
  const [alarm] = await alarmsOf('P-D')
  t.match(alarm, { kind: 'high', startValue: '85', peakValue: '87', status: 'active' })
  t.equal(new Date(alarm.startTime).getTime(), new Date(at(0)).getTime())
})

t.test('a late reading is stored but changes no alarm', async (t) => {
  await equipment('P-L')
  await send([reading('P-L', 10, '50')])
  await send([reading('P-L', 5, '99')])
  t.same(await alarmsOf('P-L'), [])
  const stored = await call('/hazard/monitorData/list', { monitorEquipId: 'P-L', from: at(0), to: at(20) })
  t.equal(stored.body.data.list.length, 2)
})

t.test('the collector role sends readings and nothing else', async (t) => {
  const collector = await service.userToken('collector')
  t.equal((await send([reading('P-1', 500, '1')], collector)).accepted, 1)
  const refused = await call('/hazard/monitorAlarm/list', {}, collector)
  t.equal(refused.status, 403)
  t.equal(refused.body.code, 2003)
  const viewer = await service.userToken('viewer')
  t.equal((await call('/hazard/monitorData/add-batch', { list: [reading('P-1', 501, '1')] }, viewer)).body.code, 2003)
})
t.test('the alarm settings of the equipment: optional, within their ranges (1002 otherwise)', async (t) => {
  const add = async (id: string, fields: Record<string, unknown>) =>
    (await call('/hazard/monitorEquip/add', record('monitorEquip', id, fields))).body.code
  t.equal(await add('E-1', { alarmDeadband: '0.5', alarmDelaySeconds: 3600, offlineAfterSeconds: 0, frozenAfterSeconds: 86_400 }), 0)
  t.equal(await add('E-2', { offlineAfterSeconds: 10, frozenAfterSeconds: 60, alarmDelaySeconds: 0, alarmDeadband: '0' }), 0)
  for (const [field, value] of [
    ['alarmDeadband', '-1'],
    ['alarmDeadband', ''],
    ['alarmDeadband', 1],
    ['alarmDelaySeconds', 3601],
    ['alarmDelaySeconds', -1],
    ['offlineAfterSeconds', 9],
    ['offlineAfterSeconds', 86_401],
    ['frozenAfterSeconds', 59],
    ['frozenAfterSeconds', 1.5],
  ] as const) {
    t.equal(await add(`E-${field}-${value}`, { [field]: value }), 1002, `${field} ${value}`)
  }
  const read = (await call('/hazard/monitorEquip/getById', { id: 'E-1' })).body.data
  t.match(read, { alarmDeadband: '0.5', alarmDelaySeconds: 3600, offlineAfterSeconds: 0, frozenAfterSeconds: 86_400 })
})

t.test('a reading of deleted equipment is refused alone (1006), though its point has readings', async (t) => {
  await equipment('P-GONE')
  await send([reading('P-GONE', 0, '50')])
  t.equal((await call('/hazard/monitorEquip/delete', { id: 'P-GONE' })).body.code, 0)
  const data = await send([reading('P-GONE', 1, '51'), reading('P-1', 100, '52')])
  t.equal(data.accepted, 1)
  t.same(
    data.failed.map((failure: any) => [failure.index, failure.monitorEquipId, failure.code]),
    [[0, 'P-GONE', 1006]],
  )
})

t.test('a restart loses nothing: another instance on the same database judges the next reading as one would have', async (t) => {
  await equipment('P-R', { alarmDelaySeconds: 10 })
  await send([reading('P-R', 0, '85')])
  const other = await startService(t, { databaseUrl: service.databaseUrl })
  const otherToken = await other.login()
  const reply = await other.call('/hazard/monitorData/add-batch', { list: [reading('P-R', 10, '86')] }, { token: otherToken })
  t.equal(reply.body.data.accepted, 1)
  const [alarm] = await alarmsOf('P-R')
  t.match(alarm, { kind: 'high', startValue: '85', status: 'active' })
})
t.end()
