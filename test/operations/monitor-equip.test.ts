// The add of monitoring equipment: checks in order, uniqueness,
// thresholds, partial update, idempotent tombstone delete, ids never reused.

import pg from 'pg'
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()
const call = (action: string, body: unknown) => service.call(`/hazard/monitorEquip/${action}`, body, { token })
const rowCount = async () => (await service.database.pool.query('SELECT count(*)::int AS n FROM monitor_equip')).rows[0].n

t.test('add stores every field and reads return it with the server-kept fields', async (t) => {
  const sent = record('monitorEquip', 'ME-1', { checkTime: '2026-11-21T05:02:35Z' })
  t.same((await call('add', sent)).body, { msg: '', code: 0, data: null, success: true })
  const read = await call('getById', { id: 'ME-1' })
  t.equal(read.body.code, 0)
  const { companyCode, createTime, updateTime, createBy, updateBy, sync_status, sync_time, sync_error, ...fields } = read.body.data
  // The optional alarm settings not sent read back null (their documented defaults apply).
  const unset = { alarmDeadband: null, alarmDelaySeconds: null, offlineAfterSeconds: null, frozenAfterSeconds: null }
  t.same(fields, { ...sent, ...unset, checkTime: '2026-11-21T13:02:35+08:00' }, 'instants come back in +08:00')
  t.equal(companyCode, '000000000')
  t.match(createTime, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00$/, 'the wire form, to the second')
  t.equal(createTime, updateTime)
  t.equal(createBy, 'admin')
  t.equal(updateBy, 'admin')
  t.equal(sync_status, 'pending')
  t.equal(sync_time, null)
  t.equal(sync_error, null, 'no push failed')
})

t.test('instants are kept to the second and written back in +08:00', async (t) => {
  t.equal((await call('add', record('monitorEquip', 'ME-T', { checkTime: '2026-10-01T05:02:35.789Z' }))).body.code, 0)
  t.equal((await call('getById', { id: 'ME-T' })).body.data.checkTime, '2026-10-01T13:02:35+08:00')
  const found = await call('search', { conditions: [{ field: 'checkTime', op: 'eq', value: '2026-10-01T13:02:35+08:00' }] })
  t.same(
    found.body.data.list.map((item: any) => item.id),
    ['ME-T'],
    'what is read back finds the record',
  )
})

t.test('a duplicate monitorCode answers 1001 and writes nothing', async (t) => {
  const before = await rowCount()
  const reply = await call('add', record('monitorEquip', 'ME-2', { monitorCode: 'MC-ME-1' }))
  t.same(reply.body, { msg: 'monitorCode already exists: MC-ME-1', code: 1001, data: null, success: false })
  t.equal(await rowCount(), before)
})

t.test('checks run in order: schema 1002, then monitorCode 1001, then id 1003', async (t) => {
  t.equal((await call('add', record('monitorEquip', 'ME-1', { monitorCode: 'MC-ME-1', monitorName: 'x'.repeat(129) }))).body.code, 1002)
  t.equal((await call('add', record('monitorEquip', 'ME-1', { monitorCode: 'MC-ME-1' }))).body.code, 1001)
  t.same((await call('add', record('monitorEquip', 'ME-1', { monitorCode: 'MC-NEW' }))).body, {
    msg: 'id already exists: ME-1',
    code: 1003,
    data: null,
    success: false,
  })
})

t.test('every field is required on add', async (t) => {
  const { address, ...missing } = record('monitorEquip', 'ME-3')
  t.same((await call('add', missing)).body.msg, 'address: required')
})

t.test('coordinates are range-checked numbers; thresholds are decimal strings or ""', async (t) => {
  t.equal((await call('add', record('monitorEquip', 'ME-4', { longitude: 181 }))).body.code, 1002)
  t.equal((await call('add', record('monitorEquip', 'ME-4', { latitude: '30.1' }))).body.code, 1002)
  t.equal((await call('add', record('monitorEquip', 'ME-4', { oneLevelHigh: 'high' }))).body.code, 1002)
  t.equal((await call('add', record('monitorEquip', 'ME-4', { oneLevelHigh: 12.5 }))).body.code, 1002)
  t.equal((await call('add', record('monitorEquip', 'ME-4', { twoLevelLow: '', oneLevelLow: '' }))).body.code, 0)
})

