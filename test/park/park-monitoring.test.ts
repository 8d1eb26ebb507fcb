// Live monitoring on the park: every alarm change reaches the park like a record (its handling
// included, with its history), readings arrive as one-minute aggregates equal to the enterprise's,
// nothing is lost while the park is down, and the park's reads and overview span its enterprises.
import t from 'tap'
import { pushedRecord, record } from '../helpers/fixtures.ts'
import { eventually, loginTo, post, pushingTo, startParkProcess } from '../helpers/park.ts'
import { startService } from '../helpers/service.ts'

const COMPANY = '000000000'
const NO_THRESHOLDS = { oneLevelHigh: '', twoLevelHigh: '', oneLevelLow: '', twoLevelLow: '' }
const OTHER = '320115009'

const park = await startParkProcess(t)
const enterprise = await startService(t, {
  env: pushingTo(park.url, { SYNC_RETRY_DELAY_MAX_SECONDS: '1', SYNC_FAILED_RETRY_SECONDS: '0', SYNC_PARK_PROBE_MS: '200' }),
})
const token = await enterprise.login()
let parkToken = await loginTo(park.url)

const onEnterprise = async (path: string, body: unknown, as = token) => {
  const answer = (await enterprise.call(path, body, { token: as })).body
  if (answer.code !== 0) throw new Error(`${path} answered ${answer.code}: ${answer.msg}`)
  return answer.data
}
const onPark = (path: string, body: unknown) => post(`${park.url}${path}`, body, parkToken)

/** Readings in the past, whole seconds: `[seconds before the base, value]`. */
const base = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
const at = (seconds: number) => new Date(base + seconds * 1000).toISOString()
const send = (id: string, readings: [number, string, number?][]) =>
  onEnterprise('/hazard/monitorData/add-batch', {
    list: readings.map(([seconds, value, quality]) => ({ monitorEquipId: id, time: at(seconds), value, quality: quality ?? 0 })),
  })

/** An alarm as both editions read it, but its push state. */
const comparable = ({ sync_status, sync_time, sync_error, ...alarm }: any) => alarm

await onEnterprise('/hazard/monitorEquip/add', record('monitorEquip', 'PM-1', { oneLevelHigh: '1.6', twoLevelHigh: '2.0' }))
await onEnterprise('/hazard/monitorEquip/add', record('monitorEquip', 'PM-2', { rangeMin: '0', rangeMax: '100', ...NO_THRESHOLDS }))

async function parkAlarm(id: string, until: (alarm: any) => boolean) {
  return eventually(
    async () => {
      const answer = await onPark('/hazard/monitorAlarm/getById', { id })
      return answer.code === 0 && until(answer.data) ? answer.data : undefined
    },
    { timeoutMs: 60_000, everyMs: 100, what: `alarm ${id} on the park` },
  )
}

t.test('an alarm raised on the enterprise is read on the park, its acknowledgement and disposal follow', async (t) => {
  await send('PM-1', [
    [0, '1.0'],
    [10, '1.7'],
    [20, '2.1'],
  ])
  const [raised] = (
    await onEnterprise('/hazard/monitorAlarm/search', { conditions: [{ field: 'monitorEquipId', op: 'eq', value: 'PM-1' }] })
  ).list
  t.match(raised, { kind: 'high', level: 2, status: 'active' })
  const held = await parkAlarm(raised.id, (alarm) => alarm.level === 2)
  t.same(comparable(held), comparable(raised), 'the park holds the alarm field for field')

  const operator = await enterprise.userToken('operator', 'op-park')
  await onEnterprise('/hazard/monitorAlarm/acknowledge', { id: raised.id }, operator)
  const acknowledged = await parkAlarm(raised.id, (alarm) => alarm.handling === 'acknowledged')
  t.equal(acknowledged.acknowledgedBy, 'op-park')

  await onEnterprise('/hazard/monitorAlarm/dispose', { id: raised.id, cause: '1', measures: 'valve closed' }, operator)
  const disposed = await parkAlarm(raised.id, (alarm) => alarm.handling === 'disposed')
  t.same(comparable(disposed), comparable(await onEnterprise('/hazard/monitorAlarm/getById', { id: raised.id })))
  t.match(disposed.disposal, { cause: '1', measures: 'valve closed', disposedBy: 'op-park' })

  const history = await onPark('/hazard/monitorAlarm/history', { id: raised.id })
  t.equal(history.code, 0)
  const names = history.data.list.map((entry: any) => entry.userName)
  t.equal(names.at(-1), 'system', 'the raising is the service’s own')
  t.equal(names[0], 'op-park', 'the disposal is named after the enterprise user who wrote it')

  const listed = await onPark('/hazard/monitorAlarm/search', { conditions: [{ field: 'companyCode', op: 'eq', value: COMPANY }] })
  t.ok(listed.data.list.some((alarm: any) => alarm.id === raised.id))

  await eventually(
    async () => {
      const status = (await enterprise.call('/system/sync/status', {}, { token })).body.data
      const alarms = status.resources.find((counts: any) => counts.resource === 'monitorAlarm')
      return alarms && alarms.pending === 0 && alarms.synced >= 1 ? alarms : undefined
    },
    { timeoutMs: 30_000, what: 'the alarms counted synced in /system/sync/status' },
  )
  const metrics = await (await fetch(`${enterprise.url}/metrics`)).text()
  t.match(metrics, /resource="monitorAlarm"/, '/metrics counts the alarms')
})

