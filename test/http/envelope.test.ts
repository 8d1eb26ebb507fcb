// Every answer is the envelope, with the right HTTP status and code.
import net from 'node:net'
import { gzipSync } from 'node:zlib'
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

t.test('a compressed body answers 400/1000 saying so; identity is plain JSON', async (t) => {
  const body = JSON.stringify(record('riskUnit', 'RU-GZIP'))
  const gzipped = await service.call('/prevent/riskUnit/add', undefined, {
    token,
    raw: gzipSync(body),
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
  })
  t.equal(gzipped.status, 400)
  t.same(gzipped.body, { msg: 'Content-Encoding is not accepted: send the body as plain JSON', code: 1000, data: null, success: false })
  const plain = await service.call('/prevent/riskUnit/add', undefined, {
    token,
    raw: body,
    headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
  })
  t.equal(plain.body.code, 0)
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
  // Whatever the body: one that is not JSON, or one over the limit, names no operation either.
  for (const raw of ['{bad', 'x'.repeat(3 * 1024 * 1024)]) {
    for (const options of [{}, { token }]) {
      const reply = await service.call('/prevent/nothing/list', undefined, {
        ...options,
        raw,
        headers: { 'content-type': 'application/json' },
      })
      t.same([reply.status, reply.body.code], [404, 1008], `a body of ${raw.length} characters`)
    }
  }
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

t.test('a __proto__ member, or constructor.prototype, is an unknown field (200/1002), and writes nothing', async (t) => {
  for (const [raw, field] of [
    ['{"id":"RU-PROTO","riskUnitName":"x","__proto__":{"a":1}}', '__proto__'],
    ['{"id":"RU-PROTO","riskUnitName":"x","__proto__":null}', '__proto__'],
    ['{"id":"RU-PROTO","riskUnitName":"x","constructor":{"prototype":{}}}', 'constructor'],
    // Deeper, it is named by its path, as other unknown fields are.
    ['{"id":"RU-PROTO","riskUnitName":"x","extra":[{"a":1},{"__proto__":{}}]}', 'extra[1].__proto__'],
  ]) {
    const reply = await service.call('/prevent/riskUnit/add', undefined, { token, raw, headers: { 'content-type': 'application/json' } })
    t.same([reply.status, reply.body], [200, { msg: `${field}: unknown field`, code: 1002, data: null, success: false }], raw)
  }
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-PROTO' }, { token })).body.code, 1004)
  // Nested deeper than a recursive walk could go, or beside many members: still named, no 500.
  const depth = 20_000
  const deep = await service.call('/prevent/riskUnit/add', undefined, {
    token,
    raw: `{"id":"RU-PROTO","extra":${'['.repeat(depth)}{"__proto__":{}}${']'.repeat(depth)}}`,
    headers: { 'content-type': 'application/json' },
  })
  t.same([deep.status, deep.body.code], [200, 1002], 'deep')
  t.match(deep.body.msg, /^extra(\[0\])+\.__proto__: unknown field$/)
  const wide = await service.call('/prevent/riskUnit/add', undefined, {
    token,
    raw: `{"id":"RU-PROTO","extra":[${'1,'.repeat(20_000)}{"__proto__":{}}]}`,
    headers: { 'content-type': 'application/json' },
  })
  t.same([wide.status, wide.body.msg], [200, 'extra[20000].__proto__: unknown field'])
  const broken = await service.call('/prevent/riskUnit/add', undefined, {
    token,
    raw: '{"__proto__":',
    headers: { 'content-type': 'application/json' },
  })
  t.same([broken.status, broken.body.code], [400, 1000], 'text that is not JSON stays 1000')
})

t.test('in an add-batch, a __proto__ member of an item fails that item alone; at the top it fails the call', async (t) => {
  const headers = { 'content-type': 'application/json' }
  const raw =
    '{"list":[{"id":"RU-PB1","riskUnitName":"ok"},{"id":"RU-PB2","riskUnitName":"x","__proto__":{"a":1}},' +
    '{"id":"RU-PB3","riskUnitName":"x","constructor":{"prototype":{}}},{"id":"RU-PB4","riskUnitName":"ok"}]}'
  const reply = await service.call('/prevent/riskUnit/add-batch', undefined, { token, raw, headers })
  t.same([reply.status, reply.body.code], [200, 0])
  t.same(reply.body.data, {
    succeeded: ['RU-PB1', 'RU-PB4'],
    failed: [
      { id: 'RU-PB2', index: 1, code: 1002, reason: '__proto__: unknown field' },
      { id: 'RU-PB3', index: 2, code: 1002, reason: 'constructor: unknown field' },
    ],
  })
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-PB2' }, { token })).body.code, 1004)
  t.equal(({} as any).a, undefined, 'no prototype reached')
  const top = await service.call('/prevent/riskUnit/add-batch', undefined, {
    token,
    raw: '{"list":[{"id":"RU-PB5","riskUnitName":"ok"}],"__proto__":{}}',
    headers,
  })
  t.same([top.status, top.body.code, top.body.msg], [200, 1002, '__proto__: unknown field'])
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-PB5' }, { token })).body.code, 1004)
})

t.test("in the readings' add-batch too, a __proto__ member of a reading fails that reading alone", async (t) => {
  t.equal((await service.call('/hazard/monitorEquip/add', record('monitorEquip', 'ME-PROTO'), { token })).body.code, 0)
  const time = (offset: number) => new Date(Date.now() - 60_000 + offset * 1000).toISOString()
  const raw =
    `{"list":[{"monitorEquipId":"ME-PROTO","time":"${time(0)}","value":"1"},` +
    `{"monitorEquipId":"ME-PROTO","time":"${time(1)}","value":"2","__proto__":{"a":1}}]}`
  const reply = await service.call('/hazard/monitorData/add-batch', undefined, {
    token,
    raw,
    headers: { 'content-type': 'application/json' },
  })
  t.same([reply.status, reply.body.code], [200, 0])
  t.match(reply.body.data, {
    accepted: 1,
    duplicates: 0,
    failed: [{ index: 1, monitorEquipId: 'ME-PROTO', code: 1002, reason: '__proto__: unknown field' }],
  })
  t.equal(({} as any).a, undefined, 'no prototype reached')
})

t.test('a path whose percent-encoding is not valid is 404/1008, as the envelope', async (t) => {
  for (const path of ['/prevent/riskUnit/%ZZ', '/hazard/monitorEquip/list%E0', '/%ZZ']) {
    const reply = await service.call(path, {}, { token })
    t.same([reply.status, reply.body.code, reply.body.success, reply.body.data], [404, 1008, false, null], path)
    t.notMatch(JSON.stringify(reply.body), /FST_/, 'no library code')
  }
})

/** What the server answers to `text` sent on a raw connection, once it closes it. */
function rawAnswer(text: string): Promise<string> {
  const { port } = new URL(service.url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text))
    let answer = ''
    socket.on('data', (chunk) => (answer += chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(answer))
  })
}

t.test('HTTP that cannot be parsed, or headers too large, are answered as the envelope (1000)', async (t) => {
  const cases: [string, string, number][] = [
    ['a broken request line', 'NOT HTTP AT ALL\r\n\r\n', 400],
    ['a header name with a space', 'POST /system/login HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400],
    ['headers over 16 KiB', `POST /system/login HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ]
  for (const [what, text, status] of cases) {
    const answer = await rawAnswer(text)
    t.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), what)
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    t.same([body.code, body.success, body.data], [1000, false, null], `${what}: ${body.msg}`)
  }
})

t.end()
