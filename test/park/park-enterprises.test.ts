// A park and its enterprises, with real processes: one park edition and three enterprise editions
// (different companyCodes, overlapping ids), each pushing with its own `enterprise` account of the park.
// Under a write load with the park restarted in the middle, every enterprise's live records and
// tombstones on the park equal its own, field for field; the park is not an author; an enterprise
// account cannot push or read another enterprise's records; two records swapping their monitorCode
// while the park is down converge; reconciliation finds and re-pushes records removed from the park
// by hand and those lost when the park's database is restored from an earlier copy.
import t from 'tap'
import { pushedRecord, record } from '../helpers/fixtures.ts'
import {
  eventually,
  everythingPushed,
  loginTo,
  post,
  type PushingEnterprise,
  pushRecords,
  sqlOn as sql,
  startEnterprisesPushingTo,
  startParkProcess,
} from '../helpers/park.ts'
import { adminDatabaseUrl } from '../helpers/service.ts'

const TABLES: Record<string, string> = {
  monitorEquip: 'monitor_equip',
  riskUnit: 'risk_unit',
  riskEvents: 'risk_events',
}
const COMPANIES = ['111111111', '222222222', '333333333']

const park = await startParkProcess(t)
let parkToken = await loginTo(park.url)
const enterprises = await startEnterprisesPushingTo(t, { url: park.url, token: parkToken }, COMPANIES, () => ({
  SYNC_RETRY_DELAY_MAX_SECONDS: '1',
  SYNC_FAILED_RETRY_SECONDS: '0',
  PARK_TIMEOUT_MS: '2000',
}))
type Enterprise = PushingEnterprise

/** A statement run on the server's administrative database (creating and dropping databases). */
const administer = async (text: string): Promise<void> => {
  await sql(adminDatabaseUrl(), text)
}

/** Every row of a company (tombstones included), every column but the push bookkeeping. */
async function holdings(databaseUrl: string, companyCode: string): Promise<Record<string, any[]>> {
  const all: Record<string, any[]> = {}
  for (const [resource, table] of Object.entries(TABLES)) {
    const rows = await sql(databaseUrl, `SELECT * FROM ${table} WHERE "companyCode" = $1 ORDER BY id COLLATE "C"`, [companyCode])
    // Instants as the API carries them (to the second); the push bookkeeping is each side's own.
    all[resource] = rows.map(({ sync_status, sync_time, sync_attempts, sync_error, sync_rounds, ...row }) =>
      Object.fromEntries(
        Object.entries(row).map(([name, value]) => [name, value instanceof Date ? value.toISOString().slice(0, 19) : value]),
      ),
    )
  }
  return all
}

async function settled(enterprise: Enterprise): Promise<boolean> {
  const status = await post(`${enterprise.edition.url}/system/sync/status`, {}, enterprise.token)
  return status.code === 0 && everythingPushed(status.data)
}

async function assertParkHolds(t: { same(...args: any[]): unknown }, enterprise: Enterprise, message: string): Promise<void> {
  await eventually(() => settled(enterprise), { timeoutMs: 90_000, everyMs: 200, what: `${enterprise.companyCode} to settle` })
  const [own, onPark] = await Promise.all([
    holdings(enterprise.edition.databaseUrl, enterprise.companyCode),
    holdings(park.databaseUrl, enterprise.companyCode),
  ])
  t.same(onPark, own, `${enterprise.companyCode}: ${message}`)
  await assertCountsKept(t, enterprise, message)
}

/**
 * The counts the park keeps as records are written (park migration 073) equal the rows it holds,
 * per enterprise and resource, and a page of one enterprise's records has its exact total from them.
 */