t.test("an alarm's photo is read on the park, its bytes as sent; an enterprise account reads its own", async (t) => {
  const [alarm] = (
    await onEnterprise('/hazard/monitorAlarm/search', { conditions: [{ field: 'monitorEquipId', op: 'eq', value: 'PM-1' }] })
  ).list
  const content = Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
    Buffer.from('a photo of the gauge'),
    Buffer.from([0xff, 0xd9]),
  ]).toString('base64')
  const photo = { id: 'PM-PHOTO', recordId: alarm.id, fileName: 'gauge.jpg', contentType: 'image/jpeg', content }
  await onEnterprise('/hazard/monitorAlarm/attachment/add', photo)
  const listed = await eventually(
    async () => {
      const answer = await onPark('/hazard/monitorAlarm/attachment/list', { recordId: alarm.id, companyCode: COMPANY })
      return answer.code === 0 && answer.data.total === 1 ? answer.data.list : undefined
    },
    { timeoutMs: 60_000, everyMs: 100, what: "the alarm's photo on the park" },
  )
  t.match(listed, [{ id: 'PM-PHOTO', recordId: alarm.id, fileName: 'gauge.jpg', companyCode: COMPANY }])
  const got = await onPark('/hazard/monitorAlarm/attachment/get', { id: 'PM-PHOTO' })
  t.equal(got.code, 0, got.msg)
  t.equal(got.data.content, content, 'the bytes the enterprise sent')

  const account = await onPark('/system/user/add', {
    userName: 'ent-photo',
    password: 'password-photo',
    role: 'enterprise',
    companyCode: COMPANY,
  })
  t.equal(account.code, 0)
  const own = await loginTo(park.url, 'ent-photo', 'password-photo')
  t.equal((await post(`${park.url}/hazard/monitorAlarm/attachment/list`, { recordId: alarm.id }, own)).data.total, 1, 'its own')
  const other = await post(`${park.url}/hazard/monitorAlarm/attachment/get`, { id: 'PM-PHOTO', companyCode: OTHER }, own)
  t.equal(other.code, 2003, 'another enterprise named')
})

/** The enterprise's and the park's aggregates of these points over [from, to), by bucket. */
async function aggregates(ids: string[], from: number, to: number, bucket: string) {
  const body = { monitorEquipIds: ids, from: at(from), to: at(to), bucket }
  const mine = await onEnterprise('/hazard/monitorData/aggregate', body)
  const parks = await onPark('/hazard/monitorData/aggregate', body)
  return { mine: mine.list, parks: parks.code === 0 ? parks.data.list.map(({ companyCode, ...entry }: any) => entry) : parks }
}

async function sameAggregates(t: any, ids: string[], from: number, to: number) {
  for (const bucket of ['1m', '10m', '1h']) {
    const result = await eventually(
      async () => {
        const { mine, parks } = await aggregates(ids, from, to, bucket)
        return JSON.stringify(mine) === JSON.stringify(parks) ? mine : undefined
      },
      { timeoutMs: 60_000, everyMs: 200, what: `the park's ${bucket} aggregates to equal the enterprise's` },
    )
    t.ok(
      result.every((entry: any) => entry.buckets.length > 0),
      `${bucket}: every point has buckets, equal on both`,
    )
  }
}

