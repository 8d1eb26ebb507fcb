// Every operation of the document is served and answers as the document says (the helper checks
// each response against its schema). Each is called here at least once on its success path.
import t from 'tap'
import { listOperations, loadOpenApi } from '../../src/contract/openapi-document.ts'
import { PARENT_FIELD, RESOURCE_PATHS, RESOURCES, record } from '../helpers/fixtures.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

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

// CONTRACT §1: the same operations on every resource of the registry, plus the system ones (7 + 9 × 7
// + 2 = 72 when it was written). Counted from the document and the registry, so a new resource or
// a new operation changes the count without changing this test.
t.test('the document lists every resource operation for each resource of the registry, and the system ones', async (t) => {
  const operations = listOperations(document)
  const resourceOperations = operations.filter((operation) => operation.spec['x-resource'] !== undefined)
  const system = operations.filter((operation) => operation.spec['x-resource'] === undefined)
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
  for (const operation of system) t.ok(operation.path.startsWith('/system/'), `${operation.path} is a system operation`)
  t.equal(operations.length, RESOURCES.length * actions.length + system.length)
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
  t.equal(status.resources.length, RESOURCES.length * 2, 'records and attachments of each resource')
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
  const enterprise = await startService(t, { env: { PARK_URL: park.url, PARK_USER: 'admin', PARK_PASSWORD: ADMIN_PASSWORD } })
  const enterpriseToken = await enterprise.login()
  const okOn = async (on: typeof park, path: string, body: unknown, callToken: string) => {
    const reply = await on.call(path, body, { token: callToken })
    called.add(operationIdOf.get(path)!)
    if (reply.body.code !== 0) throw new Error(`${path}: ${reply.status} ${reply.body.code} ${reply.body.msg}`)
    return reply.body.data
  }
  const digests = await okOn(park, '/system/sync/digest', { resource: 'riskUnit', companyCode: '000000000', prefixes: [''] }, parkToken)
  t.same(digests.buckets, [{ prefix: '', count: 0, digest: '0' }])
  const overview = await okOn(park, '/system/enterprise/list', {}, parkToken)
  t.same(overview, { list: [], total: 0 })
  const reconciled = await okOn(enterprise, '/system/sync/reconcile', {}, enterpriseToken)
  t.equal(reconciled.differences, 0)
  t.equal(reconciled.error, null)
})

t.test('no operation was left uncalled', async (t) => {
  const missing = listOperations(document)
    .map((operation) => operation.operationId)
    .filter((id) => !called.has(id))
  t.same(missing, [])
})

t.end()
