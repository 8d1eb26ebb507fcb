// The SDK's session (src/sdk/client.ts): the token pair kept by login, the bearer on every call,
// one refresh and one retry on 401/2002, the 401 answered as it came when the refresh fails too,
// business failures returned (never thrown), logout. Time moves by the service's injected clock.
import t from 'tap'
import { createSafetyClient } from '../../src/sdk/client.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const HOUR = 3600 * 1000
let now = Date.parse('2026-11-21T05:00:00Z')
const service = await startService(t, { clock: () => now })

/** A client whose every request is recorded as `path bearer-token|-`. */
function recordingClient() {
  const calls: string[] = []
  const safety = createSafetyClient({
    baseUrl: service.url,
    fetch: (request) => {
      calls.push(`${new URL(request.url).pathname} ${request.headers.get('authorization')?.replace('Bearer ', '') ?? '-'}`)
      return fetch(request)
    },
  })
  return { safety, calls }
}

t.test('login keeps the token pair; every call carries the access token', async (t) => {
  const { safety, calls } = recordingClient()
  t.equal(safety.getTokens(), undefined)
  const login = await safety.login('admin', ADMIN_PASSWORD)
  t.equal(login.data?.code, 0)
  const tokens = safety.getTokens()!
  t.equal(tokens.accessToken, login.data?.data?.token)
  t.equal(tokens.refreshToken, login.data?.data?.refresh_token)
  t.ok(tokens.expiresAt.getTime() > Date.now() + 29 * 24 * HOUR)

  const listed = await safety.POST('/prevent/riskUnit/list', { body: {} })
  t.equal(listed.data?.code, 0)
  t.same(calls, ['/system/login -', `/prevent/riskUnit/list ${tokens.accessToken}`], 'login goes without a token, the call with it')
})

t.test('a failed login keeps nothing and is answered as it came', async (t) => {
  const { safety } = recordingClient()
  const login = await safety.login('admin', 'not-the-password')
  t.same(login.data, { msg: 'wrong user name or password', code: 2004, data: null, success: false })
  t.equal(safety.getTokens(), undefined)
  const call = await safety.POST('/prevent/riskUnit/list', { body: {} })
  t.equal(call.response.status, 401)
  t.equal(call.error?.code, 2001, 'no token held: not logged in')
})

t.test('business failures are HTTP 200 answers, returned as they came', async (t) => {
  const { safety } = recordingClient()
  await safety.login('admin', ADMIN_PASSWORD)
  const missing = await safety.POST('/prevent/riskUnit/getById', { body: { id: 'RU-NONE' } })
  t.equal(missing.response.status, 200)
  t.same(missing.data, { msg: 'record not found: RU-NONE', code: 1004, data: null, success: false })
  const invalid = await safety.POST('/prevent/riskUnit/add', { body: { id: 'RU-BAD' } as never })
  t.equal(invalid.data?.code, 1002)
  t.equal(invalid.error, undefined)
})

t.test('an expired access token: one refresh, the call retried once with the new token, body and headers intact', async (t) => {
  const { safety, calls } = recordingClient()
  await safety.login('admin', ADMIN_PASSWORD)
  // The refreshed access token lives 2 hours (the login token 30 days): refresh, then let it expire.
  const refreshed = await safety.refresh()
  t.equal(refreshed?.data?.code, 0)
  const expiring = safety.getTokens()!
  t.equal(expiring.accessToken, refreshed?.data?.data?.access_token)
  now += 3 * HOUR
  calls.length = 0

  const added = await safety.POST('/prevent/riskUnit/add', {
    params: { header: { 'Idempotency-Key': 'sdk-retry-1' } },
    body: { id: 'RU-SDK-RETRY', riskUnitName: 'Retried after a refresh' },
  })
  t.same(added.data, { msg: '', code: 0, data: null, success: true })
  const renewed = safety.getTokens()!
  t.not(renewed.accessToken, expiring.accessToken)
  t.equal(renewed.refreshToken, expiring.refreshToken, 'refresh reuses the refresh token')
  t.same(calls, [
    `/prevent/riskUnit/add ${expiring.accessToken}`,
    `/system/refresh ${expiring.refreshToken}`,
    `/prevent/riskUnit/add ${renewed.accessToken}`,
  ])
  // The retry carried the body and the Idempotency-Key: a repeat replays it, a new id is not there.
  const read = await safety.POST('/prevent/riskUnit/getById', { body: { id: 'RU-SDK-RETRY' } })
  t.equal(read.data?.data?.riskUnitName, 'Retried after a refresh')
  const replay = await safety.POST('/prevent/riskUnit/add', {
    params: { header: { 'Idempotency-Key': 'sdk-retry-1' } },
    body: { id: 'RU-SDK-RETRY', riskUnitName: 'Retried after a refresh' },
  })
  t.equal(replay.data?.code, 0, 'same key, same body: the first answer replayed')
})

