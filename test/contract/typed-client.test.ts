// The integrator's path: a client generated from the document (openapi-typescript + openapi-fetch)
// drives the real server; its types and the server's answers agree.

import createClient from 'openapi-fetch'
import t from 'tap'
import type { paths } from '../../generated/openapi.ts'
import { record } from '../helpers/fixtures.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const service = await startService(t)

t.test('log in, write, read and search through the typed client', async (t) => {
  const client = createClient<paths>({ baseUrl: service.url })
  const login = await client.POST('/system/login', { body: { userName: 'admin', password: ADMIN_PASSWORD } })
  t.equal(login.response.status, 200)
  const token = login.data?.data?.token
  t.type(token, 'string')
  const headers = { Authorization: `Bearer ${token}` }

  const added = await client.POST('/prevent/riskUnit/add', { body: record('riskUnit', 'RU-SDK') as any, headers })
  t.same(added.data, { msg: '', code: 0, data: null, success: true })

  const read = await client.POST('/prevent/riskUnit/getById', { body: { id: 'RU-SDK' }, headers })
  t.equal(read.data?.data?.riskUnitName, record('riskUnit', 'RU-SDK').riskUnitName)
  t.equal(read.data?.data?.sync_status, 'pending')

  const found = await client.POST('/prevent/riskUnit/search', {
    body: {
      conditions: [{ field: 'riskUnitName', op: 'like', value: String(record('riskUnit', 'x').riskUnitName).slice(0, 2) }],
      pageSize: 5,
    },
    headers,
  })
  t.equal(found.data?.data?.total, 1)

  const unauthenticated = await client.POST('/prevent/riskUnit/list', { body: {} })
  t.equal(unauthenticated.response.status, 401)
  t.equal(unauthenticated.error?.code, 2001)
})

t.end()
