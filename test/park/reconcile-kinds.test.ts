// Reconciliation covers every pushed kind beside the resources, with real processes: an alarm, an
// inspection period, a calendar year and the enterprise's zone removed from the park's database by
// hand (or held there at an older version) are found by comparing digests and pushed again, and
// the park then holds each at the enterprise's version. The park's pushed minutes of readings
// older than READINGS_RETENTION_DAYS are deleted by its retention job, newer ones kept.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { allSynced, eventually, loginTo, post, sqlOn as sql, startEnterprisesPushingTo, startParkProcess } from '../helpers/park.ts'

const COMPANY = '555555555'
const park = await startParkProcess(t)
const parkToken = await loginTo(park.url)
const [{ edition: enterprise, token }] = await startEnterprisesPushingTo(t, { url: park.url, token: parkToken }, [COMPANY], () => ({
  SYNC_RETRY_DELAY_MAX_SECONDS: '1',
}))
const onEnterprise = async (path: string, body: unknown) => {
  const answer = await post(`${enterprise.url}${path}`, body, token)
  if (answer.code !== 0) throw new Error(`${path} answered ${answer.code}: ${answer.msg}`)
  return answer.data
}

/** Each kind's table on the enterprise and on the park. */
const TABLES = {
  monitorAlarm: ['monitor_alarm', 'monitor_alarm'],
  inspectionPeriod: ['inspection_period', 'inspection_period'],
  workCalendar: ['work_calendar', 'work_calendar'],
  enterpriseZone: ['enterprise_zone', 'park_enterprise_zone'],
} as const
type Kind = keyof typeof TABLES

/** The (id, version) of every item of each kind on one side. */
async function held(side: 'enterprise' | 'park'): Promise<Record<Kind, { id: string; version: number }[]>> {
  const all = {} as Record<Kind, { id: string; version: number }[]>
  for (const [kind, tables] of Object.entries(TABLES) as [Kind, readonly [string, string]][]) {
    const [databaseUrl, table] = side === 'enterprise' ? [enterprise.databaseUrl, tables[0]] : [park.databaseUrl, tables[1]]
    all[kind] = await sql(databaseUrl, `SELECT id, version::int FROM ${table} WHERE "companyCode" = $1 ORDER BY id`, [COMPANY])
  }
  return all
}

const differences = (answer: any, kind: string) => answer.resources.find((entry: any) => entry.resource === kind)

{
  // An alarm: a reading above the equipment's threshold.
  await onEnterprise('/hazard/monitorEquip/add', record('monitorEquip', 'ME-K1', { oneLevelHigh: '1.6', twoLevelHigh: '2.0' }))
  await onEnterprise('/hazard/monitorData/add-batch', {
    list: [{ monitorEquipId: 'ME-K1', time: new Date(Date.now() - 60_000).toISOString(), value: '1.7' }],
  })
  // A calendar year, and a daily task from three days ago: its periods since.
  await onEnterprise('/system/calendar/set', { year: 2026, holidays: ['2026-01-07'], workdays: ['2026-01-10'] })
  await onEnterprise('/prevent/riskUnit/add', record('riskUnit', 'RU-K1'))
  await onEnterprise('/prevent/riskEvents/add', record('riskEvents', 'RE-K1', { riskUnitId: 'RU-K1' }))
  await onEnterprise('/prevent/riskMeasures/add', record('riskMeasures', 'RM-K1', { riskEventId: 'RE-K1' }))
  const schedule = { checkCycle: 1, checkCycleUnit: '天', workStartTime: null, workEndTime: null, workDayType: '0', workType: '0' }
  const taskStartTime = new Date(Date.now() - 3 * 86_400_000).toISOString()
  await onEnterprise(
    '/prevent/troubleshootTask/add',
    record('troubleshootTask', 'T-K1', { riskMeasureId: 'RM-K1', taskNum: null, taskStartTime, ...schedule }),
  )
  await eventually(
    async () => {
      const now = await held('enterprise')
      return now.monitorAlarm.length === 1 && now.inspectionPeriod.length >= 3 && now.enterpriseZone.length === 1
    },
    { timeoutMs: 60_000, what: 'the alarm, the periods and the zone on the enterprise' },
  )
  await eventually(() => allSynced(enterprise.url, token), { timeoutMs: 60_000, what: 'everything pushed' })
  await eventually(async () => JSON.stringify(await held('park')) === JSON.stringify(await held('enterprise')), {
    timeoutMs: 60_000,
    what: 'the park to hold what the enterprise holds',
  })
}

