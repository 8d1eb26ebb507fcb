// An inspection period that ends without a record is one `period.missed` event, recorded by the
// upkeep's job, which runs every few seconds; a period done in time is none, and a record written late
// retracts nothing. The periods' ends are brought forward in the database (no waiting a day).
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually } from '../helpers/eventually.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t, { env: { TZ: '+08:00' } })
const token = await service.login()
const add = async (resource: string, id: string, fields: Record<string, unknown>) => {
  const answer = (await service.call(`/prevent/${resource}/add`, record(resource, id, fields), { token })).body
  if (answer.code !== 0) throw new Error(`add ${resource} ${id}: ${answer.msg}`)
}
const sql = async (text: string, values: unknown[] = []) => (await service.database.pool.query(text, values)).rows
const missedEvents = async () =>
  (await service.call('/system/event/list', { after: 0, types: ['period.missed'], pageSize: 1000 }, { token })).body.data.list

await add('riskUnit', 'RU-1', {})
await add('riskEvents', 'RE-1', { riskUnitId: 'RU-1' })
await add('riskMeasures', 'RM-1', { riskEventId: 'RE-1' })
const started = new Date(Math.floor(Date.now() / 1000) * 1000 - 3600_000)
/** A daily task, from `start` (an hour ago unless said). */
const addTask = (id: string, start = started) =>
  add('troubleshootTask', id, {
    riskMeasureId: 'RM-1',
    checkCycle: 1,
    checkCycleUnit: '天',
    workDayType: '0',
    workType: '0',
    taskNum: null,
    taskStartTime: start.toISOString(),
  })

/** The task's running period, once the job has written and watched it. */
const runningPeriod = (taskId: string) =>
  eventually(
    async () => {
      const rows = await sql(`SELECT p.id FROM inspection_period p JOIN period_watch w USING ("companyCode", id) WHERE p."taskId" = $1`, [
        taskId,
      ])
      return rows[0]?.id as string | undefined
    },
    { timeoutMs: 60_000, what: `the running period of ${taskId}` },
  )

/** Ends the period a second ago, as if its day had passed. */
const endNow = async (id: string) => {
  await sql(`UPDATE inspection_period SET "end" = now() - interval '1 second' WHERE id = $1`, [id])
  await sql(`UPDATE period_watch SET "end" = now() - interval '1 second' WHERE id = $1`, [id])
}
const looked = (id: string) =>
  eventually(async () => (await sql(`SELECT 1 FROM period_watch WHERE id = $1`, [id])).length === 0, {
    timeoutMs: 60_000,
    what: `the job looking at ${id}`,
  })

t.test('a period that ends without a record is one period.missed event', async (t) => {
  await addTask('T-M')
  const id = await runningPeriod('T-M')
  await endNow(id)
  const [event] = await eventually(
    async () => {
      const found = (await missedEvents()).filter((candidate: any) => candidate.data.id === id)
      return found.length > 0 && found
    },
    { timeoutMs: 60_000, what: 'the period.missed event' },
  )
  t.match(event.data, { resource: 'prevent/troubleshootTask/periods', id, taskId: 'T-M', workType: '0' })
  t.match(event.data.start, /\+08:00$/)
  t.equal(event.companyCode, service.config.companyCode)
  await add('troubleshootRecord', 'R-LATE', {
    checkTaskId: 'T-M',
    checkTime: new Date(started.getTime() + 60_000).toISOString(),
    checkStatus: '0',
  })
  const [period] = (
    await service.call('/prevent/troubleshootTask/periods', { taskId: 'T-M', from: '2020-01-01', to: '2099-12-31' }, { token })
  ).body.data.list
  t.match(period, { status: 'done', doneLate: true }, 'the late record turns the period done late')
  t.equal((await missedEvents()).filter((candidate: any) => candidate.data.id === id).length, 1, 'and the event stays, once')
})

t.test('a period done in time is no period.missed event', async (t) => {
  await addTask('T-D')
  const id = await runningPeriod('T-D')
  await add('troubleshootRecord', 'R-D', {
    checkTaskId: 'T-D',
    checkTime: new Date(started.getTime() + 60_000).toISOString(),
    checkStatus: '0',
  })
  await endNow(id)
  await looked(id)
  t.same(
    (await missedEvents()).filter((candidate: any) => candidate.data.taskId === 'T-D'),
    [],
  )
})

t.test('a task added with a start in the past: each period it missed within the retention is one event, as of its writing', async (t) => {
  const day = 86_400_000
  const now = Math.floor(Date.now() / 1000) * 1000
  const eventsOf = async (taskId: string) => (await missedEvents()).filter((candidate: any) => candidate.data.taskId === taskId)
  const missedOf = async (taskId: string) =>
    (
      await service.call(
        '/prevent/troubleshootTask/periods',
        { taskId, from: '2020-01-01', to: '2099-12-31', status: 'missed', pageSize: 500 },
        { token },
      )
    ).body.data.list

  // Three days and an hour ago: three periods ended without a record, the fourth runs.
  await addTask('T-P', new Date(now - 3 * day - 3600_000))
  const events = await eventually(async () => ((await eventsOf('T-P')).length >= 3 ? eventsOf('T-P') : undefined), {
    timeoutMs: 60_000,
    what: 'the events of the periods T-P missed before it was added',
  })
  const missed = await missedOf('T-P')
  t.equal(missed.length, 3)
  t.same(events.map((event: any) => event.data.id).sort(), missed.map((period: any) => period.id).sort(), 'one event per missed period')
  for (const event of events) {
    t.ok(Date.parse(event.time) >= now && Date.parse(event.time) >= Date.parse(event.data.end), 'of its writing, after its end')
  }

  // Forty days ago: only the periods ended within the events' retention (30 days) give one.
  await addTask('T-OLD', new Date(now - 40 * day - 3600_000))
  const kept = now - service.config.eventRetentionDays * day
  const missedOld = await eventually(async () => ((await missedOf('T-OLD')).length === 40 ? missedOf('T-OLD') : undefined), {
    timeoutMs: 60_000,
    what: 'the 40 periods T-OLD missed',
  })
  const within = missedOld.filter((period: any) => Date.parse(period.end) > kept).length
  t.equal(within, 30)
  const old = await eventually(async () => ((await eventsOf('T-OLD')).length >= within ? eventsOf('T-OLD') : undefined), {
    timeoutMs: 60_000,
    what: 'the events of the periods T-OLD missed within the retention',
  })
  t.ok(
    old.every((event: any) => Date.parse(event.data.end) > kept),
    'none of a period ended before the retention',
  )
  t.equal(old.length, within, 'one for each ended within it')
})

t.end()
