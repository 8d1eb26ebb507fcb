// Alarms are records of hazard/monitorAlarm: each change is a record event shaped as its history
// entry, followed by its alarm event (raised, changed, cleared, acknowledged, disposed) carrying
// the alarm's `shelved`, both committed with the change.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t, { env: { TZ: '+08:00' } })
const token = await service.login()
const must = async (path: string, body: unknown) => {
  const answer = (await service.call(path, body, { token })).body
  if (answer.code !== 0) throw new Error(`${path} answered ${answer.code}: ${answer.msg}`)
  return answer.data
}
const instant = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString()
const send = (id: string, value: string, ms: number) =>
  must('/hazard/monitorData/add-batch', { list: [{ monitorEquipId: id, time: instant(ms), value }] })
const alarmEventsOf = async (id: string) =>
  (await must('/system/event/list', { after: 0, pageSize: 1000 })).list.filter((event: any) =>
    event.data.resource === 'hazard/monitorAlarm' && event.data.monitorEquipId !== undefined ? event.data.monitorEquipId === id : true,
  )

await must('/hazard/monitorEquip/add', record('monitorEquip', 'EV-1', { oneLevelHigh: '1.6', twoLevelHigh: '2.0' }))
await must('/hazard/monitorEquip/add', record('monitorEquip', 'EV-2', { oneLevelHigh: '1.6', twoLevelHigh: '2.0' }))

t.test('raise, escalate, clear, acknowledge and dispose: record and alarm events in order', async (t) => {
  const start = Date.now() - 120_000
  await send('EV-1', '1.7', start)
  await send('EV-1', '2.1', start + 10_000)
  await send('EV-1', '1.0', start + 20_000)
  const [alarm] = (await must('/hazard/monitorAlarm/search', { conditions: [{ field: 'monitorEquipId', op: 'eq', value: 'EV-1' }] })).list
  await must('/hazard/monitorAlarm/acknowledge', { id: alarm.id })
  await must('/hazard/monitorAlarm/dispose', { id: alarm.id, cause: '2', measures: 'recalibrated' })
  const { list } = await must('/system/event/list', { after: 0, pageSize: 1000 })
  const events = list.filter((event: any) => event.data.resource === 'hazard/monitorAlarm' && event.data.id === alarm.id)
  t.same(
    events.map((event: any) => event.type),
    [
      'record.added',
      'alarm.raised',
      'record.updated',
      'alarm.changed',
      'record.updated',
      'alarm.cleared',
      'record.updated',
      'alarm.acknowledged',
      'record.updated',
      'alarm.disposed',
    ],
  )
  const seqs = events.map((event: any) => event.seq)
  t.same(
    seqs,
    [...seqs].sort((a: number, b: number) => a - b),
    'in seq order',
  )
  const history = (await must('/hazard/monitorAlarm/history', { id: alarm.id, pageSize: 100 })).list.reverse()
  const records = events.filter((event: any) => event.type.startsWith('record.'))
  t.equal(records.length, history.length, 'one record event per history entry')
  for (const [n, event] of records.entries()) {
    t.same(event.data, { resource: 'hazard/monitorAlarm', id: alarm.id, version: history[n].version, changes: history[n].changes })
    t.equal(event.time, history[n].time)
  }
  const alarms = events.filter((event: any) => event.type.startsWith('alarm.'))
  t.match(alarms[0].data, {
    resource: 'hazard/monitorAlarm',
    id: alarm.id,
    version: 1,
    kind: 'high',
    level: 1,
    monitorEquipId: 'EV-1',
    shelved: false,
    status: 'active',
    handling: 'raised',
  })
  t.match(alarms[1].data, { version: 2, level: 2, maxLevel: 2 })
  t.match(alarms[2].data, { status: 'cleared' })
  t.match(alarms[3].data, { handling: 'acknowledged' })
  t.match(alarms[4].data, { handling: 'disposed', version: 5 })
  for (const event of alarms) t.equal(event.data.shelved, false)
  const typed = await must('/system/event/list', { after: 0, types: ['alarm.raised'] })
  t.ok(
    typed.list.some((event: any) => event.data.id === alarm.id),
    'the alarm types filter the feed',
  )
})

t.test("a shelved point's alarm events say shelved: true", async (t) => {
  await must('/hazard/monitorEquip/shelve', { id: 'EV-2', until: new Date(Date.now() + 3600_000).toISOString(), reason: 'work ticket' })
  await send('EV-2', '1.8', Date.now() - 5000)
  const events = (await alarmEventsOf('EV-2')).filter((event: any) => event.type === 'alarm.raised' && event.data.monitorEquipId === 'EV-2')
  t.equal(events.length, 1)
  t.equal(events[0].data.shelved, true)
})

t.end()
