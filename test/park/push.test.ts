// The push to the park: every acknowledged write reaches the park edition, field for field,
// by id and version; a failing park never changes a write's answer.
import t from 'tap'
import { PARENT_FIELD, pushedRecord, RESOURCE_PATHS, record } from '../helpers/fixtures.ts'
import { eventually, everythingPushed, liveRecords, startParkProcess } from '../helpers/park.ts'
import { ADMIN_PASSWORD, startService, type TestService } from '../helpers/service.ts'

const park = await startParkProcess(t)
const enterprise = await startService(t, {
  env: {
    PARK_URL: park.url,
    PARK_USER: 'admin',
    PARK_PASSWORD: ADMIN_PASSWORD,
    SYNC_RETRY_DELAY_MAX_SECONDS: '2',
    SYNC_FAILED_RETRY_SECONDS: '0',
  },
})
const token = await enterprise.login()
const parkToken = await (async () => {
  const reply = await fetch(`${park.url}/system/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: 'admin', password: ADMIN_PASSWORD }),
  })
  return ((await reply.json()) as any).data.token as string
})()

async function parkCall(path: string, body: unknown) {
  const reply = await fetch(park.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${parkToken}` },
    body: JSON.stringify(body),
  })
  return (await reply.json()) as any
}

/** A riskUnit record as an enterprise pushes it. */
const pushedRiskUnit = (id: string, version: number, riskUnitName: string) =>
  pushedRecord('riskUnit', id, { version, fields: { riskUnitName } })

