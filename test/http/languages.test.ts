// `msg` in the caller's language: every kind of refusal provoked twice, with `Accept-Language: en`
// and with `zh-CN`. Only `msg` differs: the HTTP status, `code`, `data` and `success` are the same,
// field names and the caller's values stay as sent, and every answer names its language in
// Content-Language (and varies on Accept-Language).
import net from 'node:net'
import t, { type Test } from 'tap'
import { record } from '../helpers/fixtures.ts'
import { ADMIN_PASSWORD, startService, type TestService } from '../helpers/service.ts'

const service = await startService(t, { env: { BODY_LIMIT: '65536' } })
const token = await service.login()
const viewer = await service.userToken('viewer', 'viewer-li')

type CallOptions = Parameters<TestService['call']>[2]

/** The same request in English and in Chinese: both msgs, after checking that nothing else differs. */
async function inBoth(t: Test, path: string, body: unknown, options: CallOptions = {}, target = service) {
  const ask = (language: string) => target.call(path, body, { ...options, headers: { ...options.headers, 'accept-language': language } })
  const en = await ask('en')
  const zh = await ask('zh-CN')
  t.equal(en.headers.get('content-language'), 'en', `${path}: Content-Language en`)
  t.equal(zh.headers.get('content-language'), 'zh-CN', `${path}: Content-Language zh-CN`)
  for (const reply of [en, zh])
    t.match(reply.headers.get('vary'), /(^|,\s*)Accept-Language(\s*,|$)/i, `${path}: Vary names Accept-Language`)
  t.equal(zh.status, en.status, `${path}: the same HTTP status`)
  t.same({ ...zh.body, msg: 'msg' }, { ...en.body, msg: 'msg' }, `${path}: only msg differs`)
  t.same(Object.keys(zh.body).sort(), ['code', 'data', 'msg', 'success'])
  return { code: en.body.code as number, status: en.status, en: en.body.msg as string, zh: zh.body.msg as string, data: en.body.data }
}

t.test('1000: a body that is not JSON', async (t) => {
  const answer = await inBoth(t, '/prevent/riskUnit/add', undefined, {
    token,
    raw: '{"id": ',
    headers: { 'content-type': 'application/json' },
  })
  t.same(answer, { code: 1000, status: 400, en: 'request body is not valid JSON', zh: '请求体不是有效的 JSON', data: null })
})

t.test('1002: an unknown field, a required field, a length, named as sent', async (t) => {
  const unknown = await inBoth(t, '/prevent/riskUnit/add', { id: 'RU-L1', riskUnitName: 'Tank farm', Colour_x: 'red' }, { token })
  t.same([unknown.code, unknown.en, unknown.zh], [1002, 'Colour_x: unknown field', '参数错误：未知字段 Colour_x'])
  const required = await inBoth(t, '/prevent/riskUnit/add', { id: 'RU-L1' }, { token })
  t.same([required.code, required.en, required.zh], [1002, 'riskUnitName: required', '参数错误：riskUnitName 必填'])
  const long = await inBoth(t, '/prevent/riskUnit/add', record('riskUnit', 'RU-L1', { riskUnitName: '罐'.repeat(201) }), { token })
  t.same(
    [long.code, long.en, long.zh],
    [1002, 'riskUnitName: must NOT have more than 200 characters', '参数错误：riskUnitName 长度不能超过 200 个字符'],
  )
  const several = await inBoth(t, '/prevent/riskUnit/add', { id: 'RU-L1', extraA: 1 }, { token })
  t.equal(several.zh, '参数错误：riskUnitName 必填；未知字段 extraA', 'several problems, joined in Chinese')
  t.equal(several.en, 'riskUnitName: required; extraA: unknown field')
})

t.test('1002: a cross-field rule and a search, fields and values as sent', async (t) => {
  const rule = await inBoth(
    t,
    '/prevent/ticketBaseInfo/add',
    record('ticketBaseInfo', 'TB-L1', { isContractorWork: '1', contractorOrg: null }),
    { token },
  )
  t.same(
    [rule.code, rule.en, rule.zh],
    [1002, 'contractorOrg: required when isContractorWork is 1', '参数错误：contractorOrg 必填（当 isContractorWork 为 1 时）'],
  )
  const search = await inBoth(
    t,
    '/prevent/riskUnit/search',
    { conditions: [{ field: 'createTime', op: 'like', value: '2026%' }] },
    { token },
  )
  t.same(
    [search.code, search.en, search.zh],
    [
      1002,
      'conditions[0].op: like applies to text fields only, not createTime',
      '参数错误：conditions[0].op：like 只适用于文本字段，createTime 不是文本字段',
    ],
  )
})