t.test('the park aggregates the pushed minutes as the enterprise aggregates its readings', async (t) => {
  await send('PM-2', [
    [120, '10.50'],
    [125, '10.5'],
    [130, '3'],
    [185, '-0.25'],
    [190, '7.125'],
    [300, '4.0'],
    [305, '5'],
    [310, '4'],
    [700, '42'],
    [705, '41.9', 1],
  ])
  // A late reading, older than those stored: its minute is pushed again.
  await send('PM-2', [[150, '99.999']])
  await sameAggregates(t, ['PM-2', 'PM-1'], 0, 3600)

  const latest = await eventually(
    async () => {
      const answer = await onPark('/hazard/monitorData/latest', { monitorEquipIds: ['PM-2'] })
      return answer.data?.list[0]?.value === '41.9' ? answer.data.list[0] : undefined
    },
    { timeoutMs: 30_000, what: 'the newest minute on the park' },
  )
  t.match(latest, { companyCode: COMPANY, monitorEquipId: 'PM-2', quality: 1 })
  t.equal(Date.parse(latest.time), base + 660_000)
  t.same(
    latest.time,
    (await onPark('/hazard/monitorData/aggregate', { monitorEquipIds: ['PM-2'], from: at(600), to: at(720), bucket: '1m' })).data.list[0]
      .buckets[0].time,
    'at that minute’s time',
  )
})

t.test('with the park stopped, readings and alarm changes wait and all arrive once it is back', async (t) => {
  await park.stop()
  await send('PM-2', [
    [1200, '5'],
    [1201, '6'],
    [1500, '150'],
    [1561, '50'],
  ])
  await send('PM-1', [[1800, '1.0']])
  await park.start()
  parkToken = await loginTo(park.url)
  await sameAggregates(t, ['PM-1', 'PM-2'], 0, 3600)
  await eventually(
    async () => /^park_push_backlog\{stream="readingMinutes"\} 0$/m.test(await (await fetch(`${enterprise.url}/metrics`)).text()),
    { timeoutMs: 30_000, what: 'no minute left waiting, in /metrics' },
  )
  t.pass('every minute noted while the park was down was pushed and forgotten')
  const alarms = await onEnterprise('/hazard/monitorAlarm/search', { conditions: [{ field: 'monitorEquipId', op: 'eq', value: 'PM-2' }] })
  t.ok(alarms.list.length > 0, 'the out-of-range excursion raised an alarm')
  for (const alarm of alarms.list) {
    t.same(comparable(await parkAlarm(alarm.id, (held) => held.version === alarm.version)), comparable(alarm))
  }
})

