// The rules of each resource that JSON Schema cannot say (domain/FIELDS.md): its cross-field rules,
// listed here by resource key, and its state machine (read from the document by the registry). A
// record is checked as a whole: on add the record sent, on update the stored record merged with
// the change.
import { BusinessError, Code } from '../errors.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
import {
  type CrossFieldRule,
  classifyPrefix,
  endAfterStart,
  passNotAboveParticipants,
  type RecordValues,
  requiredWhen,
  thresholdOrder,
  workLevelForType,
  workLevelRequired,
} from './cross-field-rules.ts'
import { checkTransition } from './state-machine.ts'
import { message } from '../messages/message.ts'

const whenIs = (field: string, value: string) => message('whenIs', { field, value })

const RULES: Record<string, readonly CrossFieldRule[]> = {
  monitorEquip: [thresholdOrder(['rangeMin', 'twoLevelLow', 'oneLevelLow', 'oneLevelHigh', 'twoLevelHigh', 'rangeMax'])],
  riskMeasures: [classifyPrefix],
  troubleshootTask: [
    requiredWhen(
      ['workStartTime', 'workEndTime'],
      whenIs('checkCycleUnit', '小时'),
      ['checkCycleUnit'],
      (r) => r.checkCycleUnit === '小时',
    ),
    requiredWhen(
      ['taskNum'],
      message('whenIsNot', { field: 'workType', value: '0' }),
      ['workType'],
      (r) => r.workType != null && r.workType !== '0',
    ),
  ],
  troubleshootInfo: [
    requiredWhen(['checkAcceptPerson', 'checkAcceptTime'], whenIs('dangerState', '9'), ['dangerState'], (r) => r.dangerState === '9'),
  ],
  ticketBaseInfo: [
    endAfterStart('planStartTime', 'planEndTime'),
    workLevelForType,
    workLevelRequired,
    requiredWhen(['contractorOrg'], whenIs('isContractorWork', '1'), ['isContractorWork'], (r) => r.isContractorWork === '1'),
  ],
  trainBaseInfo: [endAfterStart('trainStartTime', 'trainEndTime'), passNotAboveParticipants],
}

/** The cross-field rules of a resource (none for most). */
export function rulesOf(resource: Pick<ResourceDef, 'key'>): readonly CrossFieldRule[] {
  return RULES[resource.key] ?? []
}

/** A whole record against the resource's cross-field rules: 1002 naming the fields of the first it breaks. */
export function checkRecord(resource: Pick<ResourceDef, 'key'>, record: RecordValues): void {
  for (const rule of rulesOf(resource)) {
    const broken = rule.check(record)
    if (broken) throw new BusinessError(Code.badParameter, broken)
  }
}

/** Whether a change touches a rule or the state machine, so the stored record must be read and checked merged. */
export function needsMergedCheck(resource: Pick<ResourceDef, 'key' | 'stateMachine'>, patch: RecordValues): boolean {
  if (resource.stateMachine && resource.stateMachine.field in patch) return true
  return rulesOf(resource).some((rule) => rule.fields.some((field) => field in patch))
}

/** An update of a stored record: the merged record against the rules, and the move against the state machine. */
export function checkUpdate(resource: Pick<ResourceDef, 'key' | 'stateMachine'>, current: RecordValues, patch: RecordValues): void {
  checkRecord(resource, { ...current, ...patch })
  if (resource.stateMachine) checkTransition(resource.stateMachine, current, patch)
}
