// Unit tier (no database): the cross-field rules of domain/FIELDS.md, the state machines and the
// merged check of an update, as pure functions.
import t from 'tap'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'
import {
  classifyPrefix,
  compareDecimals,
  type CrossFieldRule,
  endAfterStart,
  passNotAboveParticipants,
  type RecordValues,
  requiredWhen,
  thresholdOrder,
  workLevelForType,
  workLevelRequired,
} from '../../src/domain/cross-field-rules.ts'
import { checkRecord, checkUpdate, needsMergedCheck, rulesOf } from '../../src/domain/resource-rules.ts'
import { checkTransition } from '../../src/domain/state-machine.ts'
import { BusinessError, Code } from '../../src/errors.ts'
import { english, message } from '../../src/messages/message.ts'
import { ResourceRegistry } from '../../src/resources/resource-registry.ts'

/** A rule's verdict as its English text. */
const textOf = (rule: CrossFieldRule) => (record: RecordValues) => {
  const broken = rule.check(record)
  return broken && english(broken)
}
const kindIsX = message('whenIs', { field: 'kind', value: 'x' })

const registry = new ResourceRegistry(loadOpenApi().document)

function refusal(fn: () => void): BusinessError | undefined {
  try {
    fn()
  } catch (error) {
    if (error instanceof BusinessError) return error
    throw error
  }
  return undefined
}

t.test('endAfterStart: end strictly after start, when both are set', async (t) => {
  const rule = endAfterStart('from', 'to')
  t.same(rule.fields, ['from', 'to'])
  t.equal(textOf(rule)({ from: '2026-11-21T10:00:00+08:00', to: '2026-11-21T10:00:01+08:00' }), undefined)
  t.equal(textOf(rule)({ from: '2026-11-21T10:00:00+08:00', to: '2026-11-21T10:00:00+08:00' }), 'to: must be after from')
  t.equal(
    textOf(rule)({ from: '2026-11-21T10:00:00+08:00', to: '2026-11-21T02:00:00Z' }),
    'to: must be after from',
    'instants compare across offsets',
  )
  t.equal(textOf(rule)({ from: '2026-11-21T10:00:00+08:00', to: null }), undefined)
  t.equal(textOf(rule)({ to: '2026-11-21T10:00:00+08:00' }), undefined)
  t.equal(
    textOf(rule)({ from: '2026-11-21T10:00:00.100+08:00', to: '2026-11-21T10:00:00.900+08:00' }),
    'to: must be after from',
    'as kept, to the second: both are 10:00:00',
  )
  t.equal(textOf(rule)({ from: '2026-11-21T10:00:00.900+08:00', to: '2026-11-21T10:00:01.100+08:00' }), undefined)
  t.equal(
    textOf(rule)({ from: '2026-12-31T23:59:60Z', to: '2027-01-01T08:00:01+08:00' }),
    undefined,
    'a leap second is kept as the next second, 00:00:00 UTC',
  )
  t.equal(textOf(rule)({ from: '2026-12-31T23:59:60Z', to: '2027-01-01T08:00:00+08:00' }), 'to: must be after from')
})

t.test('compareDecimals: exactly, digit by digit, whatever their length', async (t) => {
  const cases: [string, string, number][] = [
    ['9.00000000000000000001', '9', 1],
    ['9', '9.00000000000000000001', -1],
    ['99999999999999999', '99999999999999998', 1],
    ['1.50', '1.5', 0],
    ['10', '9.99', 1],
    ['0.1', '0.09', 1],
    ['-0.1', '-0.09', -1],
    ['-10', '-9', -1],
    ['-1', '0', -1],
    ['-0', '0', 0],
    ['-0.000', '0.0', 0],
    ['-0.5', '0', -1],
    ['123456789012345678901234567890.5', '123456789012345678901234567890.4', 1],
  ]
  for (const [a, b, expected] of cases) t.equal(compareDecimals(a, b), expected, `${a} vs ${b}`)
})

