// CONTRACT §2: every answer is the envelope, with the right HTTP status and code.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t, { env: { BODY_LIMIT: '65536' } })
const token = await service.login()

t.test('a body that is not JSON answers 400/1000', async (t) => {
  const reply = await service.call('/prevent/riskUnit/add', undefined, {
    token,
    raw: '{"id": ',
    headers: { 'content-type': 'application/json' },
  })
  t.equal(reply.status, 400)
  t.same(reply.body, { msg: reply.body.msg, code: 1000, data: null, success: false })
})

t.test('text/plain answers 400/1000', async (t) => {
  const reply = await service.call('/prevent/riskUnit/add', undefined, { token, raw: 'id=1', headers: { 'content-type': 'text/plain' } })
  t.equal(reply.status, 400)
  t.equal(reply.body.code, 1000)
})

t.test('an array body answers 400/1000', async (t) => {
  const reply = await service.call('/prevent/riskUnit/add', [record('riskUnit', 'RU-ARRAY')], { token })
  t.equal(reply.status, 400)
  t.equal(reply.body.code, 1000)
})

t.test('a missing body answers 400/1000', async (t) => {
  const reply = await service.call('/prevent/riskUnit/add', undefined, { token })
  t.equal(reply.status, 400)
  t.equal(reply.body.code, 1000)
})

t.test('an unknown field answers 200/1002 naming the field, and writes nothing', async (t) => {
  const reply = await service.call('/prevent/riskUnit/add', { id: 'RU-1', riskUnitName: 'Tank farm', colour: 'red' }, { token })
  t.equal(reply.status, 200)
  t.same(reply.body, { msg: 'colour: unknown field', code: 1002, data: null, success: false })
  const read = await service.call('/prevent/riskUnit/getById', { id: 'RU-1' }, { token })
  t.equal(read.body.code, 1004)
})

t.test('no type coercion: a numeric id is 1002', async (t) => {
  const reply = await service.call('/prevent/riskUnit/add', { id: 42, riskUnitName: 'Tank farm' }, { token })
  t.equal(reply.body.code, 1002)
  t.match(reply.body.msg, /^id: /)
})

t.test('a missing required field is 1002 "field: required"', async (t) => {
  const reply = await service.call('/prevent/riskUnit/add', { id: 'RU-2' }, { token })
  t.same(reply.body, { msg: 'riskUnitName: required', code: 1002, data: null, success: false })
})

t.test('server-kept fields are refused on add', async (t) => {
  const reply = await service.call('/prevent/riskUnit/add', { ...record('riskUnit', 'RU-3'), sync_status: 'synced' }, { token })
  t.equal(reply.body.code, 1002)
  t.match(reply.body.msg, /sync_status: unknown field/)
})

t.test('unknown paths and methods answer 404/1008, with or without a token', async (t) => {
  for (const options of [{}, { token }]) {
    const reply = await service.call('/prevent/nothing/add', {}, options)
    t.equal(reply.status, 404)
    t.same(reply.body, { msg: reply.body.msg, code: 1008, data: null, success: false })
  }
  const get = await fetch(`${service.url}/prevent/riskUnit/add`)
  t.equal(get.status, 404)
  t.equal(((await get.json()) as any).code, 1008)
})

t.test('a body over the limit answers 413/1010', async (t) => {
  const reply = await service.call('/prevent/riskUnit/add', { id: 'RU-BIG', riskUnitName: 'x'.repeat(70000) }, { token })
  t.equal(reply.status, 413)
  t.equal(reply.body.code, 1010)
})

t.test('the default body limit fits a 500-item batch of the largest records', async (t) => {
  const { loadConfig } = await import('../../src/config.ts')
  const limit = loadConfig({ DATABASE_URL: 'postgresql://x/y' }).bodyLimit
  const longest = record('trainBaseInfo', 'X'.repeat(64), {
    participantNames: '\u4e2d'.repeat(4000),
    summary: '\u4e2d'.repeat(2000),
    trainName: '\u4e2d'.repeat(200),
  })
  const batch = JSON.stringify({ list: Array.from({ length: 500 }, () => longest) })
  t.ok(Buffer.byteLength(batch) < limit, `${Buffer.byteLength(batch)} bytes fit in ${limit}`)
})

t.test('the published document is served as JSON and YAML', async (t) => {
  const json = await fetch(`${service.url}/openapi.json`)
  t.equal(json.status, 200)
  t.equal(((await json.json()) as any).openapi, '3.1.0')
  const yaml = await fetch(`${service.url}/openapi.yaml`)
  t.match(yaml.headers.get('content-type'), /yaml/)
  t.match(await yaml.text(), /^openapi: "?3\.1\.0"?$/m)
})

t.test('health: live, and ready once migrated', async (t) => {
  t.equal((await fetch(`${service.url}/health/live`)).status, 200)
  const ready = await fetch(`${service.url}/health/ready`)
  t.equal(ready.status, 200)
  t.equal(((await ready.json()) as any).success, true)
})

t.end()
