// The nine resources, described once. Field shapes, unique fields, references and state machines
// are read from the OpenAPI document (x-unique, x-references, x-state-machine); this file adds what
// the document does not hold: the module and the table. Handlers, store and push are generic over
// these entries: a tenth resource is its schema, its migration and one entry below (and, if it has
// cross-field rules, its line in domain/resource-rules.ts). Read by every layer, it imports only
// the contract.
import { type JsonSchema, type OpenApiDocument, resolveRef } from '../contract/openapi-document.ts'

export type FieldKind = 'string' | 'number' | 'integer' | 'instant' | 'date' | 'boolean'

export interface FieldDef {
  name: string
  kind: FieldKind
  /** An object held as JSON (an alarm's `disposal`): pushed and applied as JSON, not text. */
  json?: true
}

/** Server-kept fields of every record (domain/FIELDS.md), in read order after the business fields. */
export const SERVER_FIELDS: readonly FieldDef[] = [
  { name: 'companyCode', kind: 'string' },
  { name: 'createTime', kind: 'instant' },
  { name: 'updateTime', kind: 'instant' },
  { name: 'createBy', kind: 'string' },
  { name: 'updateBy', kind: 'string' },
  { name: 'sync_status', kind: 'string' },
  { name: 'sync_time', kind: 'instant' },
  // Why the record's last push failed (enterprise edition; null once synced).
  { name: 'sync_error', kind: 'string' },
]

/** Every field a record is read with, by name: its own fields, then the server-kept ones, then the computed ones. */
export function readableFields(resource: Pick<ResourceDef, 'fields'> & { computed?: FieldDef[] }): Map<string, FieldDef> {
  return new Map([...resource.fields, ...SERVER_FIELDS, ...(resource.computed ?? [])].map((field) => [field.name, field]))
}

export interface Reference {
  field: string
  parent: string
}

export interface StateMachine {
  field: string
  transitions: Record<string, readonly string[]>
}

export interface ResourceDef {
  key: string
  module: string
  /** `hazard/monitorEquip` */
  path: string
  table: string
  /** Component schema names: `MonitorEquip` (add), `MonitorEquipPatch`, `MonitorEquipRecord`. */
  schemaName: string
  fields: FieldDef[]
  /** Read-only fields computed as of each read (`x-computed` on the read schema, e.g. `overdue`): searched with `eq` only. */
  computed?: FieldDef[]
  uniqueFields: string[]
  references: Reference[]
  stateMachine: StateMachine | undefined
}

interface Entry {
  key: string
  module: 'hazard' | 'prevent'
  table: string
}

/** A table served like a resource: its key (and schema name), module and table. */
export type ResourceEntry = Entry

/** In parent-before-child order: the park push applies them in this order. */
const ENTRIES: Entry[] = [
  { key: 'monitorEquip', module: 'hazard', table: 'monitor_equip' },
  { key: 'riskUnit', module: 'prevent', table: 'risk_unit' },
  { key: 'riskEvents', module: 'prevent', table: 'risk_events' },
  { key: 'riskMeasures', module: 'prevent', table: 'risk_measures' },
  { key: 'troubleshootTask', module: 'prevent', table: 'troubleshoot_task' },
  { key: 'troubleshootRecord', module: 'prevent', table: 'troubleshoot_record' },
  { key: 'troubleshootInfo', module: 'prevent', table: 'troubleshoot_info' },
  { key: 'ticketBaseInfo', module: 'prevent', table: 'ticket_base_info' },
  { key: 'trainBaseInfo', module: 'prevent', table: 'train_base_info' },
]

/**
 * Tables the service writes itself (no add, update or delete of their own) and pushes to the park
 * like records, after the resources: each is pushed, acknowledged, counted and applied as a record.
 */
const PUSHED_ENTRIES: Entry[] = [{ key: 'monitorAlarm', module: 'hazard', table: 'monitor_alarm' }]

