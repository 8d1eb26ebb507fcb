// Updates and deletes outside a transaction are gathered under load (src/store/gathered-writes.ts),
// as adds are: while four of a table run, those arriving meanwhile wait and go together in one
// statement. On a real database: what goes together is written exactly as alone (the record, its
// version, its history entry), two updates of one record never share a statement and apply in
// arrival order, and every update has its own answer (unchanged, not found, a taken unique value, a
// missing parent), as every delete has (a missing record, a parent still referenced); no update
// waits for children being added (their foreign-key checks). Updates started in one synchronous
// loop gather deterministically (the first four alone, the others together once the first ends);
// the rows' xmin tells what went together.
import t from 'tap'
import type { ApiRecord } from '../../src/store/resource-store.ts'
import { PARENT_FIELD, record } from '../helpers/fixtures.ts'
import { answersOf, statementSizes, storeOnService } from '../helpers/gathering.ts'

const { pool, registry, store } = await storeOnService(t)

async function addAll(resource: string, records: ApiRecord[]): Promise<void> {
  for (const each of records) await store.add(registry.get(resource), each, { userName: 'adder' })
}

/** Each update's answer: 'changed', 'unchanged' or its business code. */
function updateAll(resource: string, patches: ApiRecord[], userName = (i: number) => `editor-${i}`): Promise<(string | number)[]> {
  const definition = registry.get(resource)
  return answersOf(
    patches.map((patch, i) => store.update(definition, String(patch.id), patch, { userName: userName(i) })),
    (changed) => (changed ? 'changed' : 'unchanged'),
  )
}

/** A row as stored but for what differs between records of the same values (id, unique value, times, authors). */
async function stored(id: string): Promise<Record<string, unknown>> {
  const { rows } = await pool.query(
    `SELECT to_jsonb(t) - 'id' - 'monitorCode' - 'createTime' - 'updateTime' - 'createBy' - 'updateBy' AS rest, "updateBy", version FROM monitor_equip t WHERE id = $1`,
    [id],
  )
  return rows[0]
}

/** The record's history entries after its add: [version, action, user, changes]. */
async function updatesOf(resource: string, id: string): Promise<unknown[][]> {
  const { rows } = await pool.query(
    `SELECT version, action, "userName", changes FROM record_history WHERE resource = $1 AND id = $2 ORDER BY version`,
    [resource, id],
  )
  return rows.map((row) => [row.version, row.action, row.userName, row.changes])
}

t.test('updates arriving while four run go together, written exactly as each alone', async (t) => {
  const ids = Array.from({ length: 20 }, (_, i) => `G-${i}`)
  await addAll(
    'monitorEquip',
    [...ids, 'G-ALONE'].map((id) => record('monitorEquip', id)),
  )
  // A fraction of a second in an instant: stored to the second, alone as together.
  const patch = { monitorName: 'renamed', rangeMax: 250.5, checkTime: '2026-03-01T08:30:15.750+08:00' }
  t.same(await updateAll('monitorEquip', [{ id: 'G-ALONE', ...patch }], () => 'editor-alone'), ['changed'])
  t.same(
    await updateAll(
      'monitorEquip',
      ids.map((id) => ({ id, ...patch })),
    ),
    ids.map(() => 'changed'),
  )
  t.same(await statementSizes(pool, 'monitor_equip', ids), [1, 1, 1, 1, 16], 'four alone, then sixteen in one statement')
  const alone = await stored('G-ALONE')
  t.equal(alone.version, 2)
  const [aloneEntry] = await updatesOf('monitorEquip', 'G-ALONE')
  t.same(aloneEntry.slice(0, 3), [2, 'update', 'editor-alone'])
  t.same(
    Object.keys(aloneEntry[3] as object).sort(),
    ['checkTime', 'monitorName', 'rangeMax'],
    'the history entry names the fields changed',
  )
  for (const [i, id] of ids.entries()) {
    const row = await stored(id)
    t.same(row.rest, alone.rest, `${id}: the same row as an update alone`)
    t.same([row.updateBy, row.version], [`editor-${i}`, 2], `${id}: its own author, one version more`)
    t.same(await updatesOf('monitorEquip', id), [[2, 'update', `editor-${i}`, aloneEntry[3]]], `${id}: the same history entry`)
  }
})

