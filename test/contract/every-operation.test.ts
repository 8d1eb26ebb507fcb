// Every operation of the document is served and answers as the document says (the helper checks
// each response against its schema). Each is called here at least once on its success path.
import t from 'tap'
import { listOperations, loadOpenApi } from '../../src/contract/openapi-document.ts'
import { PARENT_FIELD, RESOURCE_PATHS, RESOURCES, record } from '../helpers/fixtures.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'
import { PUSHED_FACTS } from '../../src/store/pushed-facts.ts'

const { document } = loadOpenApi()
// Webhook endpoints on loopback (nothing listens there: their deliveries just fail).
const service = await startService(t, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
const token = await service.login()
const called = new Set<string>()
const operationIdOf = new Map(listOperations(document).map((operation) => [operation.path, operation.operationId]))

async function ok(path: string, body?: unknown, callToken = token) {
  const reply = await service.call(path, body, { token: callToken })
  called.add(operationIdOf.get(path)!)
  if (reply.body.code !== 0) throw new Error(`${path}: ${reply.status} ${reply.body.code} ${reply.body.msg}`)
  return reply.body.data
}

// The same operations on every resource of the registry, plus the system ones (7 + 9 × 7
// + 2 = 72 when it was written). Counted from the document and the registry, so a new resource or
// a new operation changes the count without changing this test.
t.test('the document lists every resource operation for each resource of the registry, and the system ones', async (t) => {
  const operations = listOperations(document)
  const resourceOperations = operations.filter((operation) => operation.spec['x-resource'] !== undefined)
  const system = operations.filter((operation) => operation.spec['x-resource'] === undefined && operation.path.startsWith('/system/'))
  const ofTheirOwn = operations.filter((operation) => operation.spec['x-resource'] === undefined && !operation.path.startsWith('/system/'))
  const actions = [...new Set(resourceOperations.map((operation) => operation.spec['x-action']))].sort()
  t.ok(actions.length > 0 && system.length > 0)
  t.same(
    [...new Set(resourceOperations.map((operation) => operation.spec['x-resource']))].sort(),
    RESOURCES.map((resource) => resource.key).sort(),
    'the resources of the document are those of the registry',
  )
  for (const resource of RESOURCES) {
    const own = resourceOperations.filter((operation) => operation.spec['x-resource'] === resource.key)
    t.same(own.map((operation) => operation.spec['x-action']).sort(), actions, `${resource.key}: every action once`)
    for (const operation of own)
      t.ok(operation.path.startsWith(`${RESOURCE_PATHS[resource.key]}/`), `${operation.path} is under its resource`)
  }
  // Operations of their own outside /system/: live monitoring's, and those of one resource alone
  // (troubleshootTask/periods, under that resource's path).
  for (const operation of ofTheirOwn) {
    t.ok(
      /^\/hazard\/monitor(Data|Alarm|Equip)\//.test(operation.path) ||
        Object.values(RESOURCE_PATHS).some((path) => operation.path.startsWith(`${path}/`)),
      `${operation.path} is a live monitoring operation or under its resource`,
    )
  }
  t.equal(operations.length, RESOURCES.length * actions.length + system.length + ofTheirOwn.length)
})

t.test('every resource operation', async (t) => {
  const ids: Record<string, string> = {}
  for (const resource of Object.keys(RESOURCE_PATHS)) {
    const path = RESOURCE_PATHS[resource]
    const id = `${resource}-1`
    const parent = PARENT_FIELD[resource]
    const overrides = parent ? { [parent[0]]: ids[parent[1]] } : {}
    await ok(`${path}/add`, record(resource, id, overrides))
    ids[resource] = id
    const batch = await ok(`${path}/add-batch`, { list: [record(resource, `${resource}-2`, overrides)] })
    t.same(batch, { succeeded: [`${resource}-2`], failed: [] }, resource)
    const read = await ok(`${path}/getById`, { id })
    t.equal(read.id, id)
    const page = await ok(`${path}/list`, { pageNum: 1, pageSize: 10 })
    t.equal(page.total, 2, `${resource} list`)
    const found = await ok(`${path}/search`, { conditions: [{ field: 'id', op: 'eq', value: id }] })
    t.equal(found.total, 1, `${resource} search`)
    await ok(`${path}/update`, { id, ...(resource === 'riskUnit' ? { riskUnitName: 'changed' } : {}) })
    const history = await ok(`${path}/history`, { id })
    t.equal(history.list.at(-1).action, 'add', `${resource} history`)
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
    await ok(`${path}/attachment/add`, { id: `${resource}-A`, recordId: id, fileName: 'photo.png', contentType: 'image/png', content: png })
    const attachments = await ok(`${path}/attachment/list`, { recordId: id })
    t.equal(attachments.total, 1, `${resource} attachments`)
    const attachment = await ok(`${path}/attachment/get`, { id: `${resource}-A` })
    t.equal(attachment.content, png)
    await ok(`${path}/attachment/delete`, { id: `${resource}-A` })
  }
  for (const resource of Object.keys(RESOURCE_PATHS).reverse()) {
    await ok(`${RESOURCE_PATHS[resource]}/delete`, { id: `${resource}-2` })
  }
})

t.test('every system operation', async (t) => {
  const session = await ok('/system/login', { userName: 'admin', password: 'admin-password-for-tests' })
  await ok('/system/refresh', undefined, session.refresh_token)
  await ok('/system/user/add', { userName: 'carol', password: 'carol-password', role: 'viewer' })
  await ok('/system/user/update', { userName: 'carol', role: 'operator' })
  const users = await ok('/system/user/list', { pageNum: 1, pageSize: 20 })
  t.equal(users.total, 2)
  await ok('/system/user/delete', { userName: 'carol' })
  const status = await ok('/system/sync/status', {})
  t.equal(
    status.resources.length,
    (RESOURCES.length + 1) * 2 + PUSHED_FACTS.length,
    'records and attachments of each resource and of the alarms, and each kind of supervision fact',
  )
  await ok('/system/sync/retry', {})
  t.ok(Array.isArray((await ok('/system/event/list', {})).list))
  t.match((await ok('/system/webhook/add', { id: 'hook', url: 'http://127.0.0.1:9/hook', types: ['record.added'] })).secret, /^whsec_/)
  await ok('/system/webhook/update', { id: 'hook', description: 'every operation' })
  t.equal((await ok('/system/webhook/list', {})).list.length, 1)
  await ok('/system/webhook/rotateSecret', { id: 'hook' })
  const { eventId } = await ok('/system/webhook/test', { id: 'hook' })
  await ok('/system/webhook/redeliver', { id: 'hook', eventId })
  await ok('/system/webhook/deliveries', { id: 'hook' })
  await ok('/system/webhook/delete', { id: 'hook' })
  await ok('/system/logout', undefined, session.token)
})

t.test('the park edition and reconciliation with it', async (t) => {
  const park = await startService(t, { env: { EDITION: 'park' } })
  const parkToken = await park.login()
  const okOn = async (on: typeof park, path: string, body: unknown, callToken: string) => {
    const reply = await on.call(path, body, { token: callToken })
    called.add(operationIdOf.get(path)!)
    if (reply.body.code !== 0) throw new Error(`${path}: ${reply.status} ${reply.body.code} ${reply.body.msg}`)
    return reply.body.data
  }
  // Before any enterprise pushes to it (an enterprise pushes its zone as it starts).
  const overview = await okOn(park, '/system/enterprise/list', {}, parkToken)
  t.same(overview, { list: [], total: 0 })
  const enterprise = await startService(t, { env: { PARK_URL: park.url, PARK_USER: 'admin', PARK_PASSWORD: ADMIN_PASSWORD } })
  const enterpriseToken = await enterprise.login()
  const digests = await okOn(park, '/system/sync/digest', { resource: 'riskUnit', companyCode: '000000000', prefixes: [''] }, parkToken)
  t.same(digests.buckets, [{ prefix: '', count: 0, digest: '0' }])
  const pushedRecord = { ...record('riskUnit', 'RU-EVERY'), companyCode: '123123123', version: 1, deleted: false }
  const stamps = { createTime: '2025-03-01T08:00:00+08:00', updateTime: '2025-03-01T08:00:00+08:00', createBy: 'a', updateBy: 'a' }
  const pushed = await okOn(park, '/system/push/records', { resource: 'riskUnit', list: [{ ...pushedRecord, ...stamps }] }, parkToken)
  t.same(pushed.held, [{ id: 'RU-EVERY', index: 0, version: 1 }])
  const tombstone = { ...pushedRecord, ...stamps, version: 2, deleted: true }
  t.same((await okOn(park, '/system/push/records', { resource: 'riskUnit', list: [tombstone] }, parkToken)).succeeded, ['RU-EVERY'])
  const attachment = { id: 'AT-EVERY', recordId: 'RU-EVERY', fileName: 'a.png', contentType: 'image/png', content: 'AAAA' }
  const refused = await okOn(
    park,
    '/system/push/attachment',
    { resource: 'riskUnit', ...attachment, ...stamps, companyCode: '123123123', version: 1, deleted: false },
    parkToken,
  )
  t.same(
    refused.failed.map((item: { code: number }) => item.code),
    [1002],
    'an attachment whose bytes are not what it says is refused alone',
  )
  const minute = { companyCode: '123123123', monitorEquipId: 'ME-EVERY', minute: '2025-03-01T08:00:00+08:00', min: '1', max: '1' }
  const minutes = await okOn(
    park,
    '/system/push/readings',
    { list: [{ ...minute, avg: '1', sum: '1', last: '1', lastQuality: 0, count: 1 }] },
    parkToken,
  )
  t.same(minutes, { applied: 1, failed: [] })
  const reconciled = await okOn(enterprise, '/system/sync/reconcile', {}, enterpriseToken)
  t.equal(reconciled.differences, 0)
  t.equal(reconciled.error, null)
})

t.test('supervision operations', async (t) => {
  t.equal(await ok('/system/calendar/set', { year: 2026, holidays: ['2026-10-01'], workdays: [] }), null)
  t.equal((await ok('/system/calendar/get', { year: 2026 })).default, false)
  t.equal((await ok('/prevent/troubleshootTask/periods', { from: '2026-01-01', to: '2026-01-31' })).total, 0)
  t.equal((await ok('/system/indicators', { from: '2026-01-01', to: '2026-01-31' })).list.length, 1)
})

t.test('every live monitoring operation', async (t) => {
  await ok('/hazard/monitorEquip/add', record('monitorEquip', 'MON-1', { oneLevelHigh: '1.6' }))
  const time = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString()
  const sent = await ok('/hazard/monitorData/add-batch', { list: [{ monitorEquipId: 'MON-1', time, value: '1.7' }] })
  t.same(sent, { accepted: 1, duplicates: 0, failed: [] })
  const window = { from: new Date(Date.now() - 3600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() }
  t.equal((await ok('/hazard/monitorData/list', { monitorEquipId: 'MON-1', ...window })).list.length, 1)
  t.equal((await ok('/hazard/monitorData/aggregate', { monitorEquipIds: ['MON-1'], ...window, bucket: '1h' })).list.length, 1)
  const [board] = (await ok('/hazard/monitorData/latest', { monitorEquipIds: ['MON-1'] })).list
  t.equal(board.alarms[0].kind, 'high')
  const alarm = board.alarms[0].id
  t.equal((await ok('/hazard/monitorAlarm/list', {})).total, 1)
  t.equal((await ok('/hazard/monitorAlarm/search', { conditions: [{ field: 'kind', op: 'eq', value: 'high' }] })).total, 1)
  t.equal((await ok('/hazard/monitorAlarm/getById', { id: alarm })).id, alarm)
  await ok('/hazard/monitorAlarm/acknowledge', { id: alarm })
  await ok('/hazard/monitorAlarm/dispose', { id: alarm, cause: '3', measures: 'calibrated' })
  t.equal((await ok('/hazard/monitorAlarm/history', { id: alarm })).total, 3)
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
  await ok('/hazard/monitorAlarm/attachment/add', {
    id: 'ALM-A',
    recordId: alarm,
    fileName: 'scene.png',
    contentType: 'image/png',
    content: png,
  })
  t.equal((await ok('/hazard/monitorAlarm/attachment/list', { recordId: alarm })).total, 1)
  t.equal((await ok('/hazard/monitorAlarm/attachment/get', { id: 'ALM-A' })).content, png)
  await ok('/hazard/monitorAlarm/attachment/delete', { id: 'ALM-A' })
  await ok('/hazard/monitorEquip/shelve', { id: 'MON-1', until: new Date(Date.now() + 3600_000).toISOString(), reason: 'maintenance' })
  await ok('/hazard/monitorEquip/unshelve', { id: 'MON-1' })
})

t.test('no operation was left uncalled', async (t) => {
  const missing = listOperations(document)
    .map((operation) => operation.operationId)
    .filter((id) => !called.has(id))
  t.same(missing, [])
})

t.end()
