// Valid records of every resource, taken from the document's own examples, linked into one chain
// riskUnit ← riskEvents ← riskMeasures ← troubleshootTask ← troubleshootRecord ← troubleshootInfo.
import { loadOpenApi } from '../../src/contract/openapi-document.ts'

const { document } = loadOpenApi()

export const RESOURCE_PATHS: Record<string, string> = {
  monitorEquip: '/hazard/monitorEquip',
  riskUnit: '/prevent/riskUnit',
  riskEvents: '/prevent/riskEvents',
  riskMeasures: '/prevent/riskMeasures',
  troubleshootTask: '/prevent/troubleshootTask',
  troubleshootRecord: '/prevent/troubleshootRecord',
  troubleshootInfo: '/prevent/troubleshootInfo',
  ticketBaseInfo: '/prevent/ticketBaseInfo',
  trainBaseInfo: '/prevent/trainBaseInfo',
}

export function example(resource: string): Record<string, any> {
  const schemaName = resource[0].toUpperCase() + resource.slice(1)
  const examples = document.components.schemas[schemaName].examples
  if (!examples?.length) throw new Error(`no example for ${schemaName}`)
  return structuredClone(examples[0] as Record<string, any>)
}

/** A valid record with a unique id (and unique codes), pointing at the given parents. */
export function record(resource: string, id: string, overrides: Record<string, unknown> = {}): Record<string, any> {
  const value: Record<string, any> = { ...example(resource), id }
  if (resource === 'monitorEquip') value.monitorCode = `MC-${id}`
  if (resource === 'ticketBaseInfo') value.ticketNo = `TN-${id}`
  for (const field of ['riskMeasureId', 'checkRecordId']) if (resource === 'troubleshootInfo') delete value[field]
  return { ...value, ...overrides }
}

export const PARENT_FIELD: Record<string, [field: string, parent: string] | undefined> = {
  riskEvents: ['riskUnitId', 'riskUnit'],
  riskMeasures: ['riskEventId', 'riskEvents'],
  troubleshootTask: ['riskMeasureId', 'riskMeasures'],
  troubleshootRecord: ['checkTaskId', 'troubleshootTask'],
  troubleshootInfo: ['checkRecordId', 'troubleshootRecord'],
}
