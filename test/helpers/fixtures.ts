// Valid records of every resource, built from the document and the registry alone: nothing here
// names a resource. A record is its add shape's first example with a fresh id; its unique fields
// (x-unique) get a value derived from the id, and its optional references (x-references) are left
// out (the example's parents do not exist). The chain parent of a resource is its reference to the
// nearest resource before it in the registry: riskUnit ← riskEvents ← riskMeasures ←
// troubleshootTask ← troubleshootRecord ← troubleshootInfo. A tenth resource gets its fixtures by
// having its schema and registry entry (test/operations/tenth-resource.test.ts).
import { loadOpenApi, type OpenApiDocument } from '../../src/contract/openapi-document.ts'
import { type ResourceDef, ResourceRegistry } from '../../src/resources/resource-registry.ts'

export interface Fixtures {
  registry: ResourceRegistry
  /** `{monitorEquip: '/hazard/monitorEquip', ...}`, in the registry's parent-before-child order. */
  paths: Record<string, string>
  /** The reference a resource hangs from in the chain: [its field, the parent's key]. */
  parents: Record<string, [field: string, parent: string] | undefined>
  example(resource: string): Record<string, any>
  record(resource: string, id: string, overrides?: Record<string, unknown>): Record<string, any>
}

/** `monitorCode` → `MC`: the prefix of a unique field's value (`MC-<id>`). */
function initials(field: string): string {
  return (field[0] + field.slice(1).replace(/[^A-Z]/g, '')).toUpperCase()
}

function chainParent(registry: ResourceRegistry, resource: ResourceDef): [string, string] | undefined {
  const order = registry.all.map((each) => each.key)
  const nearest = [...resource.references].sort((a, b) => order.indexOf(b.parent) - order.indexOf(a.parent))[0]
  return nearest ? [nearest.field, nearest.parent] : undefined
}

/** The fixtures of a document and its registry (the service's own, or those of a copy with more resources). */
export function fixturesOf(document: OpenApiDocument, registry = new ResourceRegistry(document)): Fixtures {
  const example = (resource: string): Record<string, any> => {
    const schemaName = registry.get(resource).schemaName
    const examples = document.components.schemas[schemaName].examples
    if (!examples?.length) throw new Error(`no example for ${schemaName}`)
    return structuredClone(examples[0] as Record<string, any>)
  }
  const record = (resource: string, id: string, overrides: Record<string, unknown> = {}): Record<string, any> => {
    const definition = registry.get(resource)
    const required = new Set(document.components.schemas[definition.schemaName].required ?? [])
    const value: Record<string, any> = { ...example(resource), id }
    for (const field of definition.uniqueFields) value[field] = `${initials(field)}-${id}`
    for (const { field } of definition.references) if (!required.has(field)) delete value[field]
    return { ...value, ...overrides }
  }
  return {
    registry,
    paths: Object.fromEntries(registry.all.map((resource) => [resource.key, `/${resource.path}`])),
    parents: Object.fromEntries(registry.all.map((resource) => [resource.key, chainParent(registry, resource)])),
    example,
    record,
  }
}

const fixtures = fixturesOf(loadOpenApi().document)

export const RESOURCES = fixtures.registry.all
export const RESOURCE_PATHS = fixtures.paths
export const PARENT_FIELD = fixtures.parents
export const example = fixtures.example
export const record = fixtures.record

/** What a push says of a record or an attachment (by default: version 1, live, of 000000000, by admin). */
interface PushOptions {
  companyCode?: string
  version?: number
  deleted?: boolean
  /** The record's fields, or the attachment's, over the defaults. */
  fields?: Record<string, unknown>
}

/** The server-kept fields a push carries, its version and whether it is deleted; written at one fixed instant. */
function pushed(options: PushOptions): Record<string, unknown> {
  return {
    companyCode: options.companyCode ?? '000000000',
    createTime: '2026-11-21T10:00:00+08:00',
    updateTime: '2026-11-21T10:00:00+08:00',
    createBy: 'admin',
    updateBy: 'admin',
    version: options.version ?? 1,
    deleted: options.deleted ?? false,
  }
}

/** A record as an enterprise pushes it to the park (an item of /system/push/records). */
export function pushedRecord(resource: string, id: string, options: PushOptions = {}): Record<string, any> {
  return { ...record(resource, id, options.fields), ...pushed(options) }
}

/** An attachment as an enterprise pushes it to the park (/system/push/attachment, with its `resource`): a PNG of `content` unless `fields` say otherwise. */
export function pushedAttachment(id: string, recordId: string, content: Buffer, options: PushOptions = {}): Record<string, any> {
  return {
    id,
    recordId,
    fileName: `${id}.png`,
    contentType: 'image/png',
    content: content.toString('base64'),
    ...pushed(options),
    ...options.fields,
  }
}
