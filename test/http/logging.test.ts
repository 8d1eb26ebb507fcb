// Passwords are never logged; nor are tokens or Authorization headers. Each request
// leaves one completion line carrying its request id.

import { Writable } from 'node:stream'
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually } from '../helpers/park.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const lines: string[] = []
let pending = ''
const memory = new Writable({
  write(chunk, _encoding, done) {
    const parts = (pending + chunk.toString()).split('\n')
    pending = parts.pop()!
    lines.push(...parts.filter((line) => line !== ''))
    done()
  },
})

const service = await startService(t, { logger: { level: 'info', stream: memory } })

t.test('no password, token or Authorization header value reaches the log', async (t) => {
  const start = lines.length
  const secrets: string[] = [ADMIN_PASSWORD]
  const login = await service.call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })
  const { token, refresh_token: refreshToken } = login.body.data
  secrets.push(token, refreshToken)

  const operatorPassword = 'operator-Pa55word-never-logged'
  t.equal(
    (await service.call('/system/user/add', { userName: 'op1', password: operatorPassword, role: 'operator' }, { token })).body.code,
    0,
  )
  secrets.push(operatorPassword)
  const changedPassword = 'changed-Pa55word-never-logged'
  t.equal((await service.call('/system/user/update', { userName: 'op1', password: changedPassword }, { token })).body.code, 0)
  secrets.push(changedPassword)
  const wrongPassword = 'wrong-Pa55word-never-logged'
  t.equal((await service.call('/system/login', { userName: 'op1', password: wrongPassword })).body.code, 2004)
  secrets.push(wrongPassword)

  const operatorToken = await service.login('op1', changedPassword)
  secrets.push(operatorToken)
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-LOG'), { token: operatorToken })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/list', {}, { token: operatorToken })).body.code, 0)
  const refreshed = await service.call('/system/refresh', undefined, { token: refreshToken })
  t.equal(refreshed.body.code, 0)
  secrets.push(refreshed.body.data.access_token)
  const tampered = `${token.slice(0, -4)}AAAA`
  secrets.push(tampered)
  t.equal((await service.call('/prevent/riskUnit/list', {}, { token: tampered })).body.code, 2002)
  t.equal((await service.call('/system/logout', undefined, { token: operatorToken })).body.code, 0)
  t.equal(
    (await service.call('/prevent/riskUnit/list', {}, { token: operatorToken })).body.code,
    2002,
    'a revoked token, logged nowhere either',
  )

  const written = lines.slice(start)
  t.ok(written.length >= 11, `${written.length} log lines written, one per request`)
  for (const line of written) {
    t.doesNotThrow(() => JSON.parse(line), 'each line is JSON')
    for (const secret of secrets) if (line.includes(secret)) t.fail(`a secret reached the log: ${line}`)
    t.notMatch(line, /bearer /i, 'no Authorization header value')
    t.notMatch(line, /"authorization"/i, 'no Authorization header at all')
    t.notMatch(line, /"password"/i, 'no password field')
  }
})

t.test('each request has one completion line with its request id', async (t) => {
  const start = lines.length
  const token = await service.login()
  await service.call('/prevent/riskUnit/getById', { id: 'RU-LOG' }, { token })
  await service.call('/prevent/nothing/list', {}, { token })
  await fetch(`${service.url}/health/live`)
  const requests = 4
  // The completion line is written once the answer has gone out: wait for the lines to land.
  const completedSince = () =>
    lines
      .slice(start)
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'request completed')
  await eventually(async () => completedSince().length >= requests, { what: 'the completion lines' })
  const completed = completedSince()
  t.equal(completed.length, requests)
  const ids = completed.map((entry) => entry.reqId)
  t.equal(new Set(ids).size, requests, 'one line per request')
  for (const entry of completed) {
    t.match(entry.reqId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    t.type(entry.durationMs, 'number')
    t.type(entry.status, 'number')
  }
  t.same(
    completed.map(({ operationId, user, status, code }) => ({ operationId, user, status, code })),
    [
      { operationId: 'systemLogin', user: null, status: 200, code: 0 },
      { operationId: 'preventRiskUnitGetById', user: 'admin', status: 200, code: 0 },
      { operationId: 'unmatched', user: null, status: 404, code: 1008 },
      { operationId: '/health/live', user: null, status: 200, code: 0 },
    ],
    'each line names the operation, the user, the status and the business code',
  )
  t.equal(lines.slice(start).filter((line) => JSON.parse(line).msg === 'incoming request').length, 0, 'one line, not two')
})

t.end()