async function assertCountsKept(t: { same(...args: any[]): unknown }, enterprise: Enterprise, message: string): Promise<void> {
  const kept = await sql(
    park.databaseUrl,
    `SELECT "table", live::int, deleted::int FROM park_record_count WHERE "companyCode" = $1 AND "table" = ANY($2) AND (live <> 0 OR deleted <> 0) ORDER BY 1`,
    [enterprise.companyCode, Object.values(TABLES)],
  )
  const held = await sql(
    park.databaseUrl,
    Object.values(TABLES)
      .map(
        (table) =>
          `SELECT '${table}' AS "table", count(*) FILTER (WHERE live)::int AS live, count(*) FILTER (WHERE live IS NULL)::int AS deleted ` +
          `FROM ${table} WHERE "companyCode" = $1 HAVING count(*) > 0`,
      )
      .join(' UNION ALL ') + ' ORDER BY 1',
    [enterprise.companyCode],
  )
  t.same(kept, held, `${enterprise.companyCode}: the counts kept equal the records held (${message})`)
  const page = await post(
    `${park.url}/prevent/riskUnit/search`,
    { conditions: [{ field: 'companyCode', op: 'eq', value: enterprise.companyCode }], pageSize: 1 },
    parkToken,
  )
  const units = held.find((row) => row.table === 'risk_unit')?.live ?? 0
  t.same(
    { total: page.data.total, totalExact: page.data.totalExact },
    { total: units, totalExact: true },
    `${enterprise.companyCode}: exact total`,
  )
  const beyond = await post(
    `${park.url}/prevent/riskUnit/search`,
    { conditions: [{ field: 'companyCode', op: 'eq', value: enterprise.companyCode }], pageNum: 100_000, pageSize: 1 },
    parkToken,
  )
  t.same([beyond.data.list.length, beyond.data.total], [0, units], `${enterprise.companyCode}: the exact total on a page past the end`)
}

/** Adds, updates and deletes of risk units and events (same ids in every enterprise) until `until()`. */
async function load(enterprise: Enterprise, until: () => boolean): Promise<number> {
  const url = `${enterprise.edition.url}/prevent`
  let n = 0
  let acknowledged = 0
  const worker = async () => {
    while (!until()) {
      const i = n++
      const answers = [
        await post(`${url}/riskUnit/add`, { id: `RU-${i}`, riskUnitName: `${enterprise.companyCode} unit ${i}` }, enterprise.token),
      ]
      if (i % 4 === 0)
        answers.push(
          await post(`${url}/riskEvents/add`, { id: `RE-${i}`, riskUnitId: `RU-${i}`, riskEventName: `event ${i}` }, enterprise.token),
        )
      if (i % 3 === 0) answers.push(await post(`${url}/riskUnit/update`, { id: `RU-${i >> 1}`, riskLevel: '2' }, enterprise.token))
      if (i % 5 === 0) answers.push(await post(`${url}/riskUnit/delete`, { id: `RU-${i - 3}` }, enterprise.token))
      acknowledged += answers.filter((answer) => answer.code === 0).length
    }
  }
  await Promise.all(Array.from({ length: 2 }, worker))
  return acknowledged
}

