// Roles, and the order of checks 401 → 403 → 400/1002 → business rules.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const admin = await service.login()
const operator = await service.userToken('operator')
const viewer = await service.userToken('viewer')

t.test('a viewer reads but may not write (403/2003)', async (t) => {
  t.equal((await service.call('/prevent/riskUnit/list', {}, { token: viewer })).body.code, 0)
  const write = await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-V'), { token: viewer })
  t.equal(write.status, 403)
  t.equal(write.body.code, 2003)
  for (const path of ['/prevent/riskUnit/update', '/prevent/riskUnit/delete', '/prevent/riskUnit/add-batch']) {
    t.equal((await service.call(path, { id: 'x' }, { token: viewer })).body.code, 2003, path)
  }
})

t.test('an operator reads and writes, but administers neither users nor the push', async (t) => {
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-O'), { token: operator })).body.code, 0)
  for (const path of ['/system/user/add', '/system/user/list', '/system/sync/status', '/system/sync/retry']) {
    const reply = await service.call(path, {}, { token: operator })
    t.equal(reply.status, 403, path)
    t.equal(reply.body.code, 2003, path)
  }
})

t.test('an admin may do everything', async (t) => {
  t.equal((await service.call('/system/user/list', {}, { token: admin })).body.code, 0)
  const cursor = await service.call('/system/user/list', { after: 'x' }, { token: admin })
  t.same([cursor.body.code, cursor.body.msg], [1002, 'after: unknown field'], 'users page by pageNum only: no cursor is taken')
  t.equal((await service.call('/system/sync/status', {}, { token: admin })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-A'), { token: admin })).body.code, 0)
})

t.test('401 comes before 403, 403 before validation, validation before business rules', async (t) => {
  const badBody = { id: 5, colour: 'red' }
  t.equal((await service.call('/prevent/riskUnit/add', badBody)).status, 401)
  t.equal((await service.call('/prevent/riskUnit/add', badBody, { token: viewer })).status, 403)
  t.equal(
    (
      await service.call('/prevent/riskUnit/add', undefined, {
        token: viewer,
        raw: 'not json',
        headers: { 'content-type': 'application/json' },
      })
    ).status,
    403,
  )
  t.equal((await service.call('/prevent/riskUnit/add', badBody, { token: operator })).body.code, 1002)
  // a schema error wins over a duplicate id
  t.equal((await service.call('/prevent/riskUnit/add', { id: 'RU-O', riskUnitName: 'x', colour: 1 }, { token: operator })).body.code, 1002)
})

t.test('user administration: add, list, update role, delete; the last admin stays', async (t) => {
  t.equal(
    (await service.call('/system/user/add', { userName: 'bob', password: 'bob-password', role: 'viewer' }, { token: admin })).body.code,
    0,
  )
  t.equal(
    (await service.call('/system/user/add', { userName: 'bob', password: 'bob-password', role: 'viewer' }, { token: admin })).body.code,
    1001,
  )
  const bob = await service.login('bob', 'bob-password')
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-B1'), { token: bob })).body.code, 2003)
  t.equal((await service.call('/system/user/update', { userName: 'bob', role: 'operator' }, { token: admin })).body.code, 0)
  t.equal(
    (await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-B2'), { token: bob })).body.code,
    0,
    'a role change applies at once',
  )
  const users = await service.call('/system/user/list', { pageNum: 1, pageSize: 100 }, { token: admin })
  t.ok(users.body.data.list.some((user: any) => user.userName === 'bob' && user.role === 'operator'))
  t.equal((await service.call('/system/user/delete', { userName: 'bob' }, { token: admin })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/list', {}, { token: bob })).body.code, 2002)
  t.equal((await service.call('/system/user/delete', { userName: 'bob' }, { token: admin })).body.code, 1004)
  t.equal((await service.call('/system/user/update', { userName: 'admin', role: 'viewer' }, { token: admin })).body.code, 1002)
  t.equal((await service.call('/system/user/delete', { userName: 'admin' }, { token: admin })).body.code, 1002)
})

t.end()