export class ResourceRegistry {
  readonly all: ResourceDef[]
  /** What the push carries as records: the resources (in their order), then the tables of PUSHED_ENTRIES. */
  readonly pushed: ResourceDef[]
  private readonly byKey: Map<string, ResourceDef>
  private readonly pushedByKey: Map<string, ResourceDef>

  constructor(document: OpenApiDocument) {
    this.all = ENTRIES.map((entry) => describeResource(document, entry))
    this.pushed = [...this.all, ...PUSHED_ENTRIES.map((entry) => describeResource(document, entry))]
    this.byKey = new Map(this.all.map((resource) => [resource.key, resource]))
    this.pushedByKey = new Map(this.pushed.map((resource) => [resource.key, resource]))
  }

  /** A kind of pushed records (a resource, or a table pushed like one) by its key. */
  pushedKind(key: string): ResourceDef {
    const resource = this.pushedByKey.get(key)
    if (!resource) throw new Error(`unknown pushed kind ${key}`)
    return resource
  }

  get(key: string): ResourceDef {
    const resource = this.byKey.get(key)
    if (!resource) throw new Error(`unknown resource ${key}`)
    return resource
  }
}

/** A resource as the document's schema of it declares it (also for tables served like resources, not in the registry). */
export function describeResource(document: OpenApiDocument, entry: ResourceEntry): ResourceDef {
  const schemaName = entry.key[0].toUpperCase() + entry.key.slice(1)
  const schema = document.components?.schemas?.[schemaName]
  if (!schema) throw new Error(`openapi.yaml has no components.schemas.${schemaName}`)
  const fields: FieldDef[] = []
  const uniqueFields: string[] = []
  const references: Reference[] = []
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    fields.push(isObject(document, property) ? { name, kind: 'string', json: true } : { name, kind: kindOf(document, property) })
    if (property['x-unique']) uniqueFields.push(name)
    if (property['x-references']) references.push({ field: name, parent: property['x-references'] })
  }
  const machine = schema['x-state-machine']
  const computed = computedFields(document, document.components?.schemas?.[`${schemaName}Record`])
  return {
    key: entry.key,
    module: entry.module,
    path: `${entry.module}/${entry.key}`,
    table: entry.table,
    schemaName,
    fields,
    computed,
    uniqueFields,
    references,
    stateMachine: machine ? { field: machine.field, transitions: machine.transitions } : undefined,
  }
}

/** The `x-computed` properties of a read schema, its `allOf` parts included. */
function computedFields(document: OpenApiDocument, schema: JsonSchema | undefined): FieldDef[] {
  if (!schema) return []
  const resolved = resolveRef(document, schema)
  const own = Object.entries(resolved.properties ?? {})
    .filter(([, property]) => property['x-computed'] === true)
    .map(([name, property]) => ({ name, kind: property.type === 'boolean' ? ('boolean' as const) : kindOf(document, property) }))
  const parts = Array.isArray(resolved.allOf) ? (resolved.allOf as JsonSchema[]) : []
  return [...own, ...parts.flatMap((part) => computedFields(document, part))]
}

/** An object-valued property (nullable or not). */
function isObject(document: OpenApiDocument, property: JsonSchema): boolean {
  const schema = resolveRef(document, property)
  if ([schema.type].flat().includes('object')) return true
  return [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].some((variant) => resolveRef(document, variant).type === 'object')
}

function kindOf(document: OpenApiDocument, property: JsonSchema): FieldKind {
  const schema = resolveRef(document, property)
  const types = [schema.type].flat().filter((type) => type && type !== 'null')
  if (types.includes('integer')) return 'integer'
  if (types.includes('number')) return 'number'
  if (types.includes('boolean')) return 'boolean'
  if (schema.format === 'date-time') return 'instant'
  if (schema.format === 'date') return 'date'
  // `oneOf: [{$ref: Instant}, {type: null}]` and similar wrappers
  for (const variant of [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) {
    const resolved = resolveRef(document, variant)
    if (resolved.type !== 'null') return kindOf(document, resolved)
  }
  return 'string'
}
