// Paging on the park: several enterprises may hold one id, written in the same second.
// Their order is still total (updateTime desc, id asc, then companyCode asc), so paging by `next`
// or by `pageNum` reads each enterprise's record exactly once.
import t from 'tap'
import { pushedRecord } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const park = await startService(t, { env: { EDITION: 'park' } })
const token = await park.login()
const COMPANIES = ['333333333', '111111111', '222222222']

/** A riskUnit as an enterprise pushes it, every one written at the same instant. */
const pushed = (id: string, companyCode: string) =>
  pushedRecord('riskUnit', id, { companyCode, fields: { riskUnitName: `${companyCode} ${id}` } })

const list = COMPANIES.flatMap((companyCode) => ['TIE-2', 'TIE-1'].map((id) => pushed(id, companyCode)))
const applied = await park.call('/system/push/records', { resource: 'riskUnit', list }, { token })
t.equal(applied.body.data.succeeded.length, 6, 'the park admin pushes for every enterprise')

const expected = ['TIE-1', 'TIE-2'].flatMap((id) => [...COMPANIES].sort().map((companyCode) => `${id}/${companyCode}`))
const keyOf = (item: { id: string; companyCode: string }) => `${item.id}/${item.companyCode}`

t.test('a next cursor reads every enterprise holding the id once', async (t) => {
  const walked: string[] = []
  let after: string | undefined
  for (let page = 0; page < 10; page++) {
    const reply = await park.call('/prevent/riskUnit/list', { pageSize: 1, ...(after ? { after } : {}) }, { token })
    t.equal(reply.body.code, 0, reply.body.msg)
    walked.push(...reply.body.data.list.map(keyOf))
    after = reply.body.data.next ?? undefined
    if (!after) break
  }
  t.same(walked, expected)
})

t.test('pageNum pages and orderBy ties read them in the same total order', async (t) => {
  const byPageNum: string[] = []
  for (let pageNum = 1; pageNum <= 6; pageNum++) {
    const reply = await park.call('/prevent/riskUnit/list', { pageNum, pageSize: 1 }, { token })
    byPageNum.push(...reply.body.data.list.map(keyOf))
  }
  t.same(byPageNum, expected)
  const ordered = await park.call('/prevent/riskUnit/search', { orderBy: [{ field: 'riskLevel' }], pageSize: 10 }, { token })
  t.same(ordered.body.data.list.map(keyOf), expected, 'ties of orderBy: id, then companyCode')
})

t.end()
