// Unit tier (no database): every database error the service can meet, classified in one place
// (src/store/database-errors.ts): the caller's value 1002, the database unavailable or too slow 4001,
// the rest unexpected.
import t from 'tap'
import { english } from '../../src/messages/message.ts'
import { classifyDatabaseError, sqlState } from '../../src/store/database-errors.ts'

t.test('database errors: classified by SQLSTATE, however wrapped', async (t) => {
  const pgError = (code: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error('x'), { code, severity: 'ERROR', ...extra })
  t.same(classifyDatabaseError(pgError('22021'))?.code, 1002, 'NUL byte')
  t.same(classifyDatabaseError(pgError('22009'))?.code, 1002, 'time zone displacement')
  t.same(classifyDatabaseError(pgError('22P02'))?.code, 1002, 'any other data exception')
  t.same(classifyDatabaseError(pgError('54000'))?.code, 1002, 'a value too large to index')
  t.same(english(classifyDatabaseError(pgError('23502', { column: 'riskUnitName' }))!.message), 'riskUnitName: must not be null')
  t.same(classifyDatabaseError(pgError('23514'))?.code, 1002, 'a check constraint')
  // Unique and reference refusals are told by constraint name in store/constraints.ts (with the
  // record they concern); one that reaches here names no known constraint: ours, unexpected.
  for (const code of ['23505', '23503'])
    t.equal(classifyDatabaseError(pgError(code, { detail: 'is still referenced from table' })), undefined, `${code} is not told here`)
  for (const code of ['08006', '57P01', '57P03', '53300', '57014', '40P01', '55P03', '3D000'])
    t.same(classifyDatabaseError(pgError(code))?.code, 4001, code)
  for (const code of ['42P01', '42601', 'XX000', '0A000']) t.equal(classifyDatabaseError(pgError(code)), undefined, `${code} is unexpected`)
  const socket = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' })
  t.same(classifyDatabaseError(socket)?.code, 4001)
  const closed = Object.assign(pgError('55000'), { message: 'database "ent" is not currently accepting connections' })
  t.same(classifyDatabaseError(closed)?.code, 4001, 'a database closed to connections')
  t.same(classifyDatabaseError(pgError('55000')), undefined, 'another 55000 is ours')
  const wrapped = {
    name: 'DriverAdapterError',
    cause: { originalCode: '55000', originalMessage: 'database "ent" is not currently accepting connections' },
  }
  t.same(classifyDatabaseError(wrapped)?.code, 4001, 'the same through Prisma')
  t.same(classifyDatabaseError(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))?.code, 4001, 'a Node code is not a SQLSTATE')
  t.same(classifyDatabaseError(new Error('timeout exceeded when trying to connect'))?.code, 4001, 'the pool connect timeout')
  t.same(classifyDatabaseError(new Error('Connection terminated unexpectedly'))?.code, 4001)
  const adapter = { name: 'DriverAdapterError', cause: { originalCode: '22021', kind: 'postgres', code: '22021' } }
  t.equal(sqlState(adapter), '22021')
  t.same(classifyDatabaseError(adapter)?.code, 1002, 'Prisma driver adapter error')
  const known = { code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '57014' } } } }
  t.same(classifyDatabaseError(known)?.code, 4001, 'Prisma known request error')
  t.same(classifyDatabaseError({ name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable' } })?.code, 4001)
  t.same(classifyDatabaseError({ code: 'P2024' })?.code, 4001, 'Prisma pool timeout')
  t.equal(classifyDatabaseError(new TypeError('x is undefined')), undefined, 'our own bug stays unexpected')
  t.equal(classifyDatabaseError(undefined), undefined)
})
