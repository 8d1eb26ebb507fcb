// add-batch: 1..500 items, each validated and stored on its own, partial success.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()

t.test('the contract example: one item stored, one failed with index, code and reason', async (t) => {
  const reply = await service.call('/prevent/riskUnit/add-batch', { list: [{ id: 'RU-3', riskUnitName: 'A' }, { id: 'RU-4' }] }, { token })
  t.same(reply.body, {
    msg: '',
    code: 0,
    success: true,
    data: { succeeded: ['RU-3'], failed: [{ id: 'RU-4', index: 1, code: 1002, reason: 'riskUnitName: required' }] },
  })
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-3' }, { token })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-4' }, { token })).body.code, 1004)
})

t.test('an empty list or more than 500 items is 1005', async (t) => {
  t.equal((await service.call('/prevent/riskUnit/add-batch', { list: [] }, { token })).body.code, 1005)
  const list = Array.from({ length: 501 }, (_, i) => ({ id: `RU-X${i}`, riskUnitName: 'x' }))
  t.equal((await service.call('/prevent/riskUnit/add-batch', { list }, { token })).body.code, 1005)
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-X0' }, { token })).body.code, 1004, 'nothing written')
})

t.test('500 items are accepted', async (t) => {
  const list = Array.from({ length: 500 }, (_, i) => ({ id: `RU-B${i}`, riskUnitName: `unit ${i}` }))
  const reply = await service.call('/prevent/riskUnit/add-batch', { list }, { token })
  t.equal(reply.body.data.succeeded.length, 500)
  t.same(reply.body.data.failed, [])
})

t.test('each failed item carries the code it would get alone; a duplicate inside the batch fails the later one', async (t) => {
  const list = [
    record('monitorEquip', 'MB-1'),
    record('monitorEquip', 'MB-2', { monitorCode: 'MC-MB-1' }),
    record('monitorEquip', 'MB-1', { monitorCode: 'MC-OTHER' }),
    { ...record('monitorEquip', 'MB-3'), extra: 1 },
    'not an object',
    record('monitorEquip', 'MB-4'),
  ]
  const reply = await service.call('/hazard/monitorEquip/add-batch', { list }, { token })
  t.same(reply.body.data.succeeded, ['MB-1', 'MB-4'])
  t.same(
    reply.body.data.failed.map((item: any) => [item.id, item.index, item.code]),
    [
      ['MB-2', 1, 1001],
      ['MB-1', 2, 1003],
      ['MB-3', 3, 1002],
      [null, 4, 1002],
    ],
  )
  t.match(reply.body.data.failed[2].reason, /extra: unknown field/)
  t.equal(reply.body.data.failed[3].reason, 'item: must be object', 'an item that is not an object is named as the item')
})

t.test('items may name parents stored earlier in the same batch; a missing parent is 1006 for that item', async (t) => {
  await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-P'), { token })
  const reply = await service.call(
    '/prevent/riskEvents/add-batch',
    { list: [record('riskEvents', 'RE-1', { riskUnitId: 'RU-P' }), record('riskEvents', 'RE-2', { riskUnitId: 'RU-MISSING' })] },
    { token },
  )
  t.same(reply.body.data.succeeded, ['RE-1'])
  t.equal(reply.body.data.failed[0].code, 1006)
})

t.test('a batch body that is not {list: [...]} is 1002', async (t) => {
  t.equal((await service.call('/prevent/riskUnit/add-batch', { list: 'x' }, { token })).body.code, 1002)
  t.equal((await service.call('/prevent/riskUnit/add-batch', { items: [] }, { token })).body.code, 1002)
})

t.end()