t.test('an alarm, a period, the calendar and the zone lost on the park: found, pushed again', async (t) => {
  const before = await held('enterprise')
  t.same(await held('park'), before, 'the park holds what the enterprise holds')
  const quiet = await onEnterprise('/system/sync/reconcile', {})
  t.match(quiet, { differences: 0, repushed: 0, error: null }, 'nothing differs before the loss')
  for (const kind of Object.keys(TABLES)) t.ok(differences(quiet, kind), `${kind} compared`)

  const [alarm] = before.monitorAlarm
  const [period, stale] = before.inspectionPeriod
  const lose = (table: string, where: string, values: unknown[]) =>
    sql(park.databaseUrl, `DELETE FROM ${table} WHERE "companyCode" = $1 AND ${where} RETURNING 1`, [COMPANY, ...values])
  t.equal((await lose('monitor_alarm', 'id = $2', [alarm.id])).length, 1, 'the alarm removed on the park')
  t.equal((await lose('inspection_period', 'id = $2', [period.id])).length, 1, 'a period removed on the park')
  t.equal((await lose('work_calendar', 'year = 2026', [])).length, 1, 'the calendar year removed on the park')
  t.equal((await lose('park_enterprise_zone', 'true', [])).length, 1, 'the zone removed on the park')
  // As a restore from an older dump would leave it: another period at an earlier version.
  await sql(park.databaseUrl, `UPDATE inspection_period SET version = version - 1 WHERE "companyCode" = $1 AND id = $2`, [
    COMPANY,
    stale.id,
  ])

  const found = await onEnterprise('/system/sync/reconcile', {})
  t.equal(found.error, null, 'the reconciliation completed')
  t.match(differences(found, 'monitorAlarm'), { missing: 1, stale: 0, parkOnly: 0, ids: [alarm.id] })
  t.match(differences(found, 'inspectionPeriod'), { missing: 1, stale: 1, parkOnly: 0 })
  t.same([...differences(found, 'inspectionPeriod').ids].sort(), [period.id, stale.id].sort())
  t.match(differences(found, 'workCalendar'), { missing: 1, stale: 0, ids: ['2026'] })
  t.match(differences(found, 'enterpriseZone'), { enterprise: 1, park: 0, missing: 1, ids: [COMPANY] })
  t.match(found, { differences: 5, repushed: 5 })

  await eventually(async () => JSON.stringify(await held('park')) === JSON.stringify(before), {
    timeoutMs: 60_000,
    what: 'the park to hold them again',
  })
  t.same(await held('park'), before, 'each at the enterprise\u2019s version')
  const got = await post(`${park.url}/system/calendar/get`, { year: 2026, companyCode: COMPANY }, parkToken)
  t.match(got.data, { year: 2026, holidays: ['2026-01-07'], workdays: ['2026-01-10'], default: false }, 'the calendar read back')
  const zone = await sql(park.databaseUrl, `SELECT "timeZone" FROM park_enterprise_zone WHERE "companyCode" = $1`, [COMPANY])
  t.same(zone, await sql(enterprise.databaseUrl, `SELECT "timeZone" FROM enterprise_zone`), 'the zone read back')
  const again = await onEnterprise('/system/sync/reconcile', {})
  t.match(again, { differences: 0, repushed: 0 }, 'nothing differs any more')
})

t.test('the park asked for attachments of a supervision fact refuses', async (t) => {
  const answer = await post(
    `${park.url}/system/sync/digest`,
    { resource: 'workCalendar', companyCode: COMPANY, prefixes: [''], attachments: true },
    parkToken,
  )
  t.equal(answer.code, 1002, answer.msg)
})

t.test('the park deletes pushed minutes past READINGS_RETENTION_DAYS, keeps the others', async (t) => {
  const minute = (daysAgo: number) => new Date(Math.floor((Date.now() - daysAgo * 86_400_000) / 60_000) * 60_000).toISOString()
  const item = (point: string, at: string) => ({
    companyCode: COMPANY,
    monitorEquipId: point,
    minute: at,
    min: '1',
    max: '1',
    avg: '1',
    sum: '2',
    last: '1',
    lastQuality: 0,
    count: 2,
  })
  // The default retention is 90 days: one minute past it, one just inside it.
  const [past, inside, recent] = [minute(120), minute(89), minute(1)]
  const pushed = await post(
    `${park.url}/system/push/readings`,
    { list: [item('PT-OLD', past), item('PT-OLD', inside), item('PT-NEW', recent)] },
    parkToken,
  )
  t.match(pushed, { code: 0, data: { applied: 3, failed: [] } })
  const minutes = () =>
    sql(park.databaseUrl, `SELECT "monitorEquipId", minute FROM park_reading_minute WHERE "monitorEquipId" LIKE 'PT-%' ORDER BY 1, 2`)
  t.equal((await minutes()).length, 3, 'all three held')
  // The job runs at start (and hourly).
  await park.stop()
  await park.start()
  await eventually(async () => (await minutes()).length === 2, { timeoutMs: 60_000, what: 'the old minute deleted' })
  t.same(
    (await minutes()).map((row: any) => [row.monitorEquipId, row.minute.toISOString()]),
    [
      ['PT-NEW', recent],
      ['PT-OLD', inside],
    ],
    'the minutes inside the retention kept',
  )
})

t.end()
