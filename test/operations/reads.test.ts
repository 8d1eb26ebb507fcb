// getById, list (paged, newest first) and search (conditions, orderBy, bound values).
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()
const search = (body: unknown) => service.call('/prevent/riskUnit/search', body, { token })
const ids = (reply: any) => reply.body.data.list.map((item: any) => item.id)

for (const [id, name, level] of [
  ['RU-1', 'Tank farm east', '1'],
  ['RU-2', 'Tank farm west', '2'],
  ['RU-3', 'Loading 100%_bay', '3'],
  ['RU-4', 'Boiler house', null],
  ['RU-5', 'Control room', '4'],
] as const) {
  await service.call('/prevent/riskUnit/add', record('riskUnit', id, { riskUnitName: name, riskLevel: level }), { token })
}
await service.call('/prevent/riskUnit/delete', { id: 'RU-5' }, { token })

/** Newest first as the records show their updateTime (the same offset throughout: text order is time order), then id. */
const listOrder = (a: any, b: any) => (a.updateTime === b.updateTime ? (a.id < b.id ? -1 : 1) : a.updateTime > b.updateTime ? -1 : 1)

t.test('list pages newest first (updateTime desc, then id), with total', async (t) => {
  const all = (await service.call('/prevent/riskUnit/list', {}, { token })).body.data.list
  t.same(
    all.map((item: any) => item.id),
    [...all].sort(listOrder).map((item: any) => item.id),
    'the order of the instants shown (records written within one second: by id)',
  )
  const first = await service.call('/prevent/riskUnit/list', { pageNum: 1, pageSize: 2 }, { token })
  t.equal(first.body.data.total, 4, 'deleted records are not read')
  t.equal(first.body.data.pageNum, 1)
  t.equal(first.body.data.pageSize, 2)
  t.same(
    ids(first),
    all.slice(0, 2).map((item: any) => item.id),
  )
  const last = await service.call('/prevent/riskUnit/list', { pageNum: 2, pageSize: 2 }, { token })
  t.same(
    ids(last),
    all.slice(2, 4).map((item: any) => item.id),
  )
  const past = await service.call('/prevent/riskUnit/list', { pageNum: 9, pageSize: 2 }, { token })
  t.same(past.body.data.list, [])
  t.equal(past.body.data.total, 4)
  const defaults = await service.call('/prevent/riskUnit/list', {}, { token })
  t.equal(defaults.body.data.pageSize, 20)
  t.equal(defaults.body.data.pageNum, 1)
})

t.test('paging bounds are 1002', async (t) => {
  for (const body of [{ pageNum: 0 }, { pageSize: 501 }, { pageSize: 0 }, { pageNum: '1' }, { pageNum: 1.5 }]) {
    t.equal((await service.call('/prevent/riskUnit/list', body, { token })).body.code, 1002, JSON.stringify(body))
  }
})

t.test('search: eq, ne, in, gt/lte, isNull', async (t) => {
  t.same(ids(await search({ conditions: [{ field: 'riskLevel', op: 'eq', value: '2' }] })), ['RU-2'])
  t.same(
    ids(await search({ conditions: [{ field: 'riskLevel', op: 'ne', value: '2' }], orderBy: [{ field: 'id', direction: 'asc' }] })),
    ['RU-1', 'RU-3'],
    'ne never matches null',
  )
  t.same(ids(await search({ conditions: [{ field: 'id', op: 'in', value: ['RU-1', 'RU-3', 'RU-9'] }], orderBy: [{ field: 'id' }] })), [
    'RU-1',
    'RU-3',
  ])
  t.same(
    ids(
      await search({
        conditions: [
          { field: 'riskLevel', op: 'gt', value: '1' },
          { field: 'riskLevel', op: 'lte', value: '3' },
        ],
        orderBy: [{ field: 'id' }],
      }),
    ),
    ['RU-2', 'RU-3'],
  )
  t.same(ids(await search({ conditions: [{ field: 'riskLevel', op: 'isNull', value: true }] })), ['RU-4'])
  t.equal((await search({ conditions: [{ field: 'riskLevel', op: 'isNull', value: false }] })).body.data.total, 3)
})

t.test('search: like is a literal substring (% and _ are themselves)', async (t) => {
  t.same(ids(await search({ conditions: [{ field: 'riskUnitName', op: 'like', value: 'Tank' }], orderBy: [{ field: 'id' }] })), [
    'RU-1',
    'RU-2',
  ])
  t.same(ids(await search({ conditions: [{ field: 'riskUnitName', op: 'like', value: '100%_' }] })), ['RU-3'])
  t.same(ids(await search({ conditions: [{ field: 'riskUnitName', op: 'like', value: '%' }] })), ['RU-3'])
  t.same(ids(await search({ conditions: [{ field: 'riskUnitName', op: 'like', value: "'; DROP TABLE risk_unit; --" }] })), [])
})