t.test('three enterprises under load, the park restarted in the middle: the park holds exactly what each holds', async (t) => {
  let stop = false
  const loads = Promise.all(enterprises.map((enterprise) => load(enterprise, () => stop)))
  t.teardown(() => {
    stop = true
  })
  await eventually(
    async () => (await sql(park.databaseUrl, `SELECT count(DISTINCT "companyCode")::int AS n FROM risk_unit`))[0].n === COMPANIES.length,
    { timeoutMs: 120_000, what: 'every enterprise to have pushed' },
  )
  // stop() resolves on the process's exit: its port and database sessions are free again.
  await park.stop('SIGKILL')
  await park.start()
  parkToken = await loginTo(park.url)
  await eventually(async () => (await sql(park.databaseUrl, `SELECT count(*)::int AS n FROM risk_unit`))[0].n > 150, {
    timeoutMs: 120_000,
    what: 'pushes after the restart',
  })
  stop = true
  const acknowledged = await loads
  t.ok(
    acknowledged.every((count) => count > 50),
    `writes acknowledged: ${acknowledged.join(', ')}`,
  )
  for (const enterprise of enterprises) await assertParkHolds(t, enterprise, 'live records and tombstones equal, field for field')
  const [first, second] = enterprises
  const ambiguous = await post(`${park.url}/prevent/riskUnit/getById`, { id: 'RU-1' }, parkToken)
  t.equal(ambiguous.code, 1002, 'an id several enterprises hold needs its companyCode')
  t.match(ambiguous.msg, /companyCode/)
  const named = await post(`${park.url}/prevent/riskUnit/getById`, { id: 'RU-1', companyCode: second.companyCode }, parkToken)
  t.equal(named.data.riskUnitName, `${second.companyCode} unit 1`)
  const searched = await post(
    `${park.url}/prevent/riskUnit/search`,
    { conditions: [{ field: 'companyCode', op: 'eq', value: first.companyCode }], pageSize: 500 },
    parkToken,
  )
  t.ok(
    searched.data.list.length > 0 && searched.data.list.every((unit: any) => unit.companyCode === first.companyCode),
    'companyCode is a search condition',
  )
  const overview = await post(`${park.url}/system/enterprise/list`, {}, parkToken)
  t.same(
    overview.data.list.map((entry: any) => [entry.companyCode, entry.accounts]),
    COMPANIES.map((companyCode) => [companyCode, [`ent-${companyCode}`]]),
  )
  for (const entry of overview.data.list) {
    t.ok(entry.lastPushTime, `${entry.companyCode}: last push time`)
    const units = entry.resources.find((counts: any) => counts.resource === 'riskUnit')
    const [own] = await sql(
      enterprises.find((enterprise) => enterprise.companyCode === entry.companyCode)!.edition.databaseUrl,
      `SELECT count(*) FILTER (WHERE live)::int AS live, count(*) FILTER (WHERE live IS NULL)::int AS deleted FROM risk_unit`,
    )
    t.same({ live: units.live, deleted: units.deleted }, own, `${entry.companyCode}: live records and tombstones held`)
  }
})

