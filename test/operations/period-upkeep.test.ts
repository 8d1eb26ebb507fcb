// Inspection periods are written by the background job as they start, without any read asking for
// them. The job runs every PERIODS_EVERY_SECONDS, so a period appears well within 15 s of its start;
// the tests wait for it without timing it (a loaded machine delays every timer).
import t from 'tap'
import { PERIODS_EVERY_SECONDS } from '../../src/operations/supervision/period-upkeep.ts'
import { record } from '../helpers/fixtures.ts'
import { eventually } from '../helpers/eventually.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()
const add = async (resource: string, id: string, fields: Record<string, unknown>) => {
  const answer = (await service.call(`/prevent/${resource}/add`, record(resource, id, fields), { token })).body
  if (answer.code !== 0) throw new Error(`add ${resource} ${id}: ${answer.msg}`)
}
await add('riskUnit', 'RU-1', {})
await add('riskEvents', 'RE-1', { riskUnitId: 'RU-1' })
await add('riskMeasures', 'RM-1', { riskEventId: 'RE-1' })

/** A task of every day type and work type 0, checked once per `unit` from `taskStartTime`. */
const addTask = (id: string, unit: string, taskStartTime: string) =>
  add('troubleshootTask', id, {
    riskMeasureId: 'RM-1',
    checkCycle: 1,
    checkCycleUnit: unit,
    workDayType: '0',
    workType: '0',
    taskNum: null,
    taskStartTime,
  })

const periodsOf = async (taskId: string) =>
  (await service.database.pool.query(`SELECT start FROM inspection_period WHERE "taskId" = $1 ORDER BY start`, [taskId])).rows

t.test('a period starting shortly is written by the job once it starts, not before', async (t) => {
  t.ok(PERIODS_EVERY_SECONDS <= 10, 'the job runs often enough for 15 s, its polling and its own run included')
  const start = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000)
  await addTask('T-1', '天', start.toISOString())
  t.same(await periodsOf('T-1'), [], 'no period before its start')
  const rows = await eventually(
    async () => {
      const found = await periodsOf('T-1')
      return found.length > 0 && found
    },
    { timeoutMs: 60_000, what: 'the first period of T-1' },
  )
  t.equal(rows[0].start.getTime(), start.getTime())
})

t.test('a task added with a start in the past gets its periods since then at once, by the job', async (t) => {
  await addTask('T-2', '月', '2026-01-31T00:00:00+08:00')
  const rows = await eventually(
    async () => {
      const found = await periodsOf('T-2')
      return found.length > 0 && found
    },
    { timeoutMs: 60_000, what: 'the periods of T-2' },
  )
  t.equal(rows[1].start.toISOString(), '2026-02-27T16:00:00.000Z', '31 January + 1 month: 28 February in +08:00')
})

t.test(
  'an edit mid-cycle: the running period keeps its bounds, the next follows the new cycle after it; a deletion ends them',
  async (t) => {
    const anchor = new Date(Math.floor(Date.now() / 1000) * 1000 - 3600_000)
    await addTask('T-3', '天', anchor.toISOString())
    const read = async () =>
      (await service.call('/prevent/troubleshootTask/periods', { taskId: 'T-3', from: '2026-01-01', to: '2099-12-31' }, { token })).body
        .data.list
    const running = await read()
    t.same(
      running.map((period: any) => period.status),
      ['open'],
    )
    t.equal((await service.call('/prevent/troubleshootTask/update', { id: 'T-3', checkCycle: 3 }, { token })).body.code, 0)
    t.same(await read(), running, 'the running period keeps its bounds')
    const next = async () =>
      (await service.database.pool.query(`SELECT "nextStart" FROM inspection_schedule WHERE "taskId" = 'T-3'`)).rows[0].nextStart
    t.equal((await next())?.getTime(), anchor.getTime() + 3 * 86_400_000, 'the next period: the first of the new cycle after it ends')
    await service.call('/prevent/troubleshootTask/delete', { id: 'T-3' }, { token })
    t.same(await read(), running, 'a deleted task keeps its periods')
    t.equal(await next(), null, 'and has no next one')
  },
)

t.end()
