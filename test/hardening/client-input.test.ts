// What a client sends never answers 5xx, and what the database cannot hold is refused
// (each case below was answered 500, or accepted, before). The pure rules behind it are unit tests:
// test/contract/storable.unit.test.ts, test/store/database-errors.unit.test.ts.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()

async function raw(
  path: string,
  body: Buffer | string | undefined,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  const response = await fetch(service.url + path, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body })
  return { status: response.status, body: (await response.json()) as any }
}

t.test('a NUL in any text field is 1002 naming the field: add, search value, login user name', async (t) => {
  const add = await service.call('/prevent/riskUnit/add', { id: 'RU-NUL', riskUnitName: 'tank\u0000farm' }, { token })
  t.same(add.body, { msg: 'riskUnitName: must not contain the NUL character (U+0000)', code: 1002, data: null, success: false })
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-NUL' }, { token })).body.code, 1004, 'nothing stored')
  const search = await service.call(
    '/prevent/riskUnit/search',
    { conditions: [{ field: 'riskUnitName', op: 'in', value: ['a', 'b\u0000'] }] },
    { token },
  )
  t.same([search.body.code, search.body.msg], [1002, 'conditions[0].value[1]: must not contain the NUL character (U+0000)'])
  const login = await service.call('/system/login', { userName: 'ad\u0000min', password: 'x' })
  t.same([login.status, login.body.code, login.body.msg], [200, 1002, 'userName: must not contain the NUL character (U+0000)'])
})

t.test('a lone UTF-16 surrogate is 1002 naming the field, never stored as U+FFFD', async (t) => {
  const user = await service.call('/system/user/add', { userName: 'a\ud800b', password: 'password-12345', role: 'viewer' }, { token })
  t.equal(user.body.code, 1002)
  t.match(user.body.msg, /^userName: must not contain a lone UTF-16 surrogate/)
  const add = await service.call('/prevent/riskUnit/add', { id: 'RU-SURROGATE', riskUnitName: 'tank \udc00' }, { token })
  t.same([add.body.code, add.body.msg], [1002, 'riskUnitName: must not contain a lone UTF-16 surrogate (not Unicode text)'])
})

t.test('pageNum 1e309 (Infinity) is 1002, on the resources and on users', async (t) => {
  for (const path of ['/prevent/riskUnit/list', '/system/user/list']) {
    const reply = await raw(path, '{"pageNum":1e309}')
    t.same([reply.status, reply.body.code, reply.body.msg], [200, 1002, 'pageNum: must be integer'], path)
  }
  t.equal((await raw('/prevent/riskUnit/list', '{"pageNum":9007199254740993}')).body.code, 1002, 'past 2^53 is not the integer sent')
})