/** A push of risk units to the park (/system/push/records): the body's text as given, or `{resource: riskUnit, ...body}` written by JSON.stringify. */
const pushToPark = (body: unknown) =>
  fetch(`${park.url}/system/push/records`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${parkToken}` },
    body: typeof body === 'string' ? body : JSON.stringify({ resource: 'riskUnit', ...(body as object) }),
  }).then((reply) => reply.json() as any)

async function allSynced(service: TestService) {
  const status = await service.call('/system/sync/status', {}, { token })
  return everythingPushed(status.body.data)
}

t.test('writes of every resource reach the park field for field, synced on both sides', async (t) => {
  const ids: Record<string, string> = {}
  for (const resource of Object.keys(RESOURCE_PATHS)) {
    const parent = PARENT_FIELD[resource]
    const reply = await enterprise.call(
      `${RESOURCE_PATHS[resource]}/add`,
      record(resource, `${resource}-1`, parent ? { [parent[0]]: ids[parent[1]] } : {}),
      { token },
    )
    t.equal(reply.body.code, 0)
    ids[resource] = `${resource}-1`
  }
  await enterprise.call('/prevent/riskUnit/update', { id: 'riskUnit-1', riskUnitName: 'renamed' }, { token })
  await eventually(() => allSynced(enterprise), { what: 'every record synced' })
  t.same(await liveRecords(park.url, parkToken), await liveRecords(enterprise.url, token))
  const onPark = await parkCall('/prevent/riskUnit/getById', { id: 'riskUnit-1' })
  t.equal(onPark.data.riskUnitName, 'renamed')
  t.equal(onPark.data.sync_status, 'synced')
  const onEnterprise = await enterprise.call('/prevent/riskUnit/getById', { id: 'riskUnit-1' }, { token })
  t.equal(onEnterprise.body.data.sync_status, 'synced')
  t.match(onEnterprise.body.data.sync_time, /\+08:00$/)
})

t.test('deletes propagate, children before parents', async (t) => {
  for (const resource of Object.keys(RESOURCE_PATHS).reverse()) {
    t.equal((await enterprise.call(`${RESOURCE_PATHS[resource]}/delete`, { id: `${resource}-1` }, { token })).body.code, 0)
  }
  await eventually(() => allSynced(enterprise), { what: 'deletes synced' })
  const emptied = await liveRecords(park.url, parkToken)
  for (const list of Object.values(emptied)) t.same(list, [])
})

t.test('one record updated 20 times quickly: the park ends at the last version', async (t) => {
  await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-20', { riskUnitName: 'v0' }), { token })
  for (let i = 1; i <= 20; i++) {
    t.equal((await enterprise.call('/prevent/riskUnit/update', { id: 'RU-20', riskUnitName: `v${i}` }, { token })).body.code, 0)
  }
  await eventually(() => allSynced(enterprise), { what: 'the last version synced' })
  t.equal((await parkCall('/prevent/riskUnit/getById', { id: 'RU-20' })).data.riskUnitName, 'v20')
})

t.test('a late push of an older version never overwrites newer data on the park', async (t) => {
  const item = (version: number, riskUnitName: string) => pushedRiskUnit('RU-LATE', version, riskUnitName)
  const push = pushToPark
  const held = (version: number) => ({ succeeded: ['RU-LATE'], failed: [], held: [{ id: 'RU-LATE', index: 0, version }] })
  t.same((await push({ list: [item(3, 'newer')] })).data, held(3), 'the answer says the version the park holds now')
  t.same((await push({ list: [item(2, 'older')] })).data, held(3), 'an older version is not applied: the park still holds 3')
  t.equal((await parkCall('/prevent/riskUnit/getById', { id: 'RU-LATE' })).data.riskUnitName, 'newer')
  t.same((await push({ list: [item(3, 'newer')] })).data.succeeded, ['RU-LATE'], 'a repeated push is harmless')
  for (const header of [{}, { 'x-sync-push': '1' }]) {
    const plain = await fetch(`${park.url}/prevent/riskUnit/add-batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${parkToken}`, ...header },
      body: JSON.stringify({ list: [item(4, 'x')] }),
    })
    t.equal(
      plain.status,
      403,
      `add-batch is a business write, with or without X-Sync-Push: the park is not an author (${JSON.stringify(header)})`,
    )
    t.equal(((await plain.json()) as any).code, 2003)
  }
  t.same((await push({ list: [{ ...item(5, 'newer'), deleted: true }] })).data.succeeded, ['RU-LATE'])
  t.equal((await parkCall('/prevent/riskUnit/getById', { id: 'RU-LATE' })).code, 1004, 'a pushed tombstone deletes')
  t.same((await push({ list: [item(4, 'resurrected?')] })).data.succeeded, ['RU-LATE'])
  t.equal((await parkCall('/prevent/riskUnit/getById', { id: 'RU-LATE' })).code, 1004, 'an older version does not bring it back')
})

t.test('a version beyond 32 bits is held, and read back by history and the digest', async (t) => {
  const version = 2 ** 31 + 5
  t.same((await pushToPark({ list: [pushedRiskUnit('RU-BIG', version, 'big')] })).data.held, [{ id: 'RU-BIG', index: 0, version }])
  t.equal((await parkCall('/prevent/riskUnit/getById', { id: 'RU-BIG' })).data.riskUnitName, 'big')
  const history = await parkCall('/prevent/riskUnit/history', { id: 'RU-BIG' })
  t.equal(history.code, 0, history.msg)
  t.equal(history.data.list[0].version, version)
  const digest = await parkCall('/system/sync/digest', { resource: 'riskUnit', companyCode: '000000000', prefixes: [''], records: true })
  t.equal(digest.code, 0, digest.msg)
  t.match(JSON.stringify(digest.data), `"version":${version}`)
  // Gone again, so that the park holds what the enterprise wrote, as the tests below compare.
  t.same((await pushToPark({ list: [{ ...pushedRiskUnit('RU-BIG', version + 1, 'big'), deleted: true }] })).data.succeeded, ['RU-BIG'])
})

// The park reads a compact page's list from the body's own bytes (request-bodies.ts,
// pushedListBytes): what it holds is still what the body parses into, however the text is written.
t.test('a pushed page is applied as its body parses, however its text is written', async (t) => {
  const item = (id: string, riskUnitName: string) => JSON.stringify(pushedRiskUnit(id, 1, riskUnitName))
  const name = async (id: string) => (await parkCall('/prevent/riskUnit/getById', { id })).data?.riskUnitName
  // A member written twice: JSON.parse keeps the last one.
  const twice = item('RU-TEXT-1', 'first').replace(/}$/, ',"riskUnitName":"last"}')
  t.same((await pushToPark(`{"resource":"riskUnit","list":[${twice}]}`)).data.succeeded, ['RU-TEXT-1'])
  t.equal(await name('RU-TEXT-1'), 'last', 'a member written twice: the last one, as JSON.parse reads it')
  // The same member, its name written with an escape: still the last one.
  const escaped = item('RU-TEXT-6', 'plain').replace(/}$/, ',"riskUnit\\u004eame":"escaped"}')
  t.same((await pushToPark(`{"resource":"riskUnit","list":[${escaped}]}`)).data.succeeded, ['RU-TEXT-6'])
  t.equal(await name('RU-TEXT-6'), 'escaped', 'a member whose name is escaped is the same member')
  // A number JSON.parse takes as an integer, which PostgreSQL's bigint would not read as written.
  const decimal = item('RU-TEXT-2', 'decimal').replace('"version":1', '"version":2.0')
  t.same(
    (await pushToPark(`{"resource":"riskUnit","list":[${decimal}]}`)).data.held,
    [{ id: 'RU-TEXT-2', index: 0, version: 2 }],
    'version 2.0 is version 2',
  )
  t.equal(await name('RU-TEXT-2'), 'decimal')
  // `list` written twice: the second one is the page.
  const lists = `{"resource":"riskUnit","list":[${item('RU-TEXT-3', 'first list')}],"list":[${item('RU-TEXT-4', 'second list')}]}`
  t.same((await pushToPark(lists)).data.succeeded, ['RU-TEXT-4'])
  t.equal(await name('RU-TEXT-4'), 'second list')
  t.equal((await parkCall('/prevent/riskUnit/getById', { id: 'RU-TEXT-3' })).code, 1004, 'the first list is not applied')
  // Spaces, as a person or another client may write it.
  t.same((await pushToPark(`{ "resource" : "riskUnit", "list" : [ ${item('RU-TEXT-5', 'spaced')} ] }\n`)).data.succeeded, ['RU-TEXT-5'])
  t.equal(await name('RU-TEXT-5'), 'spaced')
  // Gone again: the park holds what the enterprise holds (the tests below compare them).
  const ids = ['RU-TEXT-1', 'RU-TEXT-2', 'RU-TEXT-4', 'RU-TEXT-5', 'RU-TEXT-6']
  const tombstones = await pushToPark({ list: ids.map((id) => ({ ...pushedRiskUnit(id, 3, 'deleted'), deleted: true })) })
  t.same(tombstones.data.succeeded, ids)
})

t.test('the park down: writes answer as usual, stay pending, and reach the park when it is back', async (t) => {
  await park.stop()
  const codes = new Set<number>()
  for (let i = 0; i < 500; i++)
    codes.add((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', `RU-DOWN-${i}`), { token })).body.code)
  t.same([...codes], [0], '500 writes answered 0 while the park was down')
  const status = await enterprise.call('/system/sync/status', {}, { token })
  const riskUnits = status.body.data.resources.find((counts: any) => counts.resource === 'riskUnit')
  t.ok(riskUnits.pending >= 500, `${riskUnits.pending} pending while the park is down`)
  t.ok(status.body.data.oldestPendingSeconds > 0)
  // The metric says the age as of its scrape (read after the status: no younger), from the first scrape on.
  const scraped = await (await fetch(`${enterprise.url}/metrics`)).text()
  const age = Number(/^sync_oldest_pending_seconds (\S+)$/m.exec(scraped)?.[1])
  t.ok(age >= status.body.data.oldestPendingSeconds, `metrics ${age} s, status ${status.body.data.oldestPendingSeconds} s`)
  await park.start()
  // The minute's sweep, run now instead of waiting for the clock.
  await enterprise.app.push!.sweep()
  await eventually(() => allSynced(enterprise), { timeoutMs: 60_000, what: 'the backlog synced after the park came back' })
  t.same(await liveRecords(park.url, parkToken), await liveRecords(enterprise.url, token))
})

/**
 * The push's counters are final once nothing is pending and no drain is running: a drain (a
 * park-push job, or the sweep's) counts what it pushed before its job completes.
 */
async function pushIdle(): Promise<boolean> {
  if (!(await allSynced(enterprise))) return false
  const { rows } = await enterprise.database.pool.query(
    `SELECT count(*)::int AS active FROM pgboss.job WHERE name IN ('park-push', 'park-sweep') AND state = 'active'`,
  )
  return rows[0].active === 0
}

t.test('operators see the push: readiness includes pg-boss, metrics count records and calls', async (t) => {
  await eventually(pushIdle, { timeoutMs: 60_000, what: 'the push to be idle, its counters final' })
  const ready = (await (await fetch(`${enterprise.url}/health/ready`)).json()) as any
  t.equal(ready.data.push, 'ready')
  // A scrape's database reads are kept a second (cachedRead): one within a second of an earlier
  // scrape may say what was then.
  const text = await eventually(
    async () => {
      const scraped = await (await fetch(`${enterprise.url}/metrics`)).text()
      return /^sync_records\{resource="riskUnit",state="pending"\} 0$/m.test(scraped) && scraped
    },
    { what: 'a scrape after the push was idle' },
  )
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1])
  t.ok(value(/^sync_records\{resource="riskUnit",state="synced"\} (\d+)$/m) >= 500, 'synced risk units')
  t.equal(value(/^sync_records\{resource="riskUnit",state="pending"\} (\d+)$/m), 0)
  t.equal(value(/^sync_oldest_pending_seconds (\S+)$/m), 0)
  t.ok(value(/^park_push_calls_total (\d+)$/m) > 0, 'push calls counted')
  t.ok(value(/^park_push_call_failures_total (\d+)$/m) > 0, 'the calls that failed while the park was down')
  t.ok(value(/^park_push_records_acknowledged_total (\d+)$/m) >= 500)
  t.match(text, /^park_push_jobs\{state="queued"\} \d+$/m)
})

t.end()
