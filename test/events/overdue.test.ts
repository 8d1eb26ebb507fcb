// A hidden danger past its deadline day and not accepted, and a work ticket issued or in progress
// past its planned end, are one `danger.overdue` / `ticket.overdue` event each, recorded by the
// timer once per record and deadline: a moved deadline that passes again is overdue again.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually } from '../helpers/eventually.ts'
import { startService } from '../helpers/service.ts'
import { OPEN_DANGER, OWN_TICKET, todayInFixtureZone } from '../helpers/supervision-fixtures.ts'

const service = await startService(t, { env: { TZ: '+08:00' } })
const token = await service.login()
const call = async (path: string, body: unknown) => {
  const answer = (await service.call(path, body, { token })).body
  if (answer.code !== 0) throw new Error(`${path}: ${answer.msg}`)
}
const add = (resource: string, id: string, fields: Record<string, unknown>) =>
  call(`/prevent/${resource}/add`, record(resource, id, fields))
const overdueEvents = async () =>
  (await service.call('/system/event/list', { after: 0, types: ['danger.overdue', 'ticket.overdue'], pageSize: 1000 }, { token })).body.data
    .list as any[]
const eventsOf = async (id: string) => (await overdueEvents()).filter((event) => event.data.id === id)
/** The events of `id`, once there are `count` of them. */
const awaitEvents = (id: string, count: number) =>
  eventually(
    async () => {
      const found = await eventsOf(id)
      return found.length >= count && found
    },
    { timeoutMs: 15_000, what: `${count} overdue event(s) of ${id}` },
  )

const today = todayInFixtureZone()
const ticket = { ...OWN_TICKET, workType: '2', planStartTime: '2026-01-06T08:00:00+08:00' }

t.test('an overdue hidden danger and work ticket are one event each; the others none', async (t) => {
  await add('troubleshootInfo', 'D-LATE', { ...OPEN_DANGER, registTime: '2026-01-06T10:00:00+08:00', dangerManageDeadline: '2026-01-10' })
  await add('troubleshootInfo', 'D-TODAY', { ...OPEN_DANGER, registTime: '2026-01-06T10:00:00+08:00', dangerManageDeadline: today })
  await add('troubleshootInfo', 'D-DONE', {
    ...OPEN_DANGER,
    registTime: '2026-01-06T10:00:00+08:00',
    dangerManageDeadline: '2026-01-10',
    dangerState: '9',
    checkAcceptPerson: '王五',
    checkAcceptTime: '2026-01-09',
  })
  await add('ticketBaseInfo', 'K-LATE', { ...ticket, ticketStatus: '2', planEndTime: '2026-01-07T08:00:00+08:00' })
  await add('ticketBaseInfo', 'K-CLOSED', { ...ticket, ticketStatus: '3', planEndTime: '2026-01-07T08:00:00+08:00' })
  const [dangerEvent] = await awaitEvents('D-LATE', 1)
  t.match(dangerEvent, { type: 'danger.overdue', companyCode: service.config.companyCode })
  t.match(dangerEvent.data, {
    resource: 'prevent/troubleshootInfo',
    id: 'D-LATE',
    version: 1,
    dangerManageDeadline: '2026-01-10',
    dangerState: '0',
  })
  const [ticketEvent] = await awaitEvents('K-LATE', 1)
  t.match(ticketEvent, { type: 'ticket.overdue' })
  t.match(ticketEvent.data, {
    resource: 'prevent/ticketBaseInfo',
    id: 'K-LATE',
    version: 1,
    planEndTime: '2026-01-07T00:00:00Z',
    ticketStatus: '2',
  })
  // A later overdue record's event shows the timer ran again over the first ones.
  await add('troubleshootInfo', 'D-MARK', { ...OPEN_DANGER, registTime: '2026-01-06T10:00:00+08:00', dangerManageDeadline: '2026-01-11' })
  await awaitEvents('D-MARK', 1)
  t.equal((await eventsOf('D-LATE')).length, 1, 'once')
  t.equal((await eventsOf('K-LATE')).length, 1, 'once')
  t.same([...(await eventsOf('D-TODAY')), ...(await eventsOf('D-DONE')), ...(await eventsOf('K-CLOSED'))], [], 'the others: none')
})

t.test('a deadline moved that passes again is overdue again; another edit is not', async (t) => {
  await call('/prevent/troubleshootInfo/update', { id: 'D-LATE', dangerLevel: '1' })
  await call('/prevent/troubleshootInfo/update', { id: 'D-LATE', dangerManageDeadline: '2026-01-20' })
  const events = await awaitEvents('D-LATE', 2)
  t.equal(events.length, 2)
  t.match(events[1].data, { dangerManageDeadline: '2026-01-20', version: 3 })
})

t.end()