t.test('search: server-kept fields in conditions and orderBy', async (t) => {
  t.equal((await search({ conditions: [{ field: 'sync_status', op: 'eq', value: 'pending' }] })).body.data.total, 4)
  t.equal((await search({ conditions: [{ field: 'createTime', op: 'gt', value: '2000-01-01T00:00:00Z' }] })).body.data.total, 4)
  t.same(ids(await search({ orderBy: [{ field: 'createTime', direction: 'asc' }] })), ['RU-1', 'RU-2', 'RU-3', 'RU-4'])
  t.same(ids(await search({ orderBy: [{ field: 'riskUnitName', direction: 'desc' }] })), ['RU-2', 'RU-1', 'RU-3', 'RU-4'])
})

t.test('search: unknown fields, operators and ill-typed values are 1002', async (t) => {
  const bad = [
    { conditions: [{ field: 'colour', op: 'eq', value: 'x' }] },
    { conditions: [{ field: 'riskLevel', op: 'regex', value: 'x' }] },
    { conditions: [{ field: 'riskLevel', op: 'in', value: [] }] },
    { conditions: [{ field: 'riskLevel', op: 'in', value: 'x' }] },
    { conditions: [{ field: 'riskLevel', op: 'isNull', value: 'yes' }] },
    { conditions: [{ field: 'longitude', op: 'gt', value: 'east' }] },
    { conditions: [{ field: 'longitude', op: 'like', value: '1' }] },
    { conditions: [{ field: 'createTime', op: 'gt', value: 'yesterday' }] },
    { orderBy: [{ field: 'colour' }] },
    { orderBy: [{ field: 'id', direction: 'sideways' }] },
  ]
  for (const body of bad) t.equal((await search(body)).body.code, 1002, JSON.stringify(body))
})

t.test('getById answers the record; a missing or deleted id is 1004', async (t) => {
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-1' }, { token })).body.data.riskUnitName, 'Tank farm east')
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-5' }, { token })).body.code, 1004)
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-404' }, { token })).body.code, 1004)
})

t.test('instants are kept as they are shown, to the second: a record is eq to its own updateTime', async (t) => {
  const shown = (await service.call('/prevent/riskUnit/getById', { id: 'RU-2' }, { token })).body.data
  for (const field of ['createTime', 'updateTime']) {
    const matching = async (op: string) =>
      ids(
        await search({
          conditions: [
            { field: 'id', op: 'eq', value: 'RU-2' },
            { field, op, value: shown[field] },
          ],
        }),
      )
    t.same(await matching('eq'), ['RU-2'], `${field} eq`)
    t.same(await matching('lte'), ['RU-2'], `${field} lte`)
    t.same(await matching('gte'), ['RU-2'], `${field} gte`)
    t.same(await matching('gt'), [], `${field} gt`)
    t.same(await matching('lt'), [], `${field} lt`)
  }
  // A value sent with a fraction is compared as it would be kept, to the second.
  const withFraction = String(shown.updateTime).replace(/(:\d{2})([+-]|Z)/, '$1.750$2')
  t.not(withFraction, shown.updateTime)
  const found = await search({
    conditions: [
      { field: 'id', op: 'eq', value: 'RU-2' },
      { field: 'updateTime', op: 'in', value: [withFraction] },
    ],
  })
  t.same(ids(found), ['RU-2'], `updateTime in [${withFraction}]`)
  t.same(
    ids(
      await search({
        conditions: [
          { field: 'id', op: 'eq', value: 'RU-2' },
          { field: 'updateTime', op: 'lt', value: withFraction },
        ],
      }),
    ),
    [],
  )
})

t.test('records written within one second are listed by id ascending, and orderBy ties too', async (t) => {
  // One batch: one statement, one instant (the second of the records above, or a later one: either
  // way these ids, sorting first, are listed first).
  const batch = ['A-9c', 'A-9a', 'A-9b'].map((id) => record('riskUnit', id, { riskUnitName: 'batch', riskLevel: '2' }))
  const added = await service.call('/prevent/riskUnit/add-batch', { list: batch }, { token })
  t.same([added.body.code, added.body.data.succeeded], [0, ['A-9c', 'A-9a', 'A-9b']])
  const page = (await service.call('/prevent/riskUnit/list', { pageSize: 5 }, { token })).body.data.list
  t.same(
    page.slice(0, 3).map((item: any) => item.id),
    ['A-9a', 'A-9b', 'A-9c'],
    page.map((item: any) => `${item.id} ${item.updateTime}`).join(', '),
  )
  t.same(
    ids(await search({ conditions: [{ field: 'riskLevel', op: 'eq', value: '2' }], orderBy: [{ field: 'riskLevel' }] })),
    ['A-9a', 'A-9b', 'A-9c', 'RU-2'],
    'ties of orderBy by id ascending, whenever each was written',
  )
})

t.end()
