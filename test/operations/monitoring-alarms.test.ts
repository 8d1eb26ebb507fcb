// Alarm handling and the service's own timers: acknowledge and dispose follow the handling state
// machine (1011 otherwise, 1006 for a hidden danger that is not live, 1004 for an unknown alarm);
// shelving flags the alarms raised meanwhile; offline is raised by the server's clock.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually } from '../helpers/eventually.ts'
import { startService } from '../helpers/service.ts'

let offset = 0
const service = await startService(t, { clock: () => Date.now() + offset })
const token = await service.login()
const call = async (path: string, body: unknown, as = token) => (await service.call(path, body, { token: as })).body
const must = async (path: string, body: unknown) => {
  const answer = await call(path, body)
  if (answer.code !== 0) throw new Error(`${path} answered ${answer.code}: ${answer.msg}`)
  return answer.data
}
const instant = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString()
const send = (id: string, value: string, ms = Date.now() + offset - 1000) =>
  must('/hazard/monitorData/add-batch', { list: [{ monitorEquipId: id, time: instant(ms), value }] })
const alarmsOf = async (id: string) =>
  (
    await must('/hazard/monitorAlarm/search', {
      conditions: [{ field: 'monitorEquipId', op: 'eq', value: id }],
      orderBy: [{ field: 'startTime', direction: 'asc' }],
    })
  ).list
/** The point's alarms once it has any (the offline sweep raises them on its own schedule). */
const firstAlarmsOf = (id: string, timeoutMs: number) =>
  eventually(
    async () => {
      const found = await alarmsOf(id)
      return found.length > 0 ? found : undefined
    },
    { timeoutMs, what: `an alarm of ${id}` },
  )

await must('/hazard/monitorEquip/add', record('monitorEquip', 'A-1', { oneLevelHigh: '1.6', twoLevelHigh: '2.0' }))

t.test('acknowledge then dispose; a repeated acknowledge changes nothing; other moves answer 1011', async (t) => {
  await send('A-1', '1.7', Date.now() - 60_000)
  const [alarm] = await alarmsOf('A-1')
  const operator = await service.userToken('operator', 'op-1')
  t.equal((await call('/hazard/monitorAlarm/acknowledge', { id: alarm.id }, operator)).code, 0)
  const acknowledged = await must('/hazard/monitorAlarm/getById', { id: alarm.id })
  t.match(acknowledged, { handling: 'acknowledged', acknowledgedBy: 'op-1' })
  t.match(acknowledged.acknowledgedTime, /\+08:00$/)
  t.equal((await call('/hazard/monitorAlarm/acknowledge', { id: alarm.id })).code, 0, 'again, by someone else: 0')
  t.same(await must('/hazard/monitorAlarm/getById', { id: alarm.id }), acknowledged, 'and nothing changed')
  t.equal(
    (await call('/hazard/monitorAlarm/dispose', { id: alarm.id, cause: '2', measures: 'recalibrated', troubleshootInfoId: 'TI-404' })).code,
    1006,
  )
  t.equal((await call('/hazard/monitorAlarm/dispose', { id: alarm.id, cause: '5', measures: 'x' })).code, 1002)
  t.equal((await call('/hazard/monitorAlarm/dispose', { id: alarm.id, cause: '2', measures: 'recalibrated' })).code, 0)
  const disposed = await must('/hazard/monitorAlarm/getById', { id: alarm.id })
  t.match(disposed, {
    handling: 'disposed',
    acknowledgedBy: 'op-1',
    disposal: { cause: '2', measures: 'recalibrated', disposedBy: 'admin', troubleshootInfoId: null },
  })
  t.equal((await call('/hazard/monitorAlarm/acknowledge', { id: alarm.id })).code, 1011)
  t.equal((await call('/hazard/monitorAlarm/dispose', { id: alarm.id, cause: '2', measures: 'again' })).code, 1011)
  const history = await must('/hazard/monitorAlarm/history', { id: alarm.id })
  t.same(
    history.list.slice(0, 2).map((entry: any) => [entry.userName, entry.changes.handling]),
    [
      ['admin', ['acknowledged', 'disposed']],
      ['op-1', ['raised', 'acknowledged']],
    ],
  )
  t.equal((await call('/hazard/monitorAlarm/getById', { id: 'no-such-alarm' })).code, 1004)
  t.equal((await call('/hazard/monitorAlarm/acknowledge', { id: 'no-such-alarm' })).code, 1004)
  t.equal((await call('/hazard/monitorAlarm/history', { id: 'no-such-alarm' })).code, 1004)
  const viewer = await service.userToken('viewer')
  t.equal((await call('/hazard/monitorAlarm/acknowledge', { id: alarm.id }, viewer)).code, 2003)
})