t.test('thresholdOrder: the set thresholds in order, unset ones skipped', async (t) => {
  const rule = thresholdOrder(['min', 'low', 'high', 'max'])
  t.equal(textOf(rule)({ min: 0, low: 1, high: 2, max: 3 }), undefined)
  t.equal(textOf(rule)({ min: 0, high: 2, max: 3 }), undefined)
  t.equal(textOf(rule)({ min: 0, low: 1, high: 1, max: 3 }), undefined, 'equal neighbours are in order')
  t.equal(textOf(rule)({ min: 0, low: 5, max: 3 }), 'low, max: low (5) must not be greater than max (3)')
  t.equal(textOf(rule)({ min: 4, high: 2 }), 'min, high: min (4) must not be greater than high (2)')
  t.equal(
    textOf(rule)({ high: '9.00000000000000000001', max: '9' }),
    'high, max: high (9.00000000000000000001) must not be greater than max (9)',
    'as decimals, beyond what a double holds',
  )
})

t.test('requiredWhen: the fields that are missing, named, only when the condition holds', async (t) => {
  const rule = requiredWhen(['a', 'b'], kindIsX, ['kind'], (record) => record.kind === 'x')
  t.same(rule.fields, ['kind', 'a', 'b'])
  t.equal(textOf(rule)({ kind: 'y' }), undefined)
  t.equal(textOf(rule)({ kind: 'x', a: 1, b: 2 }), undefined)
  t.equal(textOf(rule)({ kind: 'x', a: 1, b: '' }), 'b: required when kind is x', 'an empty string is not set')
  t.equal(textOf(rule)({ kind: 'x' }), 'a, b: required when kind is x')
})

/** `U+3000 U+00A0`: white space named, as a test name of raw white space (U+2028 ends a line) would not be. */
const codePoints = (text: string) => [...text].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ')

t.test('requiredWhen: blank text, Unicode white space included, is no value', async (t) => {
  const rule = requiredWhen(['name'], kindIsX, ['kind'], (record) => record.kind === 'x')
  for (const blank of [' ', '\t\n', '\u3000', '\u00a0', '\u3000 \u00a0\u2003', '\u0085', '\u2028', '\ufeff'])
    t.equal(textOf(rule)({ kind: 'x', name: blank }), 'name: required when kind is x', codePoints(blank))
  t.equal(textOf(rule)({ kind: 'x', name: '\u3000Li Wei\u3000' }), undefined, 'text around white space is a value')
  t.equal(textOf(rule)({ kind: 'x', name: 0 }), undefined, 'a number is a value, zero too')
  t.equal(textOf(rule)({ kind: 'y', name: '\u3000' }), undefined, 'blank is allowed where nothing is required')
})

t.test('workLevelRequired: hot work, work at height and lifting say their level', async (t) => {
  for (const workType of ['1', '4', '5']) {
    const message = 'workLevel: required when workType is 1 (hot work), 4 (work at height) or 5 (lifting)'
    t.equal(textOf(workLevelRequired)({ workType }), message, `workType ${workType}, absent`)
    t.equal(textOf(workLevelRequired)({ workType, workLevel: null }), message, `workType ${workType}, null`)
    t.equal(textOf(workLevelRequired)({ workType, workLevel: '1' }), undefined)
  }
  for (const workType of ['2', '3', '6', '7', '8', 'constructor', undefined])
    t.equal(textOf(workLevelRequired)({ workType, workLevel: null }), undefined, `workType ${workType}`)
  t.same(workLevelRequired.fields, ['workType', 'workLevel'], 'an update changing workType is checked merged')
})

t.test('classifyPrefix, workLevelForType, passNotAboveParticipants', async (t) => {
  t.equal(textOf(classifyPrefix)({ classify1: '2', classify2: '2-3' }), undefined)
  t.equal(textOf(classifyPrefix)({ classify1: '2' }), undefined)
  t.match(textOf(classifyPrefix)({ classify1: '1', classify2: '2-1' }), /^classify1, classify2: the prefix of classify2 \(2-1\)/)
  t.match(textOf(classifyPrefix)({ classify2: '2-1' }), /\(not set\)$/)
  t.equal(textOf(workLevelForType)({ workType: '1', workLevel: '3' }), undefined)
  t.equal(textOf(workLevelForType)({ workType: '4', workLevel: '4' }), undefined)
  t.equal(textOf(workLevelForType)({ workType: '2' }), undefined)
  t.match(textOf(workLevelForType)({ workType: '1', workLevel: '4' }), /must be one of 1, 2, 3$/)
  t.match(textOf(workLevelForType)({ workType: '2', workLevel: '1' }), /only for hot work/)
  t.equal(textOf(passNotAboveParticipants)({ passCount: 3, participantCount: 3 }), undefined)
  t.match(textOf(passNotAboveParticipants)({ passCount: 4, participantCount: 3 }), /passCount must not exceed participantCount/)
})

