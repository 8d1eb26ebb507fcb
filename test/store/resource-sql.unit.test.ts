// Unit tier (no database): the SQL the store builds for a valid search, its bound values, and the
// table that tells database refusals apart by constraint name.
import t from 'tap'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'
import { validSearch } from '../../src/domain/search.ts'
import { BusinessError, Code } from '../../src/errors.ts'
import { ResourceRegistry } from '../../src/resources/resource-registry.ts'
import { constraintName, refusalsByConstraint, translateRefusal } from '../../src/store/constraints.ts'
import { decodeCursor, encodeCursor } from '../../src/store/cursor.ts'
import { EXACT_TOTAL_LIMIT, ResourceTable } from '../../src/store/resource-sql.ts'

const registry = new ResourceRegistry(loadOpenApi().document)
const unit = registry.get('riskUnit')
const table = new ResourceTable(unit)

t.test('a search: conditions as bound parameters, the order with its tie-breakers; its total counted apart, bounded', async (t) => {
  const query = validSearch(unit, {
    pageNum: 3,
    pageSize: 10,
    conditions: [
      { field: 'riskUnitName', op: 'like', value: '50%_off' },
      { field: 'id', op: 'in', value: ['a', 'b'] },
      { field: 'riskUnitName', op: 'gt', value: 'm' },
      { field: 'createTime', op: 'isNull', value: false },
    ],
    orderBy: [{ field: 'riskUnitName', direction: 'asc' }],
  })
  const [sql, values] = table.page(query)
  t.match(sql, /^SELECT "id", /)
  t.match(
    sql,
    /FROM "risk_unit" WHERE live AND "riskUnitName" LIKE \$1 AND "id" = ANY\(\$2::text\[\]\) AND "riskUnitName" COLLATE "C" > \$3::text AND "createTime" IS NOT NULL /,
  )
  t.match(sql, /NULL::int AS "__total"/, 'the page counts nothing')
  t.notMatch(sql, /count\(/)
  t.match(sql, /ORDER BY "riskUnitName" COLLATE "C" ASC, "id" ASC LIMIT \$4 OFFSET \$5$/)
  t.same(values, ['%50\\%\\_off%', ['a', 'b'], 'm', 10, 20], 'like escapes % and _; the offset is (pageNum - 1) * pageSize')
  const [counted, bound] = table.count(query, 'bounded')
  t.match(
    counted,
    new RegExp(
      `^SELECT \\(SELECT count\\(\\*\\)::int FROM \\(SELECT 1 FROM "risk_unit" WHERE live AND .* LIMIT ${EXACT_TOTAL_LIMIT + 1}\\) AS matching\\) AS total$`,
    ),
  )
  t.same(bound, values.slice(0, 3), 'the count binds the conditions alone')
})

t.test("one enterprise's records on the park: the total is the count the park keeps, nothing is counted", async (t) => {
  const query = validSearch(unit, { conditions: [{ field: 'companyCode', op: 'eq', value: '320115042' }] })
  const [sql, values] = table.page(query, '320115042')
  t.match(
    sql,
    /coalesce\(\(SELECT live::int FROM park_record_count WHERE "table" = 'risk_unit' AND "companyCode" = \$2::text\), 0\) AS "__total"/,
  )
  t.notMatch(sql, /count\(/)
  t.same(values.slice(0, 2), ['320115042', '320115042'])
  const [alone, bound] = table.count(query, { enterprise: '320115042' })
  t.match(
    alone,
    /^SELECT coalesce\(\(SELECT live::int FROM park_record_count WHERE "table" = 'risk_unit' AND "companyCode" = \$1::text\), 0\) AS total$/,
  )
  t.same(bound, ['320115042'], 'the total alone (a page past the end) binds what it uses only')
})

t.test('equality keeps the column collation (its indexes apply); a cursor replaces the offset', async (t) => {
  const keys = validSearch(unit, {}).keys
  const cursor = encodeCursor(keys, [new Date('2026-11-21T02:00:00Z'), 'RU-9'])
  const query = validSearch(unit, { after: cursor, conditions: [{ field: 'riskUnitName', op: 'eq', value: 'x' }] })
  t.same(query.keys, keys)
  const [sql, values] = table.page(query)
  t.match(sql, /"riskUnitName" = \$1::text/)
  t.match(
    sql,
    /"updateTime" <= \$2::timestamptz AND \(\("updateTime" < \$2::timestamptz\) OR \("updateTime" = \$2::timestamptz AND "id" > \$3::text\)\)/,
  )
  t.notMatch(sql, /OFFSET/)
  t.same(values, ['x', '2026-11-21T02:00:00.000Z', 'RU-9', 20])
})

t.test('unique fields compare in code-point order, the order of their indexes (migration 090)', async (t) => {
  const equip = new ResourceTable(registry.get('monitorEquip'))
  const query = validSearch(registry.get('monitorEquip'), {
    conditions: [
      { field: 'monitorCode', op: 'eq', value: 'MC-1' },
      { field: 'monitorCode', op: 'in', value: ['MC-2'] },
      { field: 'monitorName', op: 'eq', value: 'x' },
    ],
    orderBy: [{ field: 'monitorCode' }],
  })
  const [sql] = equip.page(query)
  t.match(sql, /"monitorCode" COLLATE "C" = \$1::text AND "monitorCode" COLLATE "C" = ANY\(\$2::text\[\]\) AND "monitorName" = \$3::text/)
  t.match(sql, /ORDER BY "monitorCode" COLLATE "C" ASC, /)
  t.match(equip.conflict({ id: 'a', monitorCode: 'MC-1' })[0], /"monitorCode" COLLATE "C" = \$2/)
})

t.test('a cursor holds the sort values, and fits only keys of its kinds', async (t) => {
  const keys = validSearch(unit, {}).keys
  t.same(decodeCursor(encodeCursor(keys, ['2026-11-21T02:00:00.000Z', 'RU-1']), keys), ['2026-11-21T02:00:00.000Z', 'RU-1'])
  t.throws(() => decodeCursor(encodeCursor(keys, [null, 'RU-1']), keys), { code: Code.badParameter }, 'updateTime is never null')
  t.throws(() => decodeCursor(encodeCursor(keys, ['2026-11-21T02:00:00.000Z', 1]), keys), { code: Code.badParameter })
  t.throws(
    () => decodeCursor(encodeCursor(keys, ['+275760-09-13T00:00:00.000Z', 'RU-1']), keys),
    { code: Code.badParameter },
    'an instant PostgreSQL cannot hold',
  )
  const other = validSearch(unit, { orderBy: [{ field: 'riskLevel' }] }).keys
  t.throws(() => decodeCursor(encodeCursor(other, ['2', 'RU-1']), keys), { code: Code.badParameter }, 'values that fit, of another order')
  t.throws(() => decodeCursor('%%%', keys), { code: Code.badParameter })
})

t.test('an update changes only what differs, under an expected version when asked', async (t) => {
  const [sql, values] = table.update('RU-1', { id: 'RU-1', riskUnitName: 'n' }, 'admin', 4)
  t.match(sql, /SET "riskUnitName" = \$3, "updateTime" = date_trunc\('second', now\(\)\), "updateBy" = \$2/, 'the time to the second')
  t.match(sql, /"risk_unit"\.live AND \("risk_unit"\."riskUnitName" IS DISTINCT FROM \$3\) AND "risk_unit"\.version = \$4/)
  t.same(values, ['RU-1', 'admin', 'n', 4])
})

t.test('updates and deletes write their history entry in the same statement; an add is its record alone', async (t) => {
  const [update] = table.update('RU-1', { id: 'RU-1', riskUnitName: 'n' }, 'admin')
  t.match(
    update,
    /WITH target AS \(SELECT .* FOR NO KEY UPDATE\), changed AS \(UPDATE .*\), history AS \(INSERT INTO record_history .*'update'.*history_changes\(__old, __new/,
  )
  const [insert] = table.insert({ id: 'RU-1', riskUnitName: 'n' }, '000000000', 'admin')
  t.match(
    insert,
    /^WITH added AS \(INSERT INTO "risk_unit" .*\) RETURNING .*\) INSERT INTO event_inbox .*'record.added'/,
    'outside a transaction: a conflict is an error; the add and its event in one statement',
  )
  t.notMatch(insert, /ON CONFLICT/)
  t.match(
    table.insert({ id: 'RU-1' }, '000000000', 'admin', true)[0],
    /^WITH added AS \(INSERT INTO "risk_unit" .* ON CONFLICT DO NOTHING RETURNING /,
    'inside one',
  )
  t.notMatch(insert, /record_history/, 'the add entry is read from the record (history-store.ts)')
  const [remove] = table.delete('RU-1', 'admin')
  t.match(
    remove,
    /WITH deleted AS \(UPDATE "risk_unit" SET live = NULL.*\), history AS \(INSERT INTO record_history .*'delete', "updateTime", "updateBy", '\{\}'::jsonb FROM deleted RETURNING .*\), history_event AS \(INSERT INTO event_inbox .* FROM history\) SELECT id FROM deleted$/,
  )
})

t.test('refusals by constraint name: references and unique fields of the registry', async (t) => {
  const refusals = refusalsByConstraint(registry.all)
  const events = registry.get('riskEvents')
  const reference = refusals.get(constraintName('risk_events', 'riskUnitId', 'ref'))
  t.equal(reference?.kind, 'reference')
  t.equal(refusals.get('monitor_equip_monitorCode_unique')?.kind, 'unique')
  t.equal(refusals.get('ticket_base_info_ticketNo_unique')?.kind, 'unique')
  const foreignKey = { code: '23503', constraint: 'risk_events_riskUnitId_ref' }
  const missing = translateRefusal(refusals, events, foreignKey, { id: 'RE-1', riskUnitId: 'RU-404' })
  t.ok(missing instanceof BusinessError && missing.code === Code.missingReference)
  t.equal((missing as BusinessError).message, 'riskUnitId: referenced riskUnit RU-404 does not exist')
  const held = translateRefusal(refusals, unit, foreignKey, { id: 'RU-1' })
  t.equal((held as BusinessError).code, Code.stillReferenced)
  t.equal((held as BusinessError).message, 'riskUnit RU-1 is still referenced by riskEvents.riskUnitId')
  const unique = translateRefusal(
    refusals,
    registry.get('monitorEquip'),
    { code: '23505', constraint: 'monitor_equip_monitorCode_unique' },
    {},
  )
  t.equal((unique as BusinessError).message, 'monitorCode already exists')
  const named = translateRefusal(
    refusals,
    registry.get('monitorEquip'),
    { code: '23505', constraint: 'monitor_equip_monitorCode_unique' },
    { id: 'ME-4', monitorCode: 'MC-1' },
  )
  t.equal((named as BusinessError).message, 'monitorCode already exists: MC-1', "an update's value named, as an add's")
  const unknown = { code: '23505', constraint: 'something_else' }
  t.equal(translateRefusal(refusals, unit, unknown, {}), unknown, 'an unknown constraint stays the error it was')
  // Every other SQLSTATE as database-errors.ts classifies it: the caller's value is its 1002, the
  // database out of reach stays the error it was (answered 4001 and logged by the envelope).
  const outOfRange = translateRefusal(refusals, unit, { code: '22003', severity: 'ERROR' }, {})
  t.ok(outOfRange instanceof BusinessError && outOfRange.code === Code.badParameter)
  t.equal((outOfRange as BusinessError).message, 'a number is out of range')
  const gone = { code: '57P01', severity: 'FATAL' }
  t.equal(translateRefusal(refusals, unit, gone, {}), gone, 'the database unavailable stays the error it was')
})