t.test('photos of the scene attach to an alarm like files to records', async (t) => {
  const [alarm] = await alarmsOf('A-1')
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
  const photo = { id: 'PH-1', recordId: alarm.id, fileName: 'scene.png', contentType: 'image/png', content: png }
  t.equal((await call('/hazard/monitorAlarm/attachment/add', { ...photo, id: 'PH-0', recordId: 'no-such-alarm' })).code, 1006)
  t.equal((await call('/hazard/monitorAlarm/attachment/add', photo)).code, 0)
  t.equal((await call('/hazard/monitorAlarm/attachment/add', photo)).code, 1003)
  const viewer = await service.userToken('viewer')
  t.equal((await call('/hazard/monitorAlarm/attachment/list', { recordId: alarm.id }, viewer)).data.total, 1)
  t.equal((await call('/hazard/monitorAlarm/attachment/add', { ...photo, id: 'PH-2' }, viewer)).code, 2003)
  const collector = await service.userToken('collector')
  t.equal((await call('/hazard/monitorAlarm/attachment/get', { id: 'PH-1' }, collector)).code, 2003)
  t.notOk('content' in (await must('/hazard/monitorAlarm/getById', { id: alarm.id })), 'the alarm reads carry no bytes')
})

t.test('raised → disposed leaves acknowledgedBy null; a cleared alarm may be handled', async (t) => {
  await must('/hazard/monitorEquip/add', record('monitorEquip', 'A-2', { oneLevelLow: '0.5' }))
  await send('A-2', '0.4', Date.now() - 50_000)
  await send('A-2', '1.0', Date.now() - 40_000)
  const [alarm] = await alarmsOf('A-2')
  t.equal(alarm.status, 'cleared')
  t.equal((await call('/hazard/monitorAlarm/dispose', { id: alarm.id, cause: '1', measures: 'valve closed' })).code, 0)
  t.match(await must('/hazard/monitorAlarm/getById', { id: alarm.id }), {
    handling: 'disposed',
    acknowledgedBy: null,
    acknowledgedTime: null,
  })
})

t.test('dispose links a live hidden danger', async (t) => {
  await must('/hazard/monitorEquip/add', record('monitorEquip', 'A-3', { oneLevelHigh: '1.6' }))
  await send('A-3', '1.9', Date.now() - 30_000)
  const [alarm] = await alarmsOf('A-3')
  // A hidden danger needs its chain of parents.
  const chain = ['riskUnit', 'riskEvents', 'riskMeasures', 'troubleshootTask', 'troubleshootRecord', 'troubleshootInfo']
  const parents: Record<string, [string, string]> = {
    riskEvents: ['riskUnitId', 'riskUnit-L'],
    riskMeasures: ['riskEventId', 'riskEvents-L'],
    troubleshootTask: ['riskMeasureId', 'riskMeasures-L'],
    troubleshootRecord: ['checkTaskId', 'troubleshootTask-L'],
    troubleshootInfo: ['checkRecordId', 'troubleshootRecord-L'],
  }
  for (const resource of chain) {
    const module = resource === 'monitorEquip' ? 'hazard' : 'prevent'
    const parent = parents[resource]
    const body = record(
      resource,
      `${resource}-L`,
      parent ? { [parent[0]]: parent[1], ...(resource === 'troubleshootInfo' ? { riskMeasureId: 'riskMeasures-L' } : {}) } : {},
    )
    await must(`/${module}/${resource}/add`, body)
  }
  t.equal(
    (
      await call('/hazard/monitorAlarm/dispose', {
        id: alarm.id,
        cause: '1',
        measures: 'rectify',
        troubleshootInfoId: 'troubleshootInfo-L',
      })
    ).code,
    0,
  )
  t.match(await must('/hazard/monitorAlarm/getById', { id: alarm.id }), { disposal: { troubleshootInfoId: 'troubleshootInfo-L' } })
})

