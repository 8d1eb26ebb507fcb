// Login, refresh, logout, and every way a token can be wrong (2001 / 2002).

import { createHmac, randomBytes, scryptSync } from 'node:crypto'
import t from 'tap'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

let now = Date.now()
const service = await startService(t, { clock: () => now, env: { JWT_SECRET: 'a-test-secret-that-is-long-enough-0123456789' } })

const base64url = (value: object | string) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
const signWith = (secret: string, header: object, payload: object) => {
  const body = `${base64url(header)}.${base64url(payload)}`
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`
}
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())
const list = (token?: string, headers?: Record<string, string>) => service.call('/prevent/riskUnit/list', {}, { token, headers })

t.test('login answers a 30-day token, a refresh token and expires_in', async (t) => {
  const reply = await service.call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })
  t.equal(reply.body.code, 0)
  t.equal(reply.body.data.expires_in, 30 * 24 * 3600)
  const claims = claimsOf(reply.body.data.token)
  t.equal(claims.exp - claims.iat, 30 * 24 * 3600)
  t.equal((await list(reply.body.data.token)).body.code, 0)
})

t.test('a wrong password or an unknown user is 2004 with one message', async (t) => {
  const wrong = await service.call('/system/login', { userName: 'admin', password: 'not-the-password' })
  const unknown = await service.call('/system/login', { userName: 'nobody', password: 'not-the-password' })
  t.equal(wrong.status, 200)
  t.equal(wrong.body.code, 2004)
  t.equal(unknown.body.code, 2004)
  t.equal(wrong.body.msg, unknown.body.msg)
})

t.test('no Authorization, or not "Bearer <token>", is 401/2001', async (t) => {
  for (const headers of [
    undefined,
    { authorization: 'Basic YWRtaW46eA==' },
    { authorization: 'Bearer' },
    { authorization: 'bearer abc' },
  ]) {
    const reply = await list(undefined, headers)
    t.equal(reply.status, 401)
    t.equal(reply.body.code, 2001)
  }
})

t.test('forged and wrong tokens are 401/2002', async (t) => {
  const good = await service.login()
  const claims = claimsOf(good)
  const [header, payload, signature] = good.split('.')
  const tampered = `${header}.${base64url({ ...claims, sub: 'someone-else' })}.${signature}`
  const algNone = `${base64url({ alg: 'none', typ: 'JWT' })}.${payload}.`
  const otherSecret = signWith('another-secret-entirely-0123456789abcdef', { alg: 'HS256', typ: 'JWT' }, claims)
  for (const [name, token] of Object.entries({ tampered, algNone, otherSecret, garbage: 'not.a.token' })) {
    const reply = await list(token)
    t.equal(reply.status, 401, name)
    t.equal(reply.body.code, 2002, name)
  }
})

t.test('an expired token is 2002 (time moved by the injected clock)', async (t) => {
  const token = await service.login()
  now += 30 * 24 * 3600 * 1000 + 1000
  t.teardown(() => (now = Date.now()))
  const reply = await list(token)
  t.equal(reply.status, 401)
  t.equal(reply.body.code, 2002)
})

t.test("refresh: a 2-hour access token, the same refresh token; tokens are refused in each other's place", async (t) => {
  const login = (await service.call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })).body.data
  t.equal((await list(login.refresh_token)).body.code, 2002, 'refresh token as bearer')
  t.equal((await service.call('/system/refresh', undefined, { token: login.token })).body.code, 2002, 'access token to refresh')
  const refreshed = await service.call('/system/refresh', undefined, { token: login.refresh_token })
  t.equal(refreshed.body.code, 0)
  t.equal(refreshed.body.data.refresh_token, login.refresh_token)
  t.equal(refreshed.body.data.expires_in, 7200)
  const claims = claimsOf(refreshed.body.data.access_token)
  t.equal(claims.exp - claims.iat, 7200)
  t.equal((await list(refreshed.body.data.access_token)).body.code, 0)
  now += 7200 * 1000 + 1000
  t.teardown(() => (now = Date.now()))
  t.equal((await list(refreshed.body.data.access_token)).body.code, 2002, 'the refreshed access token expires after 2 hours')
  t.equal((await service.call('/system/refresh', undefined, { token: login.refresh_token })).body.code, 0, 'the refresh token still works')
})

t.test('logout revokes the session: its access and refresh tokens stop working, others do not', async (t) => {
  const session = (await service.call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })).body.data
  const other = await service.login()
  const out = await service.call('/system/logout', undefined, { token: session.token })
  t.equal(out.body.code, 0)
  t.equal((await list(session.token)).body.code, 2002)
  t.equal((await service.call('/system/refresh', undefined, { token: session.refresh_token })).body.code, 2002)
  t.equal((await list(other)).body.code, 0)
  const withEmptyBody = await service.call('/system/logout', {}, { token: other })
  t.equal(withEmptyBody.body.code, 0, 'logout also takes {}')
})

t.test('a disabled user cannot log in and its tokens stop working; a password change ends old tokens', async (t) => {
  const admin = await service.login()
  await service.call('/system/user/add', { userName: 'alice', password: 'alice-password', role: 'operator' }, { token: admin })
  const alice = await service.login('alice', 'alice-password')
  t.equal((await service.call('/system/user/update', { userName: 'alice', enabled: false }, { token: admin })).body.code, 0)
  t.equal((await list(alice)).body.code, 2002)
  t.equal((await service.call('/system/login', { userName: 'alice', password: 'alice-password' })).body.code, 2004)
  await service.call('/system/user/update', { userName: 'alice', enabled: true }, { token: admin })
  const again = await service.login('alice', 'alice-password')
  t.equal((await list(again)).body.code, 0)
  await service.call('/system/user/update', { userName: 'alice', password: 'a-new-password' }, { token: admin })
  t.equal((await list(again)).body.code, 2002)
  t.equal((await service.call('/system/login', { userName: 'alice', password: 'a-new-password' })).body.code, 0)
})

t.test('a token names its user by an id never reused, and its edition and enterprise (iss, aud)', async (t) => {
  const claims = claimsOf(await service.login())
  const admin = await service.database.prisma.appUser.findUniqueOrThrow({ where: { userName: 'admin' } })
  t.equal(claims.sub, admin.id)
  t.match(claims.sub, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  t.equal(claims.iss, 'safety-platform/enterprise/000000000')
  t.equal(claims.aud, 'safety-platform/enterprise/000000000')
})

t.test("a deleted user's tokens never work again, not even once a user of the same name is added", async (t) => {
  const admin = await service.login()
  const add = () => service.call('/system/user/add', { userName: 'bob', password: 'bob-password', role: 'admin' }, { token: admin })
  t.equal((await add()).body.code, 0)
  const old = (await service.call('/system/login', { userName: 'bob', password: 'bob-password' })).body.data
  t.equal((await list(old.token)).body.code, 0)
  t.equal((await service.call('/system/user/delete', { userName: 'bob' }, { token: admin })).body.code, 0)
  t.equal((await list(old.token)).status, 401, 'deleted: refused')
  t.equal((await add()).body.code, 0, 'the same name, the same password, the same role, generation 0 again')
  for (const [name, reply] of [
    ['access', await list(old.token)],
    ['refresh', await service.call('/system/refresh', undefined, { token: old.refresh_token })],
    ['user admin', await service.call('/system/user/list', {}, { token: old.token })],
  ] as const) {
    t.equal(reply.status, 401, name)
    t.equal(reply.body.code, 2002, name)
  }
  const fresh = await service.login('bob', 'bob-password')
  t.not(claimsOf(fresh).sub, claimsOf(old.token).sub)
  t.equal((await list(fresh)).body.code, 0, 'the new bob works')
})

t.test('a token of another edition or enterprise is refused, even with the same secret and users', async (t) => {
  const secret = service.config.jwtSecret!
  const env = { JWT_SECRET: secret }
  const park = await startService(t, { databaseUrl: service.databaseUrl, env: { ...env, EDITION: 'park' } })
  const otherEnterprise = await startService(t, { databaseUrl: service.databaseUrl, env: { ...env, COMPANY_CODE: '123456789' } })
  const enterpriseToken = await service.login()
  const parkToken = await park.login()
  const parkList = (token: string) => park.call('/prevent/riskUnit/list', {}, { token })
  t.equal((await parkList(parkToken)).body.code, 0, "the park's own token works there")
  t.equal((await list(parkToken)).body.code, 2002, "the park's token at the enterprise")
  t.equal((await parkList(enterpriseToken)).body.code, 2002, "the enterprise's token at the park")
  const other = await otherEnterprise.call('/prevent/riskUnit/list', {}, { token: enterpriseToken })
  t.equal(other.status, 401, 'at another enterprise sharing the secret')
  t.equal(other.body.code, 2002)

  // Signed with the right secret: only the right iss and aud pass.
  const claims = claimsOf(enterpriseToken)
  const header = { alg: 'HS256', typ: 'JWT' }
  t.equal((await list(signWith(secret, header, claims))).body.code, 0, 're-signed as issued: accepted (the control)')
  const { iss: _iss, aud: _aud, ...bare } = claims
  for (const [name, payload] of Object.entries({
    'no iss nor aud': bare,
    'no aud': { ...bare, iss: claims.iss },
    'park aud': { ...claims, aud: 'safety-platform/park/000000000' },
    'park iss': { ...claims, iss: 'safety-platform/park/000000000' },
    'a user name as sub': { ...claims, sub: 'admin' },
  })) {
    const reply = await list(signWith(secret, header, payload))
    t.equal(reply.status, 401, name)
    t.equal(reply.body.code, 2002, name)
  }
})

t.test('passwords are stored as salted scrypt hashes, at N = 2^13, r = 8, p = 10', async (t) => {
  const users = await service.database.prisma.appUser.findMany()
  for (const user of users) {
    t.match(user.passwordHash, /^scrypt\$8192\$8\$10\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
    t.notOk(user.passwordHash.includes(ADMIN_PASSWORD))
  }
})

t.test("a hash of another cost still logs in, and the login stores it again at today's cost", async (t) => {
  const prisma = service.database.prisma
  const salt = randomBytes(16)
  const key = scryptSync('an-older-password-1', salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 })
  const older = ['scrypt', 2 ** 15, 8, 1, salt.toString('base64'), key.toString('base64')].join('$')
  const admin = await service.login()
  const added = await service.call(
    '/system/user/add',
    { userName: 'older-hash', password: 'an-older-password-1', role: 'viewer' },
    { token: admin },
  )
  t.equal(added.body.code, 0)
  await prisma.appUser.update({ where: { userName: 'older-hash' }, data: { passwordHash: older } })
  const login = (password: string) => service.call('/system/login', { userName: 'older-hash', password })

  t.equal((await login('not-the-password')).body.code, 2004)
  t.equal(
    (await prisma.appUser.findUniqueOrThrow({ where: { userName: 'older-hash' } })).passwordHash,
    older,
    'a failed login changes nothing',
  )

  const first = await login('an-older-password-1')
  t.equal(first.body.code, 0)
  const stored = (await prisma.appUser.findUniqueOrThrow({ where: { userName: 'older-hash' } })).passwordHash
  t.match(stored, /^scrypt\$8192\$8\$10\$/)
  t.equal((await list(first.body.data.token)).body.code, 0, 'the token of that login works')
  t.equal((await login('an-older-password-1')).body.code, 0, 'the same password logs in against the new hash')
  t.equal((await login('not-the-password')).body.code, 2004)
  t.equal((await prisma.appUser.findUniqueOrThrow({ where: { userName: 'older-hash' } })).passwordHash, stored, 'stored once')
})

t.end()
