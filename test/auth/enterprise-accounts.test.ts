// `enterprise` accounts exist on the park edition only, each bound to a companyCode.
import t from 'tap'
import { startService } from '../helpers/service.ts'

const park = await startService(t, { env: { EDITION: 'park' } })
const parkToken = await park.login()
const enterprise = await startService(t)
const enterpriseToken = await enterprise.login()

t.test('user/add takes companyCode with role enterprise, and only then', async (t) => {
  const add = (body: unknown) => park.call('/system/user/add', body, { token: parkToken })
  const missing = await add({ userName: 'ent-a', password: 'password-a', role: 'enterprise' })
  t.equal(missing.body.code, 1002)
  t.match(missing.body.msg, /^companyCode: required for role enterprise/)
  const stray = await add({ userName: 'op', password: 'password-op', role: 'operator', companyCode: '111111111' })
  t.equal(stray.body.code, 1002)
  t.match(stray.body.msg, /^companyCode:/)
  const bad = await add({ userName: 'ent-a', password: 'password-a', role: 'enterprise', companyCode: '12345' })
  t.equal(bad.body.code, 1002, 'a companyCode of 9 digits')
  t.equal((await add({ userName: 'ent-a', password: 'password-a', role: 'enterprise', companyCode: '111111111' })).body.code, 0)
  const users = (await park.call('/system/user/list', {}, { token: parkToken })).body.data.list
  t.same(
    users.map((user: any) => [user.userName, user.role, user.companyCode]),
    [
      ['admin', 'admin', null],
      ['ent-a', 'enterprise', '111111111'],
    ],
    'user/list shows the companyCode',
  )
  const moved = await park.call('/system/user/update', { userName: 'ent-a', companyCode: '222222222' }, { token: parkToken })
  t.equal(moved.body.code, 0, 'an enterprise account may move to another enterprise')
  const demoted = await park.call('/system/user/update', { userName: 'ent-a', role: 'viewer' }, { token: parkToken })
  t.equal(demoted.body.code, 0, 'and become a viewer, losing its companyCode')
  const after = (await park.call('/system/user/list', {}, { token: parkToken })).body.data.list
  t.same(after[1].companyCode, null)
})

t.test('the enterprise edition has no enterprise accounts', async (t) => {
  const refused = await enterprise.call(
    '/system/user/add',
    { userName: 'ent-b', password: 'password-b', role: 'enterprise', companyCode: '111111111' },
    { token: enterpriseToken },
  )
  t.equal(refused.body.code, 1002)
  t.match(refused.body.msg, /^role: enterprise accounts exist on the park edition only/)
})

t.test('edition-bound system operations answer 403 on the other edition', async (t) => {
  const onEnterprise = await enterprise.call('/system/enterprise/list', {}, { token: enterpriseToken })
  t.same([onEnterprise.status, onEnterprise.body.code], [403, 2003])
  const digest = await enterprise.call('/system/sync/digest', { resource: 'riskUnit', prefixes: [''] }, { token: enterpriseToken })
  t.same([digest.status, digest.body.code], [403, 2003])
  const reconcile = await park.call('/system/sync/reconcile', {}, { token: parkToken })
  t.same([reconcile.status, reconcile.body.code], [403, 2003])
  // Before the body is read, whatever it is (the document's order of checks: 403 before 400 and 1002).
  for (const raw of ['{"unknown":1}', '[]', '{"a":']) {
    const headers = { 'content-type': 'application/json' }
    const onPark = await park.call('/system/sync/reconcile', undefined, { token: parkToken, raw, headers })
    t.same([onPark.status, onPark.body.code], [403, 2003], `reconcile on the park with ${raw}`)
    const listed = await enterprise.call('/system/enterprise/list', undefined, { token: enterpriseToken, raw, headers })
    t.same([listed.status, listed.body.code], [403, 2003], `enterprise/list on the enterprise edition with ${raw}`)
  }
  const bare = await enterprise.call('/system/sync/digest', {}, { token: enterpriseToken })
  t.same([bare.status, bare.body.code, bare.body.msg], [403, 2003, 'permission denied: systemSyncDigest is served by the park edition'])
  const noPark = await enterprise.call('/system/sync/reconcile', {}, { token: enterpriseToken })
  t.equal(noPark.body.code, 1002, 'an enterprise edition without a park has nothing to reconcile with')
  const mixed = await park.call(
    '/system/sync/digest',
    { resource: 'riskUnit', companyCode: '111111111', prefixes: ['a', 'bc'] },
    { token: parkToken },
  )
  t.equal(mixed.body.code, 1002, 'prefixes of one length')
  const noCompany = await park.call('/system/sync/digest', { resource: 'riskUnit', prefixes: [''] }, { token: parkToken })
  t.equal(noCompany.body.code, 1002, 'an admin names the enterprise')
})

t.end()