t.test('among gathered updates: unchanged, not found, a field cleared, and two updates of one record in order', async (t) => {
  const withOptional = 'riskUnit'
  await addAll(
    'monitorEquip',
    ['M-B0', 'M-B1', 'M-B2', 'M-B3', 'M-1', 'M-2'].map((id) => record('monitorEquip', id)),
  )
  await addAll(withOptional, [record(withOptional, 'R-1', { hazardDep: 'a department', longitude: 120.5 })])
  const blockers = ['M-B0', 'M-B1', 'M-B2', 'M-B3'].map((id) => ({ id, monitorName: 'blocker' }))
  const same = (await store.get(registry.get('monitorEquip'), 'M-2'))!.record.monitorName
  const answers = await updateAll('monitorEquip', [
    ...blockers,
    { id: 'M-1', monitorName: 'first' },
    { id: 'M-2', monitorName: same },
    { id: 'M-MISSING', monitorName: 'nobody' },
    { id: 'M-1', monitorName: 'second', deptName: 'another department' },
  ])
  t.same(answers, ['changed', 'changed', 'changed', 'changed', 'changed', 'unchanged', 1004, 'changed'])
  const first = await store.get(registry.get('monitorEquip'), 'M-1')
  t.same(
    [first?.record.monitorName, first?.record.deptName, first?.version],
    ['second', 'another department', 3],
    'both updates of M-1, in arrival order',
  )
  t.same(
    (await updatesOf('monitorEquip', 'M-1')).map(([version, , user, changes]) => [version, user, Object.keys(changes as object).sort()]),
    [
      [2, 'editor-4', ['monitorName']],
      [3, 'editor-7', ['deptName', 'monitorName']],
    ],
  )
  t.same(await updatesOf('monitorEquip', 'M-2'), [], 'the same values again: no new version, no history entry')
  t.equal((await store.get(registry.get('monitorEquip'), 'M-2'))?.version, 1)

  const cleared = await updateAll(withOptional, [
    ...Array.from({ length: 4 }, () => ({ id: 'R-1', riskLevel: null })),
    { id: 'R-1', hazardDep: null, longitude: null },
  ])
  t.same(cleared.slice(-1), ['changed'])
  const riskUnit = await store.get(registry.get(withOptional), 'R-1')
  t.same([riskUnit?.record.hazardDep ?? null, riskUnit?.record.longitude ?? null], [null, null], 'a field sent as null is cleared')
})

t.test('a unique value taken or a missing parent among gathered updates: that update alone is refused', async (t) => {
  await addAll(
    'monitorEquip',
    ['U-B0', 'U-B1', 'U-B2', 'U-B3', 'U-1', 'U-2', 'U-3'].map((id) => record('monitorEquip', id)),
  )
  const taken = record('monitorEquip', 'U-3').monitorCode
  const answers = await updateAll('monitorEquip', [
    ...['U-B0', 'U-B1', 'U-B2', 'U-B3'].map((id) => ({ id, monitorName: 'blocker' })),
    { id: 'U-1', monitorName: 'kept' },
    { id: 'U-2', monitorCode: taken },
    { id: 'U-3', monitorName: 'kept too' },
  ])
  t.same(answers, ['changed', 'changed', 'changed', 'changed', 'changed', 1001, 'changed'])
  const { rows } = await pool.query(
    `SELECT id, "monitorName", "monitorCode", version FROM monitor_equip WHERE id IN ('U-1', 'U-2', 'U-3') ORDER BY id`,
  )
  t.same(
    rows.map((row) => [row.id, row.monitorName, row.monitorCode, row.version]),
    [
      ['U-1', 'kept', record('monitorEquip', 'U-1').monitorCode, 2],
      ['U-2', record('monitorEquip', 'U-2').monitorName, record('monitorEquip', 'U-2').monitorCode, 1],
      ['U-3', 'kept too', taken, 2],
    ],
  )

  const [field, parent] = PARENT_FIELD.riskEvents!
  await addAll(parent, [record(parent, 'P-1')])
  await addAll(
    'riskEvents',
    ['C-B0', 'C-B1', 'C-B2', 'C-B3', 'C-1', 'C-2'].map((id) => record('riskEvents', id, { [field]: 'P-1' })),
  )
  const children = await updateAll('riskEvents', [
    ...['C-B0', 'C-B1', 'C-B2', 'C-B3'].map((id) => ({ id, [field]: 'P-1', riskEventName: 'blocker' })),
    { id: 'C-1', [field]: 'P-MISSING' },
    { id: 'C-2', riskEventName: 'renamed' },
  ])
  t.same(children.slice(4), [1006, 'changed'])
})

