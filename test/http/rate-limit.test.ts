// CONTRACT §6: login limited per user name and per address, the API per user; 429/1009 with Retry-After.

import http from 'node:http'
import t from 'tap'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const service = await startService(t, { env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_LOGIN_MAX: '3' } })

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

/** A login sent from a chosen loopback address, so per-address limits can be told apart. */
function loginFrom(localAddress: string, userName: string): Promise<{ status: number; code: number }> {
  const { port } = new URL(service.url)
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path: '/system/login', method: 'POST', localAddress, headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = ''
        response.on('data', (chunk) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode!, code: JSON.parse(text).code }))
      },
    )
    request.on('error', reject)
    request.end(JSON.stringify({ userName, password: 'guess' }))
  })
}

t.test('login is limited per user name, whatever the address', async (t) => {
  const codes = []
  for (let i = 0; i < 3; i++) codes.push((await loginFrom('127.0.0.2', 'mallory')).code)
  t.same(codes, [2004, 2004, 2004])
  t.same(await loginFrom('127.0.0.3', 'mallory'), { status: 429, code: 1009 }, 'a new address does not reset the user name')
})

t.test('login is limited per address, whatever the user name', async (t) => {
  const codes = []
  for (let i = 0; i < 3; i++) codes.push((await loginFrom('127.0.0.4', `user-${i}`)).code)
  t.same(codes, [2004, 2004, 2004])
  t.same(await loginFrom('127.0.0.4', 'yet-another'), { status: 429, code: 1009 }, 'a new user name does not reset the address')
})

t.end()
