// Record history: one entry per business write, in the write's own statement; `history` reads
// them newest first, deleted records included; a no-op update adds nothing.
import t from 'tap'
import { example, record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t, { env: { TZ: '+08:00' } })
const token = await service.login()
const operator = await service.userToken('operator', 'op-history')
const viewer = await service.userToken('viewer')

const history = async (path: string, id: string, extra: Record<string, unknown> = {}, as = token) =>
  (await service.call(`${path}/history`, { id, ...extra }, { token: as })).body

t.test('add: one entry with [null, value] for every field set, by the writer, at updateTime', async (t) => {
  const unit = record('riskUnit', 'RU-H1')
  t.equal((await service.call('/prevent/riskUnit/add', unit, { token: operator })).body.code, 0)
  const read = (await service.call('/prevent/riskUnit/getById', { id: 'RU-H1' }, { token })).body.data
  const answer = await history('/prevent/riskUnit', 'RU-H1')
  t.equal(answer.code, 0)
  t.same(answer.data, {
    list: [
      {
        version: 1,
        action: 'add',
        time: read.updateTime,
        userName: 'op-history',
        changes: Object.fromEntries(Object.entries(unit).map(([field, value]) => [field, [null, value]])),
      },
    ],
    total: 1,
    pageNum: 1,
    pageSize: 20,
  })
})

t.test('update: only the changed fields as [old, new]; a repeated update adds nothing', async (t) => {
  const before = example('riskUnit')
  t.equal(
    (await service.call('/prevent/riskUnit/update', { id: 'RU-H1', riskUnitName: 'Renamed', riskLevel: before.riskLevel }, { token })).body
      .code,
    0,
  )
  t.equal((await service.call('/prevent/riskUnit/update', { id: 'RU-H1', riskUnitName: 'Renamed' }, { token })).body.code, 0, 'no-op')
  const answer = await history('/prevent/riskUnit', 'RU-H1')
  t.equal(answer.data.total, 2, 'the no-op update wrote no entry')
  t.match(answer.data.list[0], {
    version: 2,
    action: 'update',
    userName: 'admin',
    changes: { riskUnitName: [before.riskUnitName, 'Renamed'] },
  })
  t.same(Object.keys(answer.data.list[0].changes), ['riskUnitName'], 'an unchanged sent field is not a change')
  t.equal(answer.data.list[1].action, 'add', 'newest first')
})

t.test('instants are written back in the configured zone, old and new', async (t) => {
  const equip = record('monitorEquip', 'ME-H1', { checkTime: '2026-11-21T05:02:35Z' })
  t.equal((await service.call('/hazard/monitorEquip/add', equip, { token })).body.code, 0)
  t.equal(
    (await service.call('/hazard/monitorEquip/update', { id: 'ME-H1', checkTime: '2026-11-22T00:00:00.750+08:00' }, { token })).body.code,
    0,
  )
  const answer = await history('/hazard/monitorEquip', 'ME-H1')
  t.same(answer.data.list[0].changes, { checkTime: ['2026-11-21T13:02:35+08:00', '2026-11-22T00:00:00+08:00'] })
  t.same(answer.data.list[1].changes.checkTime, [null, '2026-11-21T13:02:35+08:00'])
})

t.test('a state-machine update (the read-check-write path) is recorded once; an illegal move adds nothing', async (t) => {
  t.equal(
    (await service.call('/prevent/ticketBaseInfo/add', record('ticketBaseInfo', 'TB-H1', { ticketStatus: '1' }), { token })).body.code,
    0,
  )
  t.equal((await service.call('/prevent/ticketBaseInfo/update', { id: 'TB-H1', ticketStatus: '2' }, { token })).body.code, 0)
  t.equal((await service.call('/prevent/ticketBaseInfo/update', { id: 'TB-H1', ticketStatus: '1' }, { token })).body.code, 1011)
  const answer = await history('/prevent/ticketBaseInfo', 'TB-H1')
  t.equal(answer.data.total, 2)
  t.same(answer.data.list[0].changes, { ticketStatus: ['1', '2'] })
})

t.test('delete: an entry with no changes; the deleted record keeps its history; a repeated delete adds nothing', async (t) => {
  t.equal((await service.call('/prevent/riskUnit/delete', { id: 'RU-H1' }, { token })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/delete', { id: 'RU-H1' }, { token })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-H1' }, { token })).body.code, 1004)
  const answer = await history('/prevent/riskUnit', 'RU-H1', {}, viewer)
  t.equal(answer.code, 0, 'a viewer reads history (roles as getById)')
  t.equal(answer.data.total, 3)
  t.same(answer.data.list[0], { ...answer.data.list[0], version: 3, action: 'delete', changes: {} })
})