t.test('1001: a unique value already used, quoted as sent', async (t) => {
  t.equal(
    (await service.call('/system/user/add', { userName: 'wang-xiaoming', password: 'pw-secret-1', role: 'operator' }, { token })).body.code,
    0,
  )
  const answer = await inBoth(t, '/system/user/add', { userName: 'wang-xiaoming', password: 'pw-secret-1', role: 'operator' }, { token })
  t.same([answer.code, answer.en, answer.zh], [1001, 'userName already exists: wang-xiaoming', 'userName 已存在：wang-xiaoming'])
})

t.test('1003, 1004, 1005, 1006, 1011, 1012: the record rules', async (t) => {
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-L2'), { token })).body.code, 0)
  const exists = await inBoth(t, '/prevent/riskUnit/add', record('riskUnit', 'RU-L2'), { token })
  t.same([exists.code, exists.en, exists.zh], [1003, 'id already exists: RU-L2', 'id 已存在：RU-L2'])
  const missing = await inBoth(t, '/prevent/riskUnit/getById', { id: 'RU-NONE-1' }, { token })
  t.same([missing.code, missing.en, missing.zh], [1004, 'record not found: RU-NONE-1', '记录不存在：RU-NONE-1'])
  const empty = await inBoth(t, '/prevent/riskUnit/add-batch', { list: [] }, { token })
  t.same([empty.code, empty.en, empty.zh], [1005, 'list must hold 1 to 500 items, got 0', 'list 须包含 1 至 500 条数据，实际为 0 条'])
  const orphan = await inBoth(t, '/prevent/riskEvents/add', record('riskEvents', 'RE-L1', { riskUnitId: 'RU-NONE' }), { token })
  t.same(
    [orphan.code, orphan.en, orphan.zh],
    [1006, 'riskUnitId: referenced riskUnit RU-NONE does not exist', 'riskUnitId：引用的 riskUnit RU-NONE 不存在'],
  )
  t.equal(
    (await service.call('/prevent/ticketBaseInfo/add', record('ticketBaseInfo', 'TB-L2', { ticketStatus: '1' }), { token })).body.code,
    0,
  )
  t.equal((await service.call('/prevent/ticketBaseInfo/update', { id: 'TB-L2', ticketStatus: '2' }, { token })).body.code, 0)
  const move = await inBoth(t, '/prevent/ticketBaseInfo/update', { id: 'TB-L2', ticketStatus: '1' }, { token })
  t.same([move.code, move.en, move.zh], [1011, 'ticketStatus: illegal transition 2 -> 1', 'ticketStatus：不允许从 2 变更为 1'])
  t.equal((await service.call('/prevent/riskEvents/add', record('riskEvents', 'RE-L2', { riskUnitId: 'RU-L2' }), { token })).body.code, 0)
  const held = await inBoth(t, '/prevent/riskUnit/delete', { id: 'RU-L2' }, { token })
  t.same(
    [held.code, held.en, held.zh],
    [1012, 'riskUnit RU-L2 is still referenced by riskEvents.riskUnitId', 'riskUnit RU-L2 仍被 riskEvents.riskUnitId 引用，无法删除'],
  )
})

t.test("add-batch: an item's failed[].reason stays English in both languages", async (t) => {
  const answer = await inBoth(
    t,
    '/prevent/riskUnit/add-batch',
    { list: [{ id: 'RU-L3' }, record('riskUnit', 'RU-NONE-2', { extraB: 1 })] },
    { token },
  )
  t.equal(answer.code, 0)
  t.same(answer.data.failed, [
    { id: 'RU-L3', index: 0, code: 1002, reason: 'riskUnitName: required' },
    { id: 'RU-NONE-2', index: 1, code: 1002, reason: 'extraB: unknown field' },
  ])
})

t.test('1007: an Idempotency-Key reused with another body', async (t) => {
  const headers = { 'idempotency-key': 'key-languages-1' }
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-L5'), { token, headers })).body.code, 0)
  const answer = await inBoth(t, '/prevent/riskUnit/add', record('riskUnit', 'RU-L6'), { token, headers })
  t.same(
    [answer.code, answer.en, answer.zh],
    [1007, 'Idempotency-Key reused with a different body', '该 Idempotency-Key 已用于另一个不同的请求体'],
  )
})

t.test("a kept answer replayed is written in the replaying request's language", async (t) => {
  const headers = { 'idempotency-key': 'key-languages-2' }
  const body = record('riskEvents', 'RE-L3', { riskUnitId: 'RU-GONE' })
  const first = await service.call('/prevent/riskEvents/add', body, { token, headers: { ...headers, 'accept-language': 'en' } })
  t.equal(first.body.msg, 'riskUnitId: referenced riskUnit RU-GONE does not exist')
  const replay = await inBoth(t, '/prevent/riskEvents/add', body, { token, headers })
  t.same([replay.code, replay.zh], [1006, 'riskUnitId：引用的 riskUnit RU-GONE 不存在'])
})