t.test('the park spans its enterprises: 1002 for a point id several hold, each entry with its companyCode', async (t) => {
  const minute = {
    companyCode: OTHER,
    monitorEquipId: 'PM-2',
    minute: at(120),
    min: '1',
    max: '3',
    avg: '2',
    sum: '4',
    last: '3',
    lastQuality: 0,
    count: 2,
  }
  const fraction = at(120).replace('.000Z', '.500Z')
  const pushed = await onPark('/system/push/readings', {
    list: [minute, { ...minute, minute: at(121) }, { ...minute, minute: fraction }, { ...minute, minute: at(180), count: 2 ** 31 }],
  })
  t.same(
    pushed.data,
    {
      applied: 1,
      failed: [
        { index: 1, code: 1002, reason: 'minute: must be the start of a minute (seconds 0)' },
        { index: 2, code: 1002, reason: 'minute: must be the start of a minute (seconds 0)' },
        { index: 3, code: 1002, reason: 'count: must be at most 2147483647' },
      ],
    },
    'each refused alone, the valid minute applied',
  )
  await onPark('/system/push/records', { resource: 'monitorEquip', list: [pushedRecord('monitorEquip', 'PM-2', { companyCode: OTHER })] })

  const body = { monitorEquipIds: ['PM-2'], from: at(0), to: at(3600), bucket: '1m' }
  const refused = await onPark('/hazard/monitorData/aggregate', body)
  t.equal(refused.code, 1002)
  t.match(refused.msg, /companyCode/)
  t.equal((await onPark('/hazard/monitorData/latest', { monitorEquipIds: ['PM-2'] })).code, 1002)
  const other = await onPark('/hazard/monitorData/aggregate', { ...body, companyCode: OTHER })
  const [entry] = other.data.list
  t.match(entry, { monitorEquipId: 'PM-2', companyCode: OTHER })
  t.same(
    entry.buckets.map((bucket: any) => ({ ...bucket, time: Date.parse(bucket.time) })),
    [{ time: base + 120_000, min: '1', max: '3', avg: '2', last: '3', count: 2 }],
  )
  const hourOf = async () =>
    (await onPark('/hazard/monitorData/aggregate', { ...body, bucket: '1h', companyCode: OTHER })).data.list[0].buckets.map((bucket: any) =>
      Date.parse(bucket.time),
    )
  t.same(await hourOf(), [base], "before the enterprise pushed its zone: hours of the park's zone")
  const zone = { id: OTHER, companyCode: OTHER, timeZone: '+05:30', updateTime: at(0), version: 1, deleted: false }
  t.same((await onPark('/system/push/records', { resource: 'enterpriseZone', list: [zone] })).data.failed, [])
  t.same(await hourOf(), [base - 1_800_000], 'then hours of the zone it pushed, half past in UTC')
  const everyone = await onPark('/hazard/monitorData/latest', { pageSize: 100 })
  t.same(
    everyone.data.list.map((entry: any) => `${entry.companyCode}/${entry.monitorEquipId}`),
    [`${COMPANY}/PM-1`, `${COMPANY}/PM-2`, `${OTHER}/PM-2`],
  )
})

t.test('enterprise/list counts active alarms (shelved left out) by kind and level, and offline points', async (t) => {
  const alarm = (id: string, fields: Record<string, unknown>) => ({
    id,
    companyCode: OTHER,
    createTime: at(0),
    updateTime: at(0),
    createBy: 'system',
    updateBy: 'system',
    version: 1,
    deleted: false,
    monitorEquipId: id,
    monitorCode: id,
    monitorName: id,
    level: null,
    maxLevel: null,
    threshold: null,
    startTime: at(0),
    startValue: null,
    peakValue: null,
    endTime: null,
    endValue: null,
    status: 'active',
    handling: 'raised',
    acknowledgedBy: null,
    acknowledgedTime: null,
    disposal: null,
    shelved: false,
    ...fields,
  })
  const pushed = await onPark('/system/push/records', {
    resource: 'monitorAlarm',
    list: [
      alarm('X-1', { kind: 'high', level: 2, maxLevel: 2 }),
      alarm('X-2', { kind: 'high', level: 1, maxLevel: 1 }),
      alarm('X-3', { kind: 'high', level: 1, maxLevel: 2 }),
      alarm('X-4', { kind: 'offline' }),
      alarm('X-5', { kind: 'offline', shelved: true }),
      alarm('X-6', { kind: 'fault', status: 'cleared' }),
      alarm('X-7', { kind: 'low', level: 1, maxLevel: 1, shelved: true }),
    ],
  })
  t.equal(pushed.data.failed.length, 0, JSON.stringify(pushed.data.failed))
  const deletion = await onPark('/system/push/records', {
    resource: 'monitorAlarm',
    list: [alarm('X-1', { kind: 'high', version: 2, deleted: true })],
  })
  t.match(deletion.data.failed, [{ id: 'X-1', index: 0, code: 1002, reason: /deleted/ }], 'an alarm is never deleted: refused alone')

  // An alarm first arriving disposed: its add entry holds the disposal as pushed, null members included.
  const disposal = { cause: '2', measures: 'recalibrated', disposedBy: 'op', disposedTime: at(5), troubleshootInfoId: null }
  const late = alarm('X-8', { kind: 'fault', status: 'cleared', handling: 'disposed', disposal, updateBy: 'op', version: 3 })
  t.same((await onPark('/system/push/records', { resource: 'monitorAlarm', list: [late] })).data.failed, [])
  const [entry] = (await onPark('/hazard/monitorAlarm/history', { id: 'X-8' })).data.list
  t.match(entry, { version: 3, action: 'add', userName: 'op' })
  t.same(entry.changes.disposal[1], {
    ...disposal,
    disposedTime: (await onPark('/hazard/monitorAlarm/getById', { id: 'X-8' })).data.disposal.disposedTime,
  })
  t.same(entry.changes.endTime, undefined, 'a field not set is left out')
  const list = (await onPark('/system/enterprise/list', {})).data.list
  const other = list.find((entry: any) => entry.companyCode === OTHER)
  t.equal(other.activeAlarms, 4)
  t.same(other.activeAlarmsByKind, [
    { kind: 'high', level: 1, count: 2 },
    { kind: 'high', level: 2, count: 1 },
    { kind: 'offline', level: null, count: 1 },
  ])
  t.equal(other.offlinePoints, 2, 'shelved points included')

  await send('PM-2', [[2000, '200']])
  const mine = await eventually(
    async () => {
      const entries = (await onPark('/system/enterprise/list', {})).data.list
      const entry = entries.find((candidate: any) => candidate.companyCode === COMPANY)
      return entry.activeAlarmsByKind[0]?.kind === 'outOfRange' ? entry : undefined
    },
    { timeoutMs: 30_000, what: 'the enterprise’s active out-of-range alarm counted on the park' },
  )
  t.equal(mine.activeAlarms, 1, 'the cleared high alarm no longer counts')
  t.same(mine.activeAlarmsByKind, [{ kind: 'outOfRange', level: null, count: 1 }])
  t.equal(mine.offlinePoints, 0)
})
t.test("equal numbers spelled differently across minutes: the park's last is the earliest spelling, as the enterprise's", async (t) => {
  await onEnterprise(
    '/hazard/monitorEquip/add',
    record('monitorEquip', 'PM-3', { rangeMin: '-10', rangeMax: '100', offlineAfterSeconds: 0, ...NO_THRESHOLDS }),
  )
  await send('PM-3', [
    [2000, '7.0'],
    [2060, '7'],
    [2070, '5'],
    [2130, '5.00'],
    [2400, '-0'],
    [2460, '0'],
    [2520, '-0.00'],
  ])
  await sameAggregates(t, ['PM-3'], 0, 3600)
  const { mine } = await aggregates(['PM-3'], 0, 3600, '10m')
  t.same(
    mine[0].buckets.map((bucket: any) => bucket.last),
    ['5', '-0'],
    'each bucket: the earliest spelling of its newest number',
  )
  const reversed = await onPark('/hazard/monitorData/aggregate', { monitorEquipIds: ['PM-3'], from: at(600), to: at(0), bucket: '1m' })
  t.match(reversed, { code: 1002, msg: 'to: must not be before from' }, 'to before from, on the park too')
})