t.test('the rules of each resource: 1002 with the message of the first broken rule', async (t) => {
  const ticket = registry.get('ticketBaseInfo')
  t.equal(rulesOf(ticket).length, 4)
  t.equal(rulesOf(registry.get('riskUnit')).length, 0)
  const error = refusal(() => checkRecord(ticket, { planStartTime: '2026-11-21T10:00:00+08:00', planEndTime: '2026-11-20T10:00:00+08:00' }))
  t.equal(error?.code, Code.badParameter)
  t.equal(error?.message, 'planEndTime: must be after planStartTime')
  t.equal(
    refusal(() => checkRecord(ticket, { isContractorWork: '0' })),
    undefined,
  )
  t.equal(
    refusal(() => checkRecord(ticket, { workType: '4', isContractorWork: '1', contractorOrg: '\u3000' }))?.message,
    'workLevel: required when workType is 1 (hot work), 4 (work at height) or 5 (lifting)',
  )
  t.equal(
    refusal(() => checkRecord(ticket, { workType: '4', workLevel: '2', isContractorWork: '1', contractorOrg: '\u00a0 ' }))?.message,
    'contractorOrg: required when isContractorWork is 1',
  )
})

t.test('state machines: listed moves pass, the same state is no move, others are 1011', async (t) => {
  const machine = { field: 'status', transitions: { a: ['b'], b: ['c', 'a'], c: [] } }
  t.equal(
    refusal(() => checkTransition(machine, { status: 'a' }, { status: 'b' })),
    undefined,
  )
  t.equal(
    refusal(() => checkTransition(machine, { status: 'c' }, { status: 'c' })),
    undefined,
  )
  t.equal(
    refusal(() => checkTransition(machine, { status: 'c' }, { other: 1 })),
    undefined,
    'a change without the field is no move',
  )
  const error = refusal(() => checkTransition(machine, { status: 'c' }, { status: 'a' }))
  t.equal(error?.code, Code.illegalTransition)
  t.equal(error?.message, 'status: illegal transition c -> a')
  t.equal(refusal(() => checkTransition(machine, { status: 'z' }, { status: 'a' }))?.code, Code.illegalTransition, 'from an unknown state')
})

t.test('an update is checked merged when it touches a rule or the state machine', async (t) => {
  const info = registry.get('troubleshootInfo')
  t.ok(needsMergedCheck(info, { dangerState: '1' }), 'the state machine field')
  t.ok(needsMergedCheck(info, { checkAcceptPerson: 'x' }), 'a field a rule reads')
  t.notOk(needsMergedCheck(info, { id: 'x' }))
  const stored = { dangerState: '1', checkAcceptPerson: null, checkAcceptTime: null }
  t.equal(refusal(() => checkUpdate(info, stored, { dangerState: '9' }))?.code, Code.badParameter, 'the merged record breaks a rule')
  t.equal(refusal(() => checkUpdate(info, { ...stored, dangerState: '9' }, { dangerState: '0' }))?.code, Code.illegalTransition)
  t.equal(
    refusal(() => checkUpdate(info, stored, { dangerState: '0' })),
    undefined,
  )
  const ticket = registry.get('ticketBaseInfo')
  t.ok(needsMergedCheck(ticket, { workType: '1' }), 'a change of workType')
  t.equal(
    refusal(() => checkUpdate(ticket, { workType: '2', workLevel: null }, { workType: '5' }))?.message,
    'workLevel: required when workType is 1 (hot work), 4 (work at height) or 5 (lifting)',
  )
  t.equal(
    refusal(() => checkUpdate(info, { ...stored, checkAcceptTime: '2026-11-21' }, { dangerState: '9', checkAcceptPerson: '\u3000\u3000' }))
      ?.message,
    'checkAcceptPerson: required when dangerState is 9',
  )
})