t.test('thresholds must be ordered rangeMin ≤ twoLevelLow ≤ oneLevelLow ≤ oneLevelHigh ≤ twoLevelHigh ≤ rangeMax', async (t) => {
  const base = record('monitorEquip', 'ME-5', {
    rangeMin: '0',
    twoLevelLow: '10',
    oneLevelLow: '20',
    oneLevelHigh: '80',
    twoLevelHigh: '90',
    rangeMax: '100',
  })
  const inverted = await call('add', { ...base, oneLevelHigh: '95' })
  t.equal(inverted.body.code, 1002)
  t.match(inverted.body.msg, /oneLevelHigh.*twoLevelHigh/)
  t.equal((await call('add', { ...base, rangeMax: '50' })).body.code, 1002)
  t.equal((await call('add', base)).body.code, 0)
  // on update, the rule holds for the stored record merged with the change
  const update = await call('update', { id: 'ME-5', twoLevelLow: '30' })
  t.equal(update.body.code, 1002)
  t.match(update.body.msg, /twoLevelLow.*oneLevelLow/)
  t.equal((await call('update', { id: 'ME-5', twoLevelLow: '15' })).body.code, 0)
})

t.test('update is partial, 1004 when missing, and the same update twice changes nothing more', async (t) => {
  t.equal((await call('update', { id: 'ME-404', monitorName: 'x' })).body.code, 1004)
  t.equal((await call('update', { id: 'ME-1', monitorName: 'Renamed' })).body.code, 0)
  const first = (await call('getById', { id: 'ME-1' })).body.data
  t.equal(first.monitorName, 'Renamed')
  t.equal(first.address, record('monitorEquip', 'ME-1').address, 'fields not sent are kept')
  const version = async () => (await service.database.pool.query("SELECT version FROM monitor_equip WHERE id = 'ME-1'")).rows[0].version
  const before = await version()
  t.equal((await call('update', { id: 'ME-1', monitorName: 'Renamed' })).body.code, 0)
  t.equal(await version(), before, 'a repeated update is not a new version (nothing new to push)')
  t.equal((await call('update', { id: 'ME-1', monitorName: null })).body.code, 1002, 'required fields cannot be cleared')
})

t.test('update to a monitorCode used by another live record is 1001', async (t) => {
  t.equal((await call('update', { id: 'ME-4', monitorCode: 'MC-ME-1' })).body.code, 1001)
})

t.test('delete is idempotent, keeps a tombstone, frees the code, never frees the id', async (t) => {
  t.same((await call('delete', { id: 'ME-4' })).body, { msg: '', code: 0, data: null, success: true })
  t.equal((await call('delete', { id: 'ME-4' })).body.code, 0)
  t.equal((await call('delete', { id: 'never-existed' })).body.code, 0)
  t.equal((await call('getById', { id: 'ME-4' })).body.code, 1004)
  t.equal((await call('update', { id: 'ME-4', monitorName: 'x' })).body.code, 1004)
  const tombstone = (await service.database.pool.query("SELECT live, sync_status FROM monitor_equip WHERE id = 'ME-4'")).rows[0]
  t.same(tombstone, { live: null, sync_status: 'pending' }, 'the delete is kept, to be pushed')
  t.equal((await call('add', record('monitorEquip', 'ME-4'))).body.code, 1003)
  t.equal(
    (await call('add', record('monitorEquip', 'ME-6', { monitorCode: 'MC-ME-4' }))).body.code,
    0,
    'the code of a deleted record is free again',
  )
})

t.test('two concurrent adds with one monitorCode: exactly one succeeds', async (t) => {
  for (let round = 0; round < 5; round++) {
    const code = `RACE-${round}`
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call('add', record('monitorEquip', `RACE-${round}-${i}`, { monitorCode: code }))),
    )
    const codes = replies.map((reply) => reply.body.code).sort()
    t.same(codes, [0, 1001, 1001, 1001, 1001, 1001], `round ${round}`)
  }
})

t.test('the database itself refuses a second live record with one monitorCode', async (t) => {
  const client = new pg.Client({ connectionString: service.databaseUrl })
  await client.connect()
  t.teardown(() => client.end())
  await client.query("CREATE TEMP TABLE copy AS SELECT * FROM monitor_equip WHERE id = 'ME-1'")
  await client.query("UPDATE copy SET id = 'ME-COPY'")
  await t.rejects(client.query('INSERT INTO monitor_equip SELECT * FROM copy'), { code: '23505' })
})

t.end()
