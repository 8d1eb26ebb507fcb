// Paging at any depth: a `next` cursor walks every record exactly once in the page's
// order (ties, nulls and either direction included), and totals are exact up to 10 000 matches,
// estimated and flagged beyond.
import t, { type Test } from 'tap'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()
const pool = service.database.pool

/** Rows written directly: many share one updateTime, a third have no riskLevel. */
async function insertUnits(prefix: string, count: number, sameTime = true): Promise<void> {
  await pool.query(
    `INSERT INTO risk_unit (id, "riskUnitName", "riskLevel", "companyCode", "createTime", "updateTime", "createBy", "updateBy")
     SELECT $1 || lpad(g::text, 6, '0'), 'Unit ' || g, CASE WHEN g % 3 = 0 THEN NULL ELSE (g % 4 + 1)::text END, '000000000',
            now(), CASE WHEN $3 THEN timestamptz '2026-01-01T00:00:00Z' + (g / 7) * interval '1 second' ELSE now() END, 'admin', 'admin'
     FROM generate_series(1, $2::int) AS g`,
    [prefix, count, sameTime],
  )
}

async function walk(t: Test, body: Record<string, unknown>, pageSize: number): Promise<string[]> {
  const seen: string[] = []
  let after: string | undefined
  for (let page = 0; page < 1000; page++) {
    const reply = await service.call('/prevent/riskUnit/search', { ...body, pageSize, ...(after ? { after } : {}) }, { token })
    t.equal(reply.body.code, 0, reply.body.msg)
    seen.push(...reply.body.data.list.map((item: { id: string }) => item.id))
    if (!reply.body.data.next) return seen
    after = reply.body.data.next
  }
  throw new Error('the cursor never ended')
}

await insertUnits('P-', 230)

t.test('a next cursor walks every record once, in the order of one unpaged read', async (t) => {
  for (const orderBy of [
    [],
    [{ field: 'riskLevel', direction: 'asc' }],
    [{ field: 'riskLevel', direction: 'desc' }],
    [{ field: 'riskUnitName', direction: 'asc' }],
    [
      { field: 'riskLevel', direction: 'desc' },
      { field: 'id', direction: 'desc' },
    ],
  ]) {
    const all = await service.call('/prevent/riskUnit/search', { orderBy, pageSize: 500 }, { token })
    const expected = all.body.data.list.map((item: { id: string }) => item.id)
    t.equal(expected.length, 230)
    t.same(await walk(t, { orderBy }, 17), expected, JSON.stringify(orderBy))
  }
})

t.test('a cursor applies with conditions, and the last page has no next', async (t) => {
  const conditions = [{ field: 'riskLevel', op: 'in', value: ['1', '2'] }]
  const all = await service.call('/prevent/riskUnit/search', { conditions, pageSize: 500 }, { token })
  t.same(
    await walk(t, { conditions }, 10),
    all.body.data.list.map((item: { id: string }) => item.id),
  )
  const last = await service.call('/prevent/riskUnit/search', { conditions, pageSize: 500 }, { token })
  t.equal(last.body.data.next, null)
})

t.test('a cursor of another order, or not a cursor at all, is 1002', async (t) => {
  const first = await service.call('/prevent/riskUnit/list', { pageSize: 5 }, { token })
  const next = first.body.data.next
  t.type(next, 'string')
  const ordered = await service.call(
    '/prevent/riskUnit/search',
    { after: next, orderBy: [{ field: 'riskLevel', direction: 'asc' }] },
    { token },
  )
  t.equal(ordered.body.code, 1002)
  t.match(ordered.body.msg, /^after: /)
  for (const after of ['x', '', 'W10', Buffer.from('[1,2]').toString('base64url'), Buffer.from('{"a":1}').toString('base64url')]) {
    t.equal((await service.call('/prevent/riskUnit/list', { after }, { token })).body.code, 1002, after)
  }
})

t.test('totals are exact up to 10 000 matches and flagged as estimates beyond', async (t) => {
  const small = await service.call('/prevent/riskUnit/list', { pageSize: 1 }, { token })
  t.equal(small.body.data.total, 230)
  t.equal(small.body.data.totalExact, true)
  // The last page by pageNum tells the total itself; a page past the end, or after a cursor, counts it.
  const list = (body: object) => service.call('/prevent/riskUnit/list', body, { token })
  const lastPage = await list({ pageSize: 100, pageNum: 3 })
  t.same([lastPage.body.data.list.length, lastPage.body.data.total, lastPage.body.data.totalExact], [30, 230, true], 'the last page')
  const beyond = await list({ pageSize: 100, pageNum: 4 })
  t.same([beyond.body.data.list.length, beyond.body.data.total, beyond.body.data.totalExact], [0, 230, true], 'past the end')
  const after = await list({ pageSize: 100, after: (await list({ pageSize: 200 })).body.data.next })
  t.same([after.body.data.list.length, after.body.data.total, after.body.data.totalExact], [30, 230, true], 'after a cursor')
  await insertUnits('Q-', 10_000, false)
  await pool.query('ANALYZE risk_unit')
  const large = await service.call('/prevent/riskUnit/list', { pageSize: 1 }, { token })
  t.equal(large.body.data.totalExact, false)
  t.ok(large.body.data.total > 10_000, `estimated total ${large.body.data.total}`)
  const narrow = await service.call('/prevent/riskUnit/search', { conditions: [{ field: 'id', op: 'like', value: 'P-' }] }, { token })
  t.equal(narrow.body.data.total, 230, 'a narrow search is still exact')
  t.equal(narrow.body.data.totalExact, true)
})

t.test('where the planner expects 100 000 matches or more, its estimate is the total: nothing is counted', async (t) => {
  await insertUnits('R-', 100_000, false)
  await pool.query('ANALYZE risk_unit')
  const { rows } = await pool.query<{ estimate: number }>(`SELECT reltuples::int AS estimate FROM pg_class WHERE relname = 'risk_unit'`)
  const large = await service.call('/prevent/riskUnit/list', { pageSize: 1 }, { token })
  t.equal(large.body.data.totalExact, false)
  t.ok(Math.abs(large.body.data.total - rows[0].estimate) <= rows[0].estimate * 0.01, `the estimate ${large.body.data.total}`)
  t.equal(large.body.data.list.length, 1)
  const narrow = await service.call('/prevent/riskUnit/search', { conditions: [{ field: 'id', op: 'like', value: 'P-' }] }, { token })
  t.same([narrow.body.data.total, narrow.body.data.totalExact], [230, true], 'a narrow search of the large table is still exact')
})

t.end()
