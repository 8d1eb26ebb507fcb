// Unit tier (no database): search requests made valid for the store, or refused with 1002 naming
// what is wrong, in the order the service checks them (orderBy, cursor, conditions).
import t from 'tap'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'
import { type SearchRequest, validSearch } from '../../src/domain/search.ts'
import { BusinessError, Code } from '../../src/errors.ts'
import { ResourceRegistry } from '../../src/resources/resource-registry.ts'
import { encodeCursor } from '../../src/store/cursor.ts'
import { PUSHED_RECORDS } from '../../src/store/record-scope.ts'

const registry = new ResourceRegistry(loadOpenApi().document)
const equip = registry.get('monitorEquip')

function refused(request: SearchRequest): string {
  try {
    validSearch(equip, request)
  } catch (error) {
    if (error instanceof BusinessError && error.code === Code.badParameter) return error.message
    throw error
  }
  throw new Error('not refused')
}

t.test('defaults, the tie-breakers and the conditions with their fields', async (t) => {
  const query = validSearch(equip, {
    conditions: [
      { field: 'monitorCode', op: 'like', value: 'M-' },
      { field: 'longitude', op: 'gte', value: 113.5 },
    ],
    orderBy: [{ field: 'monitorCode', direction: 'desc' }],
  })
  t.equal(query.pageNum, 1)
  t.equal(query.pageSize, 20)
  t.same(
    query.keys.map((key) => [key.name, key.desc]),
    [
      ['monitorCode', true],
      ['id', false],
    ],
    'ties broken by id ascending',
  )
  t.same(
    validSearch(equip, {}).keys.map((key) => [key.name, key.desc]),
    [
      ['updateTime', true],
      ['id', false],
    ],
    "without orderBy, list's order",
  )
  t.same(
    validSearch(equip, { orderBy: [{ field: 'monitorCode' }] }, PUSHED_RECORDS).keys.map((key) => [key.name, key.desc]),
    [
      ['monitorCode', false],
      ['id', false],
      ['companyCode', false],
    ],
    'on the park, then by company code (several enterprises may hold one id)',
  )
  t.same(
    query.conditions.map((condition) => [condition.op, condition.field.name, condition.field.kind, condition.value]),
    [
      ['like', 'monitorCode', 'string', 'M-'],
      ['gte', 'longitude', 'number', 113.5],
    ],
  )
  t.equal(query.cursor, undefined)
  t.same(validSearch(equip, { conditions: [{ field: 'updateTime', op: 'isNull', value: false }] }).conditions[0].field, {
    name: 'updateTime',
    kind: 'instant',
  })
})

t.test('refusals name the place and the rule', async (t) => {
  t.equal(refused({ orderBy: [{ field: 'nope' }] }), 'orderBy.field: unknown field nope')
  t.equal(refused({ conditions: [{ field: 'nope', op: 'eq', value: 1 }] }), 'conditions[0].field: unknown field nope')
  t.equal(refused({ conditions: [{ field: 'monitorCode', op: 'between', value: 1 }] }), 'conditions[0].op: unknown operator between')
  t.equal(
    refused({ conditions: [{ field: 'longitude', op: 'like', value: '1' }] }),
    'conditions[0].op: like applies to text fields only, not longitude',
  )
  t.equal(refused({ conditions: [{ field: 'monitorCode', op: 'like', value: 1 }] }), 'conditions[0].value: must be a string for like')
  t.equal(
    refused({ conditions: [{ field: 'monitorCode', op: 'isNull', value: 'yes' }] }),
    'conditions[0].value: must be true or false for isNull',
  )
  t.equal(
    refused({ conditions: [{ field: 'monitorCode', op: 'in', value: [] }] }),
    'conditions[0].value: must be an array of 1 to 500 values for in',
  )
  t.equal(
    refused({ conditions: [{ field: 'longitude', op: 'in', value: [1, 'x'] }] }),
    'conditions[0].value[1]: must be a number for longitude',
  )
  t.equal(
    refused({ conditions: [{ field: 'createTime', op: 'gt', value: '2026-11-21 10:00' }] }),
    'conditions[0].value: must be an ISO 8601 instant with offset for createTime',
  )
  t.equal(
    refused({ conditions: [{ field: 'createTime', op: 'gt', value: '2026-11-21T24:00:00Z' }] }),
    'conditions[0].value: must be an ISO 8601 instant with offset for createTime',
    'hour 24, refused as writes refuse it',
  )
  for (const value of ['2026-11-21 10:00:00Z', '2026-11-21T10:00:00+08', '2026-11-21T10:00:00+0800']) {
    t.equal(
      refused({ conditions: [{ field: 'createTime', op: 'gt', value }] }),
      'conditions[0].value: must be an ISO 8601 instant with offset for createTime',
      `${value}: not RFC 3339, refused as writes refuse it`,
    )
  }
  t.same(
    validSearch(equip, { conditions: [{ field: 'createTime', op: 'gt', value: '2026-11-21t10:00:00z' }] }).conditions[0].value,
    '2026-11-21t10:00:00z',
    'RFC 3339 allows t and z, as writes do',
  )
  const training = registry.get('trainBaseInfo')
  const refusedOf = (request: SearchRequest) => {
    try {
      validSearch(training, request)
      return 'not refused'
    } catch (error) {
      return error instanceof BusinessError ? error.message : String(error)
    }
  }
  t.equal(
    refusedOf({ conditions: [{ field: 'trainHours', op: 'gt', value: 99999999999999 }] }),
    'conditions[0].value: must be an integer from -2147483648 to 2147483647 for trainHours',
    'an integer the column cannot hold is named, not left to the database',
  )
  const troubleshooting = registry.get('troubleshootInfo')
  t.throws(
    () => validSearch(troubleshooting, { conditions: [{ field: 'dangerManageDeadline', op: 'eq', value: '2025-02-29' }] }),
    { message: 'conditions[0].value: must be a date YYYY-MM-DD for dangerManageDeadline' },
    'no 29 February in 2025',
  )
  t.equal(
    refused({ conditions: [{ field: 'longitude', op: 'eq', value: Number.NaN }] }),
    'conditions[0].value: must be a number for longitude',
  )
})

t.test('a cursor must fit the order it is sent with, and is checked before the conditions', async (t) => {
  const fitting = encodeCursor(validSearch(equip, {}).keys, ['2026-11-21T02:00:00.000Z', 'E-1'])
  t.same(validSearch(equip, { after: fitting }).cursor, ['2026-11-21T02:00:00.000Z', 'E-1'])
  t.match(refused({ after: 'not a cursor' }), /^after: not a cursor of this query/)
  t.match(refused({ after: fitting, orderBy: [{ field: 'monitorCode' }, { field: 'monitorName' }] }), /^after:/, 'three keys, two values')
  t.match(refused({ after: fitting, orderBy: [{ field: 'longitude' }] }), /^after:/, 'a number key, a text value')
  t.match(refused({ after: 'x', conditions: [{ field: 'nope', op: 'eq' }] }), /^after:/)
  t.match(refused({ after: 'x', orderBy: [{ field: 'nope' }] }), /^orderBy/)
})
