// Rate limits: the API limited per user; login per client address and per (user name,
// address), so nobody elsewhere can lock an account; 429/1009 with Retry-After. Counted in the store
// every instance shares (PostgreSQL, or Redis with REDIS_URL): two instances allow the rate, not twice it.

import http from 'node:http'
import { Redis } from 'ioredis'
import t from 'tap'
import { pushedAttachment, pushedRecord } from '../helpers/fixtures.ts'
import { ADMIN_PASSWORD, startService, type TestService } from '../helpers/service.ts'

const limits = { RATE_LIMIT_MAX: '5', RATE_LIMIT_LOGIN_MAX: '3' }
const service = await startService(t, { env: limits })

t.test('the API is limited per user: the sixth call in the window is 429/1009 with Retry-After', async (t) => {
  const login = await service.call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })
  const token = login.body.data.token
  const codes = []
  for (let i = 0; i < 6; i++) codes.push((await service.call('/prevent/riskUnit/list', {}, { token })).status)
  t.same(codes, [200, 200, 200, 200, 200, 429])
  const limited = await service.call('/prevent/riskUnit/list', {}, { token })
  t.equal(limited.body.code, 1009)
  t.same(Object.keys(limited.body).sort(), ['code', 'data', 'msg', 'success'])
  t.match(limited.headers.get('retry-after'), /^\d+$/)
})

/** A login sent to a service from a chosen loopback address, so per-address limits can be told apart. */
function loginFrom(
  target: TestService,
  localAddress: string,
  userName: string,
  password = 'guess',
): Promise<{ status: number; code: number; retryAfter?: string }> {
  const { port } = new URL(target.url)
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path: '/system/login', method: 'POST', localAddress, headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = ''
        response.on('data', (chunk) => (text += chunk))
        response.on('end', () => {
          const retryAfter = response.headers['retry-after']
          resolve({ status: response.statusCode!, code: JSON.parse(text).code, ...(retryAfter && { retryAfter }) })
        })
      },
    )
    request.on('error', reject)
    request.end(JSON.stringify({ userName, password }))
  })
}

t.test('login is limited per (user name, address): the same name from elsewhere is not locked out', async (t) => {
  const codes = []
  for (let i = 0; i < 3; i++) codes.push((await loginFrom(service, '127.0.0.2', 'mallory')).code)
  t.same(codes, [2004, 2004, 2004])
  t.match(await loginFrom(service, '127.0.0.2', 'mallory'), { status: 429, code: 1009, retryAfter: /^\d+$/ })
  t.same(await loginFrom(service, '127.0.0.3', 'mallory'), { status: 200, code: 2004 }, 'another address: its own count')
})

t.test('wrong passwords for admin from one address do not keep admin out from another', async (t) => {
  for (let i = 0; i < 3; i++) await loginFrom(service, '127.0.0.5', 'admin')
  t.equal((await loginFrom(service, '127.0.0.5', 'admin', ADMIN_PASSWORD)).code, 1009, 'the attacking address is limited')
  t.same(await loginFrom(service, '127.0.0.6', 'admin', ADMIN_PASSWORD), { status: 200, code: 0 }, 'admin elsewhere logs in')
})

t.test('login is limited per address, whatever the user name', async (t) => {
  const codes = []
  for (let i = 0; i < 3; i++) codes.push((await loginFrom(service, '127.0.0.4', `user-${i}`)).code)
  t.same(codes, [2004, 2004, 2004])
  t.match(
    await loginFrom(service, '127.0.0.4', 'yet-another'),
    { status: 429, code: 1009, retryAfter: /^\d+$/ },
    'a new user name does not reset the address',
  )
})