t.test('shelving: until within 7 days ahead; alarms raised meanwhile are flagged and keep the flag', async (t) => {
  await must('/hazard/monitorEquip/add', record('monitorEquip', 'S-1', { oneLevelHigh: '1.6' }))
  const shelve = (until: number) =>
    call('/hazard/monitorEquip/shelve', { id: 'S-1', until: new Date(until).toISOString(), reason: 'work ticket' })
  t.equal((await shelve(Date.now() - 1000)).code, 1002, 'in the past')
  t.equal((await shelve(Date.now() + 8 * 86_400_000)).code, 1002, 'more than 7 days ahead')
  t.equal(
    (await call('/hazard/monitorEquip/shelve', { id: 'NOPE', until: new Date(Date.now() + 60_000).toISOString(), reason: 'x' })).code,
    1004,
  )
  t.equal((await shelve(Date.now() + 3600_000)).code, 0)
  t.equal((await shelve(Date.now() + 7200_000)).code, 0, 'again replaces until')
  await send('S-1', '1.7', Date.now() - 20_000)
  t.equal((await call('/hazard/monitorEquip/unshelve', { id: 'S-1' })).code, 0)
  t.equal((await call('/hazard/monitorEquip/unshelve', { id: 'S-1' })).code, 0, 'not shelved: 0')
  const [alarm] = await alarmsOf('S-1')
  t.equal(alarm.shelved, true)
  const [board] = (await must('/hazard/monitorData/latest', { monitorEquipIds: ['S-1'] })).list
  t.same(board.alarms, [{ id: alarm.id, kind: 'high', level: 1, shelved: true }])
  const shelved = await must('/hazard/monitorAlarm/search', { conditions: [{ field: 'shelved', op: 'eq', value: true }] })
  t.same(
    shelved.list.map((found: any) => found.id),
    [alarm.id],
    'searched by shelved',
  )
  t.equal((await call('/hazard/monitorAlarm/search', { conditions: [{ field: 'shelved', op: 'eq', value: 'yes' }] })).code, 1002)
})

t.test('equipment deleted with an alarm active: the alarm is cleared as of the deletion, by system', async (t) => {
  await must('/hazard/monitorEquip/add', record('monitorEquip', 'D-1', { oneLevelHigh: '1.6', offlineAfterSeconds: 0 }))
  await send('D-1', '1.7')
  const [alarm] = await alarmsOf('D-1')
  t.match(alarm, { kind: 'high', status: 'active' })
  await must('/hazard/monitorEquip/delete', { id: 'D-1' })
  const deletion = (await must('/hazard/monitorEquip/history', { id: 'D-1' })).list[0]
  t.equal(deletion.action, 'delete')
  const cleared = await eventually(
    async () => {
      const found = await must('/hazard/monitorAlarm/getById', { id: alarm.id })
      return found.status === 'cleared' && found
    },
    { what: 'the alarm of the deleted equipment cleared' },
  )
  t.match(cleared, { endTime: deletion.time, endValue: null })
  const [entry] = (await must('/hazard/monitorAlarm/history', { id: alarm.id })).list
  t.equal(entry.userName, 'system')
  t.same(Object.keys(entry.changes).sort(), ['endTime', 'status'])
})