t.test('2001, 2002, 2003, 2004: authentication and roles', async (t) => {
  const anonymous = await inBoth(t, '/prevent/riskUnit/list', {})
  t.same([anonymous.status, anonymous.code, anonymous.en, anonymous.zh], [401, 2001, 'not logged in', '未登录'])
  const forged = await inBoth(t, '/prevent/riskUnit/list', {}, { token: 'not.a.token' })
  t.same([forged.status, forged.code, forged.en, forged.zh], [401, 2002, 'token expired or invalid', '令牌已过期或无效'])
  const denied = await inBoth(t, '/prevent/riskUnit/add', record('riskUnit', 'RU-L7'), { token: viewer })
  const operationId = /may not call (\S+)$/.exec(denied.en)?.[1]
  t.ok(operationId, denied.en)
  t.same([denied.status, denied.code, denied.zh], [403, 2003, `权限不足：角色 viewer 无权调用 ${operationId}`])
  const wrong = await inBoth(t, '/system/login', { userName: 'admin', password: 'not-the-password' })
  t.same([wrong.code, wrong.en, wrong.zh], [2004, 'wrong user name or password', '用户名或密码错误'])
})

t.test('1008, 1010: a path not served, a body too large', async (t) => {
  const path = await inBoth(t, '/prevent/noSuch/list', {}, { token })
  t.same(
    [path.status, path.code, path.en, path.zh],
    [404, 1008, 'no such path: POST /prevent/noSuch/list', '接口路径不存在：POST /prevent/noSuch/list'],
  )
  const encoding = await inBoth(t, '/prevent/riskUnit/%ZZ', {}, { token })
  t.same(
    [encoding.status, encoding.code, encoding.zh],
    [404, 1008, '接口路径不存在：URL 的百分号编码无效'],
    'refused before routing, in the language asked for',
  )
  const large = await inBoth(t, '/system/login', undefined, {
    raw: `{"userName":"${'x'.repeat(5000)}"}`,
    headers: { 'content-type': 'application/json' },
  })
  t.same([large.status, large.code, large.en, large.zh], [413, 1010, 'request body too large', '请求体过大'])
})

t.test('1009: the rate limit, in both languages, Retry-After kept', async (t) => {
  const limited = await startService(t, { env: { RATE_LIMIT_LOGIN_MAX: '1' } })
  t.equal((await limited.call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })).body.code, 0)
  const answer = await inBoth(t, '/system/login', { userName: 'admin', password: ADMIN_PASSWORD }, {}, limited)
  t.equal(answer.status, 429)
  t.equal(answer.code, 1009)
  t.match(answer.en, /^too many logins: retry in \d+ s$/)
  t.match(answer.zh, /^登录过于频繁，请 \d+ 秒后重试$/)
})

t.test('success answers carry Content-Language too; no header, or only other languages, is English', async (t) => {
  const listed = await inBoth(t, '/prevent/riskUnit/list', {}, { token })
  t.same([listed.code, listed.en, listed.zh], [0, '', ''])
  for (const header of [undefined, 'fr-FR, de;q=0.9', '*', 'en-US,en;q=0.9,zh-CN;q=0.8']) {
    const reply = await service.call(
      '/prevent/riskUnit/getById',
      { id: 'RU-X' },
      { token, headers: header ? { 'accept-language': header } : {} },
    )
    t.same([reply.headers.get('content-language'), reply.body.msg], ['en', 'record not found: RU-X'], `Accept-Language: ${header}`)
  }
  for (const header of ['zh-CN,zh;q=0.9,en;q=0.8', 'zh-TW', 'zh-Hans', 'en;q=0.5, zh', '*, zh']) {
    const reply = await service.call('/prevent/riskUnit/getById', { id: 'RU-X' }, { token, headers: { 'accept-language': header } })
    t.same([reply.headers.get('content-language'), reply.body.msg], ['zh-CN', '记录不存在：RU-X'], `Accept-Language: ${header}`)
  }
})

t.test('HTTP that cannot be parsed is answered in English, saying so', async (t) => {
  const { port } = new URL(service.url)
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\nAccept-Language: zh-CN\r\n\r\n'))
    let text = ''
    socket.on('data', (chunk) => (text += chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(text))
  })
  t.match(answer, /^HTTP\/1\.1 400 /)
  t.match(answer, /\r\nContent-Language: en\r\n/)
  t.match(answer, /"msg":"malformed HTTP request"/)
})

t.end()