t.test('the park is not an author; an enterprise account pushes and reads its own enterprise only', async (t) => {
  const forbidden = async (path: string, body: unknown, token: string, headers: Record<string, string> = {}) => {
    const reply = await fetch(`${park.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify(body),
    })
    return [reply.status, ((await reply.json()) as any).code]
  }
  for (const [path, body] of [
    ['/prevent/riskUnit/add', record('riskUnit', 'RU-PARK')],
    ['/prevent/riskUnit/update', { id: 'RU-1', riskUnitName: 'x' }],
    ['/prevent/riskUnit/delete', { id: 'RU-1' }],
    ['/prevent/riskUnit/add-batch', { list: [record('riskUnit', 'RU-PARK')] }],
  ] as const) {
    t.same(await forbidden(path, body, parkToken), [403, 2003], `${path} on the park: 403 even for an admin`)
  }
  t.same(
    await forbidden('/prevent/riskUnit/add-batch', { list: [pushedRecord('riskUnit', 'RU-PARK')] }, parkToken, { 'x-sync-push': '1' }),
    [403, 2003],
    'add-batch with X-Sync-Push is a business write too: pushes have operations of their own',
  )
  const [first, second] = enterprises
  const account = await loginTo(park.url, `ent-${first.companyCode}`, `password-${first.companyCode}`)
  const item = (companyCode: string, id: string) => pushedRecord('riskUnit', id, { companyCode, version: 99 })
  const pushed = await pushRecords(park.url, account, 'riskUnit', [
    item(first.companyCode, 'RU-OWN-PUSH'),
    item(second.companyCode, 'RU-1'),
  ])
  t.same(pushed.data.succeeded, ['RU-OWN-PUSH'], 'its own company’s record is applied')
  t.same(
    pushed.data.failed.map((failure: any) => [failure.index, failure.code]),
    [[1, 2003]],
    'another company’s record fails alone with 2003',
  )
  const untouched = await post(`${park.url}/prevent/riskUnit/getById`, { id: 'RU-1', companyCode: second.companyCode }, parkToken)
  t.equal(untouched.data.riskUnitName, `${second.companyCode} unit 1`, 'the other company’s record is untouched')
  t.same(await forbidden('/prevent/riskUnit/getById', { id: 'RU-1', companyCode: second.companyCode }, account), [403, 2003])
  const own = await post(`${park.url}/prevent/riskUnit/list`, { pageSize: 500 }, account)
  t.ok(
    own.data.list.every((unit: any) => unit.companyCode === first.companyCode),
    'list shows its own company only',
  )
  t.same(await forbidden('/system/user/list', {}, account), [403, 2003], 'no user administration')
  t.same(await forbidden('/prevent/riskUnit/add', record('riskUnit', 'RU-X'), account), [403, 2003])
  t.same(await forbidden('/system/enterprise/list', {}, account), [403, 2003])
  // The park admin may push for any enterprise.
  const byAdmin = await pushRecords(park.url, parkToken, 'riskUnit', [item('444444444', 'RU-ADMIN')])
  t.same(byAdmin.data.succeeded, ['RU-ADMIN'])
  // Put the park back as the enterprise holds it (the record pushed by hand is not the enterprise's).
  await sql(park.databaseUrl, `DELETE FROM risk_unit WHERE id IN ('RU-OWN-PUSH', 'RU-ADMIN')`)
})

t.test('two records swap their monitorCode while the park is down: the park converges', async (t) => {
  const [enterprise] = enterprises
  const url = `${enterprise.edition.url}/hazard/monitorEquip`
  t.equal((await post(`${url}/add`, record('monitorEquip', 'ME-A', { monitorCode: 'X' }), enterprise.token)).code, 0)
  t.equal((await post(`${url}/add`, record('monitorEquip', 'ME-B', { monitorCode: 'Y' }), enterprise.token)).code, 0)
  await assertParkHolds(t, enterprise, 'before the swap')
  await park.stop()
  for (const [id, monitorCode] of [
    ['ME-A', 'T'],
    ['ME-B', 'X'],
    ['ME-A', 'Y'],
  ]) {
    t.equal((await post(`${url}/update`, { id, monitorCode }, enterprise.token)).code, 0, `${id}: monitorCode ${monitorCode}`)
  }
  await park.start()
  parkToken = await loginTo(park.url)
  await assertParkHolds(t, enterprise, 'after the swap')
  const codes = await sql(park.databaseUrl, `SELECT id, "monitorCode" FROM monitor_equip WHERE "companyCode" = $1 ORDER BY id`, [
    enterprise.companyCode,
  ])
  t.same(codes, [
    { id: 'ME-A', monitorCode: 'Y' },
    { id: 'ME-B', monitorCode: 'X' },
  ])
})

t.test('reconciliation: records removed from the park by hand are found and pushed again', async (t) => {
  const [, enterprise] = enterprises
  const reconcile = () => post(`${enterprise.edition.url}/system/sync/reconcile`, {}, enterprise.token)
  const clean = await reconcile()
  t.equal(clean.code, 0)
  t.equal(clean.data.differences, 0, 'nothing differs')
  const removed = await sql(
    park.databaseUrl,
    `DELETE FROM risk_unit WHERE "companyCode" = $1 AND id IN (SELECT id FROM risk_unit WHERE "companyCode" = $1 ORDER BY id LIMIT 25) RETURNING id`,
    [enterprise.companyCode],
  )
  await sql(park.databaseUrl, `UPDATE risk_events SET version = version - 1, "riskEventName" = 'tampered' WHERE "companyCode" = $1`, [
    enterprise.companyCode,
  ])
  const found = await reconcile()
  t.equal(found.data.error, null, 'the reconciliation completed')
  const units = found.data.resources.find((entry: any) => entry.resource === 'riskUnit')
  const events = found.data.resources.find((entry: any) => entry.resource === 'riskEvents')
  t.equal(units.missing, removed.length, `${removed.length} risk units missing on the park`)
  t.same([...units.ids].sort(), removed.map((row) => row.id).sort())
  t.ok(events.stale > 0, `${events.stale} risk events held at another version`)
  t.equal(found.data.repushed, units.missing + events.stale)
  await assertParkHolds(t, enterprise, 'after reconciliation')
  t.equal((await reconcile()).data.differences, 0, 'nothing differs any more')
  const status = await post(`${enterprise.edition.url}/system/sync/status`, {}, enterprise.token)
  t.equal(status.data.reconcile.differences, 0, 'the last result is part of the status')
  const metrics = await (await fetch(`${enterprise.edition.url}/metrics`)).text()
  t.match(metrics, /^sync_reconcile_last_differences 0$/m)
  // The first scrape after it says the run the status says (each gauge reads it, none left behind).
  const ranAt = Math.floor(Date.parse(status.data.reconcile.time) / 1000)
  t.match(metrics, new RegExp(`^sync_reconcile_last_timestamp_seconds ${ranAt}$`, 'm'))
  t.match(metrics, /^sync_reconcile_last_failed 0$/m)
})

t.test('reconciliation: the park database restored from an earlier copy', async (t) => {
  const [, , enterprise] = enterprises
  // The copy is made by the server itself (a database created from the park's as its template),
  // so the test needs no client program beside the service: only the park may not be connected.
  const parkDatabase = new URL(park.databaseUrl).pathname.slice(1)
  const copy = `${parkDatabase}_copy`
  t.after(() => administer(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`))
  await park.stop()
  await administer(`CREATE DATABASE ${copy} TEMPLATE ${parkDatabase}`)
  await park.start()
  parkToken = await loginTo(park.url)
  // The enterprise writes on: adds, updates and deletes the park acknowledges...
  const url = `${enterprise.edition.url}/prevent/riskUnit`
  for (let i = 0; i < 30; i++) await post(`${url}/add`, { id: `RU-LATER-${i}`, riskUnitName: 'later' }, enterprise.token)
  for (let i = 0; i < 10; i++) await post(`${url}/update`, { id: `RU-LATER-${i}`, riskUnitName: 'later, renamed' }, enterprise.token)
  const live = await sql(
    enterprise.edition.databaseUrl,
    `SELECT id FROM risk_unit WHERE live AND id NOT LIKE 'RU-LATER%' AND NOT EXISTS ` +
      `(SELECT 1 FROM risk_events WHERE "riskUnitId" = risk_unit.id AND live) ORDER BY id LIMIT 5`,
  )
  for (const { id } of live) t.equal((await post(`${url}/delete`, { id }, enterprise.token)).code, 0)
  await assertParkHolds(t, enterprise, 'before the restore')
  // ...then the park loses them: its database comes back from the copy taken earlier.
  await park.stop()
  await administer(`DROP DATABASE ${parkDatabase} WITH (FORCE)`)
  await administer(`CREATE DATABASE ${parkDatabase} TEMPLATE ${copy}`)
  await park.start()
  parkToken = await loginTo(park.url)
  t.ok(await settled(enterprise), 'the enterprise believes everything synced')
  const found = await post(`${enterprise.edition.url}/system/sync/reconcile`, { limit: 1000 }, enterprise.token)
  const units = found.data.resources.find((entry: any) => entry.resource === 'riskUnit')
  t.same({ missing: units.missing, stale: units.stale }, { missing: 30, stale: 5 }, 'the added ones missing, the deleted ones stale')
  t.equal(found.data.repushed, 35)
  await assertParkHolds(t, enterprise, 'after the restore and reconciliation')
  for (const other of enterprises) await assertParkHolds(t, other, 'every enterprise still equal')
})

t.end()