t.test('concurrent calls answered 401/2002 share one refresh', async (t) => {
  const { safety, calls } = recordingClient()
  await safety.login('admin', ADMIN_PASSWORD)
  await safety.refresh()
  now += 3 * HOUR
  calls.length = 0
  const answers = await Promise.all([1, 2, 3, 4].map(() => safety.POST('/prevent/riskUnit/list', { body: {} })))
  t.same(
    answers.map((answer) => answer.data?.code),
    [0, 0, 0, 0],
  )
  t.equal(calls.filter((call) => call.startsWith('/system/refresh ')).length, 1)
  t.equal(calls.filter((call) => call.startsWith('/prevent/riskUnit/list ')).length, 8, 'each call sent twice')
})

t.test('when the refresh fails too, the 401 answer is returned; a 401 other than 2002 is not retried', async (t) => {
  const { safety, calls } = recordingClient()
  await safety.login('admin', ADMIN_PASSWORD)
  const held = safety.getTokens()!
  now += 31 * 24 * HOUR // the login token and the refresh token have both expired
  calls.length = 0
  const answer = await safety.POST('/prevent/riskUnit/list', { body: {} })
  t.equal(answer.response.status, 401)
  t.same(answer.error, { msg: 'token expired or invalid', code: 2002, data: null, success: false })
  t.same(calls, [`/prevent/riskUnit/list ${held.accessToken}`, `/system/refresh ${held.refreshToken}`], 'one refresh, no retry')
  t.same(safety.getTokens(), held, 'the tokens are kept: log in again')

  calls.length = 0
  const anonymous = await safety.POST('/prevent/riskUnit/list', { body: {}, headers: { authorization: 'Basic eA==' } })
  t.equal(anonymous.error?.code, 2001)
  t.same(calls, ['/prevent/riskUnit/list Basic eA=='], 'an Authorization header of the caller is left alone, and not retried')
})

t.test('logout revokes the session and forgets the tokens', async (t) => {
  const { safety, calls } = recordingClient()
  await safety.login('admin', ADMIN_PASSWORD)
  const held = safety.getTokens()!
  const out = await safety.logout()
  t.same(out.data, { msg: '', code: 0, data: null, success: true })
  t.equal(safety.getTokens(), undefined)
  t.equal(await safety.refresh(), undefined, 'nothing to refresh')
  calls.length = 0
  const after = await safety.POST('/prevent/riskUnit/list', { body: {} })
  t.equal(after.error?.code, 2001)
  t.same(calls, ['/prevent/riskUnit/list -'])
  // The revoked token is refused by the server (2002), the refresh token with it.
  const revoked = await service.call('/prevent/riskUnit/list', {}, { token: held.accessToken })
  t.equal(revoked.body.code, 2002)
  const refresh = await service.call('/system/refresh', undefined, { token: held.refreshToken })
  t.equal(refresh.body.code, 2002)
})

t.test('a session kept from getTokens (a copy) serves a new client without a login', async (t) => {
  const { safety } = recordingClient()
  await safety.login('admin', ADMIN_PASSWORD)
  const copy = safety.getTokens()!
  copy.accessToken = 'not-a-token'
  t.equal((await safety.POST('/prevent/riskUnit/list', { body: {} })).data?.code, 0, "changing the copy leaves the client's own")
  const later = createSafetyClient({ baseUrl: service.url, tokens: safety.getTokens() })
  t.equal((await later.POST('/prevent/riskUnit/list', { body: {} })).data?.code, 0)
  t.same(later.getTokens(), safety.getTokens())
})

t.test('language: every call asks for it, unless the call asks for its own', async (t) => {
  const safety = createSafetyClient({ baseUrl: service.url, language: 'zh-CN' })
  await safety.login('admin', ADMIN_PASSWORD)
  const chinese = await safety.POST('/prevent/riskUnit/getById', { body: { id: 'RU-NONE' } })
  t.equal(chinese.data?.code, 1004)
  t.equal(chinese.response.headers.get('content-language'), 'zh-CN')
  t.not(chinese.data?.msg, 'record not found: RU-NONE')
  const english = await safety.POST('/prevent/riskUnit/getById', { body: { id: 'RU-NONE' }, headers: { 'Accept-Language': 'en' } })
  t.same([english.data?.msg, english.response.headers.get('content-language')], ['record not found: RU-NONE', 'en'])
})

t.end()