/** Each delete's answer: 'ok' or its business code. */
function deleteAll(resource: string, ids: string[], userName = (i: number) => `deleter-${i}`): Promise<(string | number)[]> {
  const definition = registry.get(resource)
  return answersOf(
    ids.map((id, i) => store.delete(definition, id, { userName: userName(i) })),
    () => 'ok',
  )
}

t.test('updates, alone or gathered, do not wait for children being added: they leave the key unlocked', async (t) => {
  // A child's add takes a KEY SHARE lock on its parent (the foreign key's check on (id, live)) until
  // its transaction ends: an idempotent batch of adds holds several. An update changes neither id
  // nor live, so it locks its records FOR NO KEY UPDATE, which does not conflict; FOR UPDATE would
  // make it wait for those transactions, and a gathered update waiting on one parent while holding
  // another could deadlock with them.
  const ids = Array.from({ length: 12 }, (_, i) => `KS-${i}`)
  await addAll(
    'riskUnit',
    ids.map((id) => record('riskUnit', id)),
  )
  const children = await pool.connect()
  try {
    await children.query('BEGIN')
    await children.query('SELECT 1 FROM risk_unit WHERE id = ANY($1) AND live FOR KEY SHARE', [ids])
    const answers = await updateAll(
      'riskUnit',
      ids.map((id) => ({ id, riskUnitName: `renamed ${id}` })),
    )
    t.same(
      answers,
      ids.map(() => 'changed'),
      'every update answered while the children\u2019s transaction is open',
    )
    t.same(await statementSizes(pool, 'risk_unit', ids), [1, 1, 1, 1, 8], 'four alone, then eight together')
  } finally {
    await children.query('ROLLBACK')
    children.release()
  }
})

t.test('deletes arriving while four run go together, each tombstone and history entry as alone', async (t) => {
  const ids = Array.from({ length: 20 }, (_, i) => `D-${i}`)
  await addAll(
    'monitorEquip',
    [...ids, 'D-ALONE'].map((id) => record('monitorEquip', id)),
  )
  t.same(await deleteAll('monitorEquip', ['D-ALONE'], () => 'deleter-alone'), ['ok'])
  t.same(
    await deleteAll('monitorEquip', ids),
    ids.map(() => 'ok'),
  )
  t.same(await statementSizes(pool, 'monitor_equip', ids), [1, 1, 1, 1, 16], 'four alone, then sixteen in one statement')
  const { rows } = await pool.query(
    `SELECT id, live, version, "updateBy", "deleteTime" IS NOT NULL AS "deleteTime", sync_status FROM monitor_equip WHERE id = ANY($1) ORDER BY id`,
    [[...ids, 'D-ALONE']],
  )
  for (const row of rows) {
    const by = row.id === 'D-ALONE' ? 'deleter-alone' : `deleter-${ids.indexOf(row.id)}`
    t.same([row.live, row.version, row.updateBy, row.deleteTime, row.sync_status], [null, 2, by, true, 'pending'], `${row.id}: a tombstone`)
    t.same(await updatesOf('monitorEquip', row.id), [[2, 'delete', by, {}]], `${row.id}: its history entry`)
  }
})

t.test('among gathered deletes: a missing record, one deleted twice, and a parent still referenced (1012)', async (t) => {
  const [field, parent] = PARENT_FIELD.riskEvents!
  await addAll(
    parent,
    ['Q-B0', 'Q-B1', 'Q-B2', 'Q-B3', 'Q-1', 'Q-2', 'Q-3'].map((id) => record(parent, id)),
  )
  await addAll('riskEvents', [record('riskEvents', 'E-1', { [field]: 'Q-2' })])
  const answers = await deleteAll(parent, ['Q-B0', 'Q-B1', 'Q-B2', 'Q-B3', 'Q-1', 'Q-MISSING', 'Q-2', 'Q-3', 'Q-1'])
  t.same(answers, ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 1012, 'ok', 'ok'])
  const { rows } = await pool.query(`SELECT id, live, version FROM risk_unit WHERE id IN ('Q-1', 'Q-2', 'Q-3') ORDER BY id`)
  t.same(
    rows.map((row) => [row.id, row.live, row.version]),
    [
      ['Q-1', null, 2],
      ['Q-2', true, 1],
      ['Q-3', null, 2],
    ],
  )
  t.same(
    (await updatesOf(parent, 'Q-1')).map(([version, action]) => [version, action]),
    [[2, 'delete']],
    'deleted once',
  )
})

t.end()