t.test("the address's login limit is checked before the body is even read", async (t) => {
  const { port } = new URL(service.url)
  // 127.0.0.4 is over its limit: a body larger than login's limit is refused 429, not read (413).
  const status = await new Promise<number>((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/system/login',
        method: 'POST',
        localAddress: '127.0.0.4',
        headers: { 'content-type': 'application/json' },
      },
      (response) => (response.resume(), resolve(response.statusCode!)),
    )
    request.on('error', reject)
    request.end('{"userName":"' + 'x'.repeat(100_000) + '"}')
  })
  t.equal(status, 429)
})

/** Calls alternating between two instances: their answers' statuses. */
async function alternate(a: TestService, b: TestService, calls: number, call: (target: TestService) => Promise<number>) {
  const statuses = []
  for (let i = 0; i < calls; i++) statuses.push(await call(i % 2 === 0 ? a : b))
  return statuses
}

function twoInstances(name: string, env: Record<string, string>) {
  t.test(`${name}: two instances on one database allow the rate, not twice it`, async (t) => {
    const first = await startService(t, { env: { ...limits, ...env } })
    const second = await startService(t, { env: { ...limits, ...env }, databaseUrl: first.databaseUrl })
    const token = await first.login()
    const list = (target: TestService) => target.call('/prevent/riskUnit/list', {}, { token }).then((reply) => reply.status)
    t.same(await alternate(first, second, 7, list), [200, 200, 200, 200, 200, 429, 429], 'API: five calls in all')
    const login = (target: TestService) => loginFrom(target, '127.0.0.7', 'eve').then((reply) => reply.status)
    t.same(await alternate(first, second, 4, login), [200, 200, 200, 429], 'login: three attempts in all')
  })
}

t.test('on the park, pushes are not counted; the same account is limited elsewhere', async (t) => {
  const park = await startService(t, { env: { ...limits, EDITION: 'park' } })
  const token = await park.login()
  const item = (i: number) => pushedRecord('riskUnit', `RU-P${i}`)
  const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
  const statuses = []
  for (let i = 0; i < 4; i++) {
    statuses.push((await park.call('/system/push/records', { resource: 'riskUnit', list: [item(i)] }, { token })).status)
    const attachment = pushedAttachment(`RA-P${i}`, `RU-P${i}`, PNG)
    statuses.push((await park.call('/system/push/attachment', { resource: 'riskUnit', ...attachment }, { token })).status)
  }
  t.same(statuses, [200, 200, 200, 200, 200, 200, 200, 200], 'eight pushes (records, attachments) with a limit of five')
  const reads = []
  for (let i = 0; i < 6; i++) reads.push((await park.call('/prevent/riskUnit/list', {}, { token })).status)
  t.same(reads, [200, 200, 200, 200, 200, 429], 'reads are counted')
})

twoInstances('PostgreSQL', {})
twoInstances('Redis', { REDIS_URL: 'redis://127.0.0.1:6379' })

t.test('with REDIS_URL the counters are in Redis, not in the database', async (t) => {
  const withRedis = await startService(t, { env: { ...limits, REDIS_URL: 'redis://127.0.0.1:6379' } })
  await withRedis.call('/system/login', { userName: 'admin', password: 'wrong' })
  const { rows } = await withRedis.database.pool.query('SELECT count(*)::int AS n FROM rate_limit')
  t.equal(rows[0].n, 0)
  const redis = new Redis('redis://127.0.0.1:6379')
  t.teardown(() => redis.quit())
  const { rows: settings } = await withRedis.database.pool.query(`SELECT value FROM app_setting WHERE key = 'deployment_id'`)
  const keys = await redis.keys(`*safety-platform:${settings[0].value}:login-ip:*`)
  t.equal(keys.length, 1, 'the address counted in Redis under this deployment')
})

t.test('without REDIS_URL the counters are rows of rate_limit', async (t) => {
  const { rows } = await service.database.pool.query(`SELECT count(*)::int AS n FROM rate_limit WHERE key LIKE '%login-ip:127.0.0.4'`)
  t.equal(rows[0].n, 1)
})

t.end()