t.test('the add keeps the values it was written with, whatever came after (the record holds its first version)', async (t) => {
  const equip = record('monitorEquip', 'ME-H9', { checkTime: '2026-11-21T05:02:35Z', deptName: 'first dept' })
  t.equal((await service.call('/hazard/monitorEquip/add', equip, { token: operator })).body.code, 0)
  const added = (await history('/hazard/monitorEquip', 'ME-H9')).data.list[0]
  const { rows } = await service.database.pool.query(`SELECT count(*)::int AS n FROM record_history WHERE id = 'ME-H9'`)
  t.equal(rows[0].n, 0, 'an add writes its record alone')
  for (const change of [
    { deptName: 'second dept' },
    { checkTime: '2026-11-22T00:00:00Z', deptName: 'third dept' },
    { monitorName: 'renamed' },
  ]) {
    t.equal((await service.call('/hazard/monitorEquip/update', { id: 'ME-H9', ...change }, { token })).body.code, 0)
  }
  t.equal((await service.call('/hazard/monitorEquip/delete', { id: 'ME-H9' }, { token })).body.code, 0)
  const answer = (await history('/hazard/monitorEquip', 'ME-H9')).data
  t.same(
    answer.list.map((entry: { version: number; action: string }) => [entry.version, entry.action]),
    [
      [5, 'delete'],
      [4, 'update'],
      [3, 'update'],
      [2, 'update'],
      [1, 'add'],
    ],
  )
  t.same(answer.list[4], added, 'the add entry read after three updates and a delete is the one read right after the add')
  t.match(answer.list[4], {
    userName: 'op-history',
    changes: { deptName: [null, 'first dept'], checkTime: [null, '2026-11-21T13:02:35+08:00'] },
  })
  const lastPage = (await history('/hazard/monitorEquip', 'ME-H9', { pageNum: 3, pageSize: 2 })).data
  t.same([lastPage.total, lastPage.list], [5, [added]], 'on the last page of its own')
})

t.test('paging: newest first, pageNum and pageSize', async (t) => {
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-HPG'), { token })).body.code, 0)
  for (let i = 1; i <= 4; i++) {
    t.equal((await service.call('/prevent/riskUnit/update', { id: 'RU-HPG', riskUnitName: `name ${i}` }, { token })).body.code, 0)
  }
  const second = await history('/prevent/riskUnit', 'RU-HPG', { pageNum: 2, pageSize: 2 })
  t.same(
    second.data.list.map((entry: any) => entry.version),
    [3, 2],
  )
  t.equal(second.data.total, 5)
  const past = await history('/prevent/riskUnit', 'RU-HPG', { pageNum: 9, pageSize: 2 })
  t.same(past.data.list, [])
  t.equal(past.data.total, 5)
})

t.test('add-batch: one entry per stored item, none for a failed one', async (t) => {
  const reply = await service.call(
    '/prevent/riskUnit/add-batch',
    { list: [record('riskUnit', 'RU-HB1'), { id: 'RU-HB2' }, record('riskUnit', 'RU-HB3')] },
    { token },
  )
  t.same(reply.body.data.succeeded, ['RU-HB1', 'RU-HB3'])
  for (const id of ['RU-HB1', 'RU-HB3']) {
    const answer = await history('/prevent/riskUnit', id)
    t.equal(answer.data.total, 1, id)
    t.equal(answer.data.list[0].action, 'add')
  }
  t.equal((await history('/prevent/riskUnit', 'RU-HB2')).code, 1004, 'the failed item never existed')
})

t.test('a refused write (1003, 1012, 1011) leaves no entry', async (t) => {
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-HB1'), { token })).body.code, 1003)
  t.equal((await service.call('/prevent/riskEvents/add', record('riskEvents', 'RE-H1', { riskUnitId: 'RU-HB1' }), { token })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/delete', { id: 'RU-HB1' }, { token })).body.code, 1012)
  t.equal((await history('/prevent/riskUnit', 'RU-HB1')).data.total, 1)
})

t.test('1004 for an id that never existed; 1002 for a bad body; every resource has history', async (t) => {
  t.equal((await history('/prevent/riskUnit', 'RU-NEVER')).code, 1004)
  t.equal((await service.call('/prevent/riskUnit/history', { id: 'RU-H1', pageSize: 501 }, { token })).body.code, 1002)
  t.equal((await service.call('/prevent/riskUnit/history', {}, { token })).body.code, 1002)
  for (const path of [
    '/prevent/riskEvents',
    '/prevent/riskMeasures',
    '/prevent/troubleshootTask',
    '/prevent/troubleshootRecord',
    '/prevent/troubleshootInfo',
    '/prevent/trainBaseInfo',
  ]) {
    t.equal((await history(path, 'NOPE')).code, 1004, path)
  }
})

t.test('an Idempotency-Key replay writes no second entry', async (t) => {
  const headers = { 'idempotency-key': 'hist-key-1' }
  const body = { id: 'RU-HB3', riskUnitName: 'idempotent rename' }
  t.equal((await service.call('/prevent/riskUnit/update', body, { token, headers })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/update', body, { token, headers })).body.code, 0)
  t.equal((await history('/prevent/riskUnit', 'RU-HB3')).data.total, 2)
})

t.end()
