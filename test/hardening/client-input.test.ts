// Issue 9: what a client sends never answers 5xx, and what the database cannot hold is refused
// (each case below was answered 500, or accepted, before). Plus the pure rules behind it.
import t from 'tap'
import { dateProblem, findUnstorable, instantProblem, integerProblem, textProblem } from '../../src/contract/storable.ts'
import { canonicalJson } from '../../src/operations/canonical-json.ts'
import { classifyDatabaseError, sqlState } from '../../src/store/database-errors.ts'
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

t.test('storable: the rules', async (t) => {
  t.equal(textProblem('ok \u4e2d \u{1f600}'), undefined)
  t.match(textProblem('a\u0000'), /NUL/)
  t.match(textProblem('\udfff'), /surrogate/)
  t.equal(integerProblem(2 ** 53 - 1), undefined)
  t.ok(integerProblem(2 ** 53))
  t.equal(instantProblem('2026-11-21T13:02:35+08:00'), undefined)
  t.equal(instantProblem('0001-01-02T00:00:00Z'), undefined)
  t.ok(instantProblem('0001-01-01T23:59:59Z'))
  t.ok(instantProblem('9999-12-31T00:00:00Z'))
  t.ok(instantProblem('2026-01-01T00:00:00+16:00'))
  t.equal(instantProblem('2026-01-01T00:00:00-1559'), undefined)
  t.ok(dateProblem('0000-01-01'))
  t.equal(dateProblem('0001-01-01'), undefined)
  t.same(findUnstorable({ a: [1, 'x', { b: 'y\u0000' }] }), { path: '/a/2/b', problem: 'must not contain the NUL character (U+0000)' })
  t.same(findUnstorable([Infinity]), { path: '/0', problem: 'must be a finite number' })
  let deep: unknown = 'z\ud800'
  for (let i = 0; i < 100_000; i++) deep = [deep]
  t.ok(findUnstorable(deep), 'any depth, no recursion')
})

t.test('canonical JSON: sorted keys, any depth', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [true, null, { d: 'x', c: 2 }] }), '{"a":[true,null,{"c":2,"d":"x"}],"b":1}')
  let deep: unknown = 1
  for (let i = 0; i < 100_000; i++) deep = [deep]
  t.equal(canonicalJson(deep).length, 200_001)
})

t.test('database errors: classified by SQLSTATE, however wrapped', async (t) => {
  const pgError = (code: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error('x'), { code, severity: 'ERROR', ...extra })
  t.same(classifyDatabaseError(pgError('22021'))?.code, 1002, 'NUL byte')
  t.same(classifyDatabaseError(pgError('22009'))?.code, 1002, 'time zone displacement')
  t.same(classifyDatabaseError(pgError('22P02'))?.code, 1002, 'any other data exception')
  t.same(classifyDatabaseError(pgError('54000'))?.code, 1002, 'a value too large to index')
  t.same(classifyDatabaseError(pgError('23505'))?.code, 1001)
  t.same(
    classifyDatabaseError(pgError('23503', { detail: 'Key (riskUnitId, live)=(x, t) is not present in table "risk_unit".' }))?.code,
    1006,
  )
  t.same(
    classifyDatabaseError(pgError('23503', { detail: 'Key (id, live)=(x, t) is still referenced from table "risk_events".' }))?.code,
    1012,
  )
  for (const code of ['08006', '57P01', '57P03', '53300', '57014', '40P01', '55P03', '3D000'])
    t.same(classifyDatabaseError(pgError(code))?.code, 4001, code)
  for (const code of ['42P01', '42601', 'XX000', '0A000']) t.equal(classifyDatabaseError(pgError(code)), undefined, `${code} is unexpected`)
  const socket = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' })
  t.same(classifyDatabaseError(socket)?.code, 4001)
  t.same(classifyDatabaseError(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))?.code, 4001, 'a Node code is not a SQLSTATE')
  t.same(classifyDatabaseError(new Error('timeout exceeded when trying to connect'))?.code, 4001, 'the pool connect timeout')
  t.same(classifyDatabaseError(new Error('Connection terminated unexpectedly'))?.code, 4001)
  const adapter = { name: 'DriverAdapterError', cause: { originalCode: '22021', kind: 'postgres', code: '22021' } }
  t.equal(sqlState(adapter), '22021')
  t.same(classifyDatabaseError(adapter)?.code, 1002, 'Prisma driver adapter error')
  const known = { code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '57014' } } } }
  t.same(classifyDatabaseError(known)?.code, 4001, 'Prisma known request error')
  t.same(classifyDatabaseError({ name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable' } })?.code, 4001)
  t.same(classifyDatabaseError({ code: 'P2024' })?.code, 4001, 'Prisma pool timeout')
  t.equal(classifyDatabaseError(new TypeError('x is undefined')), undefined, 'our own bug stays unexpected')
  t.equal(classifyDatabaseError(undefined), undefined)
})

t.end()