t.test('offline is raised by the clock at its deadline and cleared by the next reading received', async (t) => {
  await must('/hazard/monitorEquip/add', record('monitorEquip', 'O-1', { offlineAfterSeconds: 10 }))
  const received = Date.now() + offset
  await send('O-1', '1.0', received - 1000)
  t.same(await alarmsOf('O-1'), [], 'not before the deadline')
  offset += 11_000
  const [alarm] = await firstAlarmsOf('O-1', 15_000)
  t.match(alarm, { kind: 'offline', status: 'active', startValue: null, peakValue: null, level: null, threshold: null })
  const deadline = new Date(alarm.startTime).getTime()
  t.ok(deadline >= Math.floor(received / 1000) * 1000 + 9000 && deadline <= received + 10_000, 'starts at the deadline')
  // A late reading clears it too.
  await send('O-1', '1.0', received - 5000)
  const [cleared] = await alarmsOf('O-1')
  t.match(cleared, { status: 'cleared', endValue: null })
  const { list } = await must('/hazard/monitorAlarm/history', { id: cleared.id })
  t.same(Object.keys(list[0].changes).sort(), ['endTime', 'status'], 'the clear records what changed: no endValue, null before and after')
})

t.test('offline counts from the last reading received: the deadline of an earlier one raises nothing', async (t) => {
  await must('/hazard/monitorEquip/add', record('monitorEquip', 'O-2', { offlineAfterSeconds: 60 }))
  const first = Date.now() + offset
  await send('O-2', '1.0', first - 1000)
  offset += 50_000
  const last = Date.now() + offset
  await send('O-2', '1.1', last - 1000)
  // Past the first reading's deadline, well before the last one's: the sweep looks and moves the deadline on.
  offset += 15_000
  const due = async () =>
    (await service.database.pool.query(`SELECT "offlineDue" FROM monitor_point WHERE "monitorEquipId" = 'O-2'`)).rows[0].offlineDue
  await eventually(async () => (await due())?.getTime() >= last + 59_000, { timeoutMs: 30_000, what: 'the sweep to look at O-2' })
  t.same(await alarmsOf('O-2'), [], 'not raised at the first deadline')
  offset += 50_000
  const [alarm] = await firstAlarmsOf('O-2', 30_000)
  const deadline = new Date(alarm.startTime).getTime()
  t.ok(deadline >= Math.floor(last / 1000) * 1000 + 59_000 && deadline <= last + 60_000, 'starts at the last reading’s deadline')
})

t.test('offline follows a change of offlineAfterSeconds after the last reading: shortened, or turned on', async (t) => {
  const equipment = { O3: { offlineAfterSeconds: 300 }, O4: { offlineAfterSeconds: 0 } }
  /** By point, the server's clock just before its reading was sent (its deadline counts from its arrival). */
  const sent = new Map<string, number>()
  for (const [id, settings] of Object.entries(equipment)) {
    await must('/hazard/monitorEquip/add', record('monitorEquip', id, settings))
    sent.set(id, Date.now() + offset)
    await send(id, '1.0', sent.get(id)! - 1000)
    await must('/hazard/monitorEquip/update', { id, offlineAfterSeconds: 10 })
  }
  const last = Date.now() + offset
  offset += 11_000
  for (const id of Object.keys(equipment)) {
    const [alarm] = await firstAlarmsOf(id, 15_000)
    t.match(alarm, { kind: 'offline', status: 'active' }, `${id}: raised at the new deadline, not the old one`)
    const deadline = new Date(alarm.startTime).getTime()
    t.ok(deadline >= Math.floor(sent.get(id)! / 1000) * 1000 + 9000 && deadline <= last + 10_000, `${id}: starts at the new deadline`)
  }
})
t.end()
