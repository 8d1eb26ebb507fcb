// FIELDS.md references: a child of a missing or deleted parent is 1006; deleting a parent that live
// children name is 1012; and no interleaving of concurrent writes leaves an orphan.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()
const call = (path: string, body: unknown) => service.call(path, body, { token })

t.test('the chain riskUnit ← riskEvents ← riskMeasures ← troubleshootTask ← troubleshootRecord ← troubleshootInfo', async (t) => {
  t.equal((await call('/prevent/riskUnit/add', record('riskUnit', 'RU-1'))).body.code, 0)
  t.equal((await call('/prevent/riskEvents/add', record('riskEvents', 'RE-1', { riskUnitId: 'RU-1' }))).body.code, 0)
  t.equal((await call('/prevent/riskMeasures/add', record('riskMeasures', 'RM-1', { riskEventId: 'RE-1' }))).body.code, 0)
  t.equal((await call('/prevent/troubleshootTask/add', record('troubleshootTask', 'TT-1', { riskMeasureId: 'RM-1' }))).body.code, 0)
  t.equal((await call('/prevent/troubleshootRecord/add', record('troubleshootRecord', 'TR-1', { checkTaskId: 'TT-1' }))).body.code, 0)
  t.equal(
    (await call('/prevent/troubleshootInfo/add', record('troubleshootInfo', 'TI-1', { checkRecordId: 'TR-1', riskMeasureId: 'RM-1' }))).body
      .code,
    0,
  )
})

t.test('a child naming a missing parent is 1006 on add and on update', async (t) => {
  const add = await call('/prevent/riskEvents/add', record('riskEvents', 'RE-2', { riskUnitId: 'RU-404' }))
  t.same(add.body, { msg: 'riskUnitId: referenced riskUnit RU-404 does not exist', code: 1006, data: null, success: false })
  t.equal((await call('/prevent/riskEvents/update', { id: 'RE-1', riskUnitId: 'RU-404' })).body.code, 1006)
  t.equal((await call('/prevent/troubleshootInfo/add', record('troubleshootInfo', 'TI-2', { riskMeasureId: 'RM-404' }))).body.code, 1006)
})

t.test('deleting a parent that live children name is 1012; once the children are gone it succeeds', async (t) => {
  const refused = await call('/prevent/riskUnit/delete', { id: 'RU-1' })
  t.equal(refused.body.code, 1012)
  t.match(refused.body.msg, /riskUnit RU-1 is still referenced by riskEvents/)
  for (const [path, id] of [
    ['/prevent/troubleshootInfo', 'TI-1'],
    ['/prevent/troubleshootRecord', 'TR-1'],
    ['/prevent/troubleshootTask', 'TT-1'],
    ['/prevent/riskMeasures', 'RM-1'],
    ['/prevent/riskEvents', 'RE-1'],
    ['/prevent/riskUnit', 'RU-1'],
  ]) {
    t.equal((await call(`${path}/delete`, { id })).body.code, 0, `${path} ${id}`)
  }
})

t.test('a child naming a deleted parent is 1006', async (t) => {
  t.equal((await call('/prevent/riskEvents/add', record('riskEvents', 'RE-3', { riskUnitId: 'RU-1' }))).body.code, 1006)
})

t.test('a concurrent delete of the parent and add of a child never leaves an orphan', async (t) => {
  for (let round = 0; round < 20; round++) {
    const parent = `RU-C${round}`
    await call('/prevent/riskUnit/add', record('riskUnit', parent))
    const [child, removal] = await Promise.all([
      call('/prevent/riskEvents/add', record('riskEvents', `RE-C${round}`, { riskUnitId: parent })),
      call('/prevent/riskUnit/delete', { id: parent }),
    ])
    const outcome = `${child.body.code}/${removal.body.code}`
    t.ok(outcome === '0/1012' || outcome === '1006/0', `round ${round}: child ${child.body.code}, delete ${removal.body.code}`)
  }
  const orphans = await service.database.pool.query(
    'SELECT e.id FROM risk_events e LEFT JOIN risk_unit u ON u.id = e."riskUnitId" AND u.live WHERE e.live AND u.id IS NULL',
  )
  t.same(orphans.rows, [])
})

t.end()