t.test('operations without a body: nothing, an empty body or {} work; a string or an unknown field is refused', async (t) => {
  for (const path of ['/system/sync/status', '/system/sync/retry']) {
    t.equal((await raw(path, '"hello"')).body.code, 1000, `${path}: a JSON string`)
    t.equal((await raw(path, '{"foo":1}')).body.code, 1002, `${path}: an unknown field`)
    t.equal((await raw(path, '')).body.code, 0, `${path}: an empty JSON body is no body`)
  }
  t.equal((await raw('/system/sync/status', undefined, {})).body.code, 0, 'no body, no content type')
  const refreshToken = (await service.call('/system/login', { userName: 'admin', password: 'admin-password-for-tests' })).body.data
    .refresh_token
  const refresh = async (body: string) =>
    (await fetch(`${service.url}/system/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${refreshToken}`, 'content-type': 'application/json' },
      body,
    }).then((reply) => reply.json())) as any
  t.equal((await refresh('"x"')).code, 1000)
  t.equal((await refresh('{"a":1}')).code, 1002)
  t.equal((await refresh('{}')).code, 0)
  const other = await service.login()
  const logout = async (body: string) =>
    (await fetch(`${service.url}/system/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body,
    }).then((reply) => reply.json())) as any
  t.equal((await logout('"x"')).code, 1000)
  t.equal((await logout('{"a":1}')).code, 1002)
  t.equal((await logout('')).code, 0, 'an empty JSON body is no body')
})

t.test('a body that is not UTF-8 is 400/1000 and stores nothing', async (t) => {
  const text = Buffer.from('{"id":"RU-UTF8","riskUnitName":"tank "}')
  const broken = Buffer.concat([text.subarray(0, 35), Buffer.from([0xff, 0xfe]), text.subarray(35)])
  const reply = await raw('/prevent/riskUnit/add', broken)
  t.same([reply.status, reply.body.code], [400, 1000])
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-UTF8' }, { token })).body.code, 1004)
})

t.test('instants: an offset past ±15:59 and a year past 9999 in any zone are 1002; at the edges they read back', async (t) => {
  await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-T'), { token })
  await service.call('/prevent/riskEvents/add', record('riskEvents', 'RE-T', { riskUnitId: 'RU-T' }), { token })
  await service.call('/prevent/riskMeasures/add', record('riskMeasures', 'RM-T', { riskEventId: 'RE-T' }), { token })
  const task = (id: string, time: string) => record('troubleshootTask', id, { riskMeasureId: 'RM-T', taskStartTime: time })
  const offset = await service.call('/prevent/troubleshootTask/add', task('TT-OFFSET', '2026-11-21T08:00:00+20:00'), { token })
  t.same([offset.body.code, offset.body.msg], [1002, 'taskStartTime: offset must be within -15:59..+15:59'])
  const late = await service.call('/prevent/troubleshootTask/add', task('TT-LATE', '9999-12-31T20:00:00-10:00'), { token })
  t.same([late.body.code, late.body.msg], [1002, 'taskStartTime: must be between 0001-01-02T00:00:00Z and 9999-12-30T23:59:59Z'])
  const edge = await service.call('/prevent/troubleshootTask/add', task('TT-EDGE', '9999-12-30T23:59:59Z'), { token })
  t.equal(edge.body.code, 0)
  const read = await service.call('/prevent/troubleshootTask/getById', { id: 'TT-EDGE' }, { token })
  t.equal(read.body.data.taskStartTime, '9999-12-31T07:59:59+08:00', 'read back with a four-digit year')
  const search = await service.call(
    '/prevent/troubleshootTask/search',
    { conditions: [{ field: 'taskStartTime', op: 'gt', value: '2026-01-01T00:00:00+20:00' }] },
    { token },
  )
  t.equal(search.body.code, 1002)
})

t.test('add-batch: a bad item fails alone, the items before and after it are stored', async (t) => {
  const list = [
    { id: 'RU-B1', riskUnitName: 'one' },
    { id: 'RU-B2', riskUnitName: 'two\u0000' },
    { id: 'RU-B3', riskUnitName: 'three', longitude: 1 },
  ]
  const text = JSON.stringify({ list }).replace('"longitude":1', '"longitude":1e309')
  const reply = await raw('/prevent/riskUnit/add-batch', text)
  t.equal(reply.body.code, 0)
  t.same(reply.body.data.succeeded, ['RU-B1'])
  t.same(
    reply.body.data.failed.map((failure: any) => [failure.index, failure.code]),
    [
      [1, 1002],
      [2, 1002],
    ],
  )
  const offset = await service.call(
    '/prevent/troubleshootTask/add-batch',
    { list: [{ ...record('troubleshootTask', 'TT-B1'), riskMeasureId: null, taskStartTime: '2026-11-21T08:00:00+20:00' }] },
    { token },
  )
  t.same([offset.body.code, offset.body.data.failed[0].code], [0, 1002])
})

t.test('deep nesting under an Idempotency-Key is refused, not a stack overflow', async (t) => {
  const reply = await raw('/prevent/riskUnit/add-batch', `{"list":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}`, {
    'content-type': 'application/json',
    'idempotency-key': 'deep',
  })
  t.same([reply.status, reply.body.code, reply.body.data.failed[0].code], [200, 0, 1002])
})

t.end()