t.test('an offline alarm raised by the timer wakes the push, as a write does, and reaches the park', async (t) => {
  await onEnterprise('/hazard/monitorEquip/add', record('monitorEquip', 'PM-4', { offlineAfterSeconds: 10, ...NO_THRESHOLDS }))
  // Offline counts from the reading's arrival. Once its minute is pushed, nothing of the reading
  // wakes the push any more (a minute held back wakes it once more, later).
  await send('PM-4', [[3000, '1']])
  await eventually(
    async () => /^park_push_backlog\{stream="readingMinutes"\} 0$/m.test(await (await fetch(`${enterprise.url}/metrics`)).text()),
    { timeoutMs: 30_000, what: 'the minute of the reading pushed' },
  )
  const push = enterprise.app.push!
  const wake = push.wake.bind(push)
  let wakes = 0
  push.wake = () => {
    wakes++
    return wake()
  }
  t.teardown(() => {
    push.wake = wake
  })
  const [offline] = await eventually(
    async () => {
      const { list } = await onEnterprise('/hazard/monitorAlarm/search', {
        conditions: [{ field: 'monitorEquipId', op: 'eq', value: 'PM-4' }],
      })
      return list.length > 0 ? list : undefined
    },
    { timeoutMs: 40_000, what: 'the offline alarm of PM-4' },
  )
  t.match(offline, { kind: 'offline', status: 'active' })
  await eventually(async () => wakes > 0 || undefined, { timeoutMs: 60_000, what: 'a wake of the push after the sweep raised it' })
  t.same(comparable(await parkAlarm(offline.id, (held) => held.version === offline.version)), comparable(offline))
})

t.end()
