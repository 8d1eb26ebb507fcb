// Breaking changes between two versions of the contract, as a client of the older one sees them.
//
//   node scripts/contract-diff.ts [old] [new]
//
// `old` defaults to the latest released document (openapi/released/openapi-<version>.yaml, highest
// version), `new` to openapi/openapi.yaml. Prints every breaking change, one per line, and exits 1
// when there is any; additions (operations, optional fields, enum values, wider types) are fine.
//
// What breaks a client of the old document:
// - an operation (path and method) removed, or a 2xx answer or the JSON body of one removed;
// - requests: a field removed (bodies are `additionalProperties: false`: sending it becomes 1002), a
//   field newly required, a body newly required or no longer accepted, a parameter removed or newly
//   required, an enum value removed, a type narrowed (a type no longer accepted, null included), a
//   constraint tightened (maxLength, minimum, pattern...);
// - responses: a field removed or no longer always present, an enum value removed, a type widened
//   (a value of a type the client never got before, null included).
// Schemas are compared through their `$ref`s (oneOf / anyOf branches, array items, properties), and
// each change is named once, at the component schema that holds it (`RiskUnit.riskLevel`), with the
// operations through which it was reached.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

type Node = Record<string, any>
type Direction = 'request' | 'response'

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
const SHOWN_OPERATIONS = 3

export const CURRENT_DOCUMENT = fileURLToPath(new URL('../openapi/openapi.yaml', import.meta.url))
export const RELEASED_DIRECTORY = fileURLToPath(new URL('../openapi/released/', import.meta.url))

/** The released document of the highest version (`openapi-<major>.<minor>.<patch>.yaml`). */
export function latestReleased(directory = RELEASED_DIRECTORY): string {
  const versions = readdirSync(directory)
    .map((name) => /^openapi-(\d+)\.(\d+)\.(\d+)\.yaml$/.exec(name))
    .filter((match) => match !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]) || Number(a[2]) - Number(b[2]) || Number(a[3]) - Number(b[3]))
  const latest = versions.at(-1)
  if (!latest) throw new Error(`no openapi-<version>.yaml in ${directory}`)
  return directory + latest[0]
}

export function loadDocument(file: string): Node {
  return parse(readFileSync(file, 'utf8')) as Node
}

/** Every breaking change from `before` to `after`, human-readable, in the order of the old document. */
export function breakingChanges(before: Node, after: Node): string[] {
  const found = new Map<string, string[]>()
  const report = (message: string, operation?: string) => {
    const operations = found.get(message) ?? []
    if (operation && !operations.includes(operation)) operations.push(operation)
    found.set(message, operations)
  }

  for (const [path, oldItem] of Object.entries<Node>(before.paths ?? {})) {
    for (const method of METHODS) {
      const oldOperation = oldItem[method] as Node | undefined
      if (!oldOperation) continue
      const name = `${method.toUpperCase()} ${path}`
      const newItem = after.paths?.[path] as Node | undefined
      const newOperation = newItem?.[method] as Node | undefined
      if (!newOperation) {
        report(`operation removed: ${name}${oldOperation.operationId ? ` (${oldOperation.operationId})` : ''}`)
        continue
      }
      const walker = new SchemaWalker(before, after, (message) => report(message, name))
      walker.parameters(parametersOf(before, oldItem, oldOperation), parametersOf(after, newItem!, newOperation))
      walker.requestBody(oldOperation.requestBody, newOperation.requestBody)
      walker.responses(oldOperation.responses ?? {}, newOperation.responses ?? {})
    }
  }

  return [...found].map(([message, operations]) => {
    if (operations.length === 0) return message
    const shown = operations.slice(0, SHOWN_OPERATIONS).join(', ')
    const more = operations.length > SHOWN_OPERATIONS ? ` and ${operations.length - SHOWN_OPERATIONS} more` : ''
    return `${message} [${shown}${more}]`
  })
}

function parametersOf(document: Node, item: Node, operation: Node): Map<string, Node> {
  const parameters = new Map<string, Node>()
  for (const parameter of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
    const resolved = deref(document, parameter).node
    const name = resolved.in === 'header' ? String(resolved.name).toLowerCase() : resolved.name
    parameters.set(`${resolved.in} ${name}`, resolved)
  }
  return parameters
}

/** Follows local `$ref`s; the target's name (`RiskUnit`) when the last one was a component schema. */
function deref(document: Node, node: Node | undefined): { node: Node; ref?: string } {
  // A boolean schema (`true` anything, `false` nothing) has no keywords to compare.
  let current: Node = node !== null && typeof node === 'object' ? node : {}
  let ref: string | undefined
  const seen = new Set<string>()
  while (typeof current.$ref === 'string') {
    const pointer: string = current.$ref
    if (!pointer.startsWith('#/') || seen.has(pointer)) throw new Error(`unsupported $ref ${pointer}`)
    seen.add(pointer)
    const { $ref: _ref, description: _description, ...siblings } = current
    const target = pointer
      .slice(2)
      .split('/')
      .map((part) => decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<any>((at, key) => at?.[key], document)
    if (target === undefined) throw new Error(`dangling $ref ${pointer}`)
    ref = pointer.startsWith('#/components/schemas/') ? pointer.slice('#/components/schemas/'.length) : ref
    current = { ...target, ...siblings }
  }
  return { node: current, ref }
}

interface Variant {
  node: Node
  location: string
}

class SchemaWalker {
  private readonly before: Node
  private readonly after: Node
  private readonly report: (message: string) => void
  private readonly visited = new Set<string>()

  constructor(before: Node, after: Node, report: (message: string) => void) {
    this.before = before
    this.after = after
    this.report = report
  }

  parameters(before: Map<string, Node>, after: Map<string, Node>): void {
    for (const [key, oldParameter] of before) {
      const newParameter = after.get(key)
      const label = `${oldParameter.in} parameter ${oldParameter.name}`
      if (!newParameter) {
        this.report(`request ${label} removed`)
        continue
      }
      if (newParameter.required && !oldParameter.required) this.report(`request ${label} newly required`)
      this.schema(oldParameter.schema, newParameter.schema, label, 'request')
    }
    for (const [key, newParameter] of after) {
      if (!before.has(key) && newParameter.required)
        this.report(`request ${newParameter.in} parameter ${newParameter.name} added as required`)
    }
  }

  requestBody(oldBody: Node | undefined, newBody: Node | undefined): void {
    const before = oldBody ? deref(this.before, oldBody).node : undefined
    const after = newBody ? deref(this.after, newBody).node : undefined
    if (after?.required && !before?.required) this.report('request body newly required')
    for (const [mediaType, oldContent] of Object.entries<Node>(before?.content ?? {})) {
      const newContent = after?.content?.[mediaType] as Node | undefined
      if (!newContent) this.report(`request body ${mediaType} no longer accepted`)
      else this.schema(oldContent.schema, newContent.schema, 'request body', 'request')
    }
  }

  responses(before: Node, after: Node): void {
    for (const [status, oldReference] of Object.entries<Node>(before)) {
      const oldResponse = deref(this.before, oldReference).node
      if (!(status in after)) {
        if (status.startsWith('2')) this.report(`response ${status} removed`)
        continue
      }
      const newResponse = deref(this.after, after[status]).node
      for (const [mediaType, oldContent] of Object.entries<Node>(oldResponse.content ?? {})) {
        const newContent = newResponse.content?.[mediaType] as Node | undefined
        if (!newContent) {
          if (status.startsWith('2')) this.report(`response ${status} ${mediaType} body removed`)
          continue
        }
        this.schema(oldContent.schema, newContent.schema, `response ${status} body`, 'response')
      }
    }
  }

  /** Compares one schema of the old document with its counterpart in the new one. */
  schema(oldSchema: Node | undefined, newSchema: Node | undefined, location: string, direction: Direction): void {
    const oldResolved = deref(this.before, oldSchema)
    const newResolved = deref(this.after, newSchema)
    // Named by the component schema when both sides are one; by where it is used otherwise.
    const here = oldResolved.ref && newResolved.ref ? refLocation(oldResolved.ref, newResolved.ref)! : location
    if (oldResolved.ref || newResolved.ref) {
      const key = `${direction} ${oldResolved.ref ?? location} ${newResolved.ref ?? location}`
      if (this.visited.has(key)) return
      this.visited.add(key)
    }
    const before = this.variants(this.before, oldResolved.node, here)
    const after = this.variants(this.after, newResolved.node, here)

    this.types(before, after, here, direction)
    this.enums(before, after, here, direction)
    if (direction === 'request') this.constraints(before, after, here)

    const oldObjects = before.filter((variant) => isObject(variant.node))
    const newObjects = after.filter((variant) => isObject(variant.node))
    for (const [oldObject, newObject] of pair(oldObjects, newObjects)) this.object(oldObject, newObject, direction)

    const oldArrays = before.filter((variant) => isArray(variant.node))
    const newArrays = after.filter((variant) => isArray(variant.node))
    for (const [oldArray, newArray] of pair(oldArrays, newArrays)) {
      this.schema(oldArray.node.items, newArray.node.items, `${newArray.location}[]`, direction)
    }
  }

  private object(before: Variant, after: Variant, direction: Direction): void {
    const location = refLocation(before.location, after.location) ?? after.location
    const oldProperties: Node = before.node.properties ?? {}
    const newProperties: Node = after.node.properties ?? {}
    const oldRequired = new Set<string>(before.node.required ?? [])
    const newRequired = new Set<string>(after.node.required ?? [])
    for (const [name, oldProperty] of Object.entries<Node>(oldProperties)) {
      const field = `${location}.${name}`
      if (!(name in newProperties)) {
        this.report(`${direction} field removed: ${field}`)
        continue
      }
      if (direction === 'response' && oldRequired.has(name) && !newRequired.has(name))
        this.report(`response field no longer always present: ${field}`)
      this.schema(oldProperty, newProperties[name], field, direction)
    }
    if (direction === 'request') {
      for (const name of newRequired) if (!oldRequired.has(name)) this.report(`request field newly required: ${location}.${name}`)
      if (after.node.additionalProperties === false && before.node.additionalProperties !== false) {
        this.report(`request object closed to extra fields: ${location}`)
      }
    }
  }

  /** Flattens oneOf / anyOf (and merges allOf) into the alternatives a value can take. */
  private variants(document: Node, node: Node, location: string): Variant[] {
    const { oneOf, anyOf, allOf, ...rest } = node
    let own: Node = rest
    if (Array.isArray(allOf)) {
      for (const part of allOf) {
        const resolved = deref(document, part).node
        // Both parts hold: a property (or the items) named by both is the allOf of the two.
        const properties: Node = { ...resolved.properties }
        for (const [name, schema] of Object.entries<Node>(own.properties ?? {}))
          properties[name] = name in properties ? { allOf: [properties[name], schema] } : schema
        own = {
          ...resolved,
          ...own,
          properties,
          required: [...new Set([...(resolved.required ?? []), ...(own.required ?? [])])],
        }
        if (resolved.items && own.items && resolved.items !== own.items) own.items = { allOf: [resolved.items, own.items] }
      }
      // The parts' own alternatives (and compositions) are flattened in turn, with this node's.
      return this.variants(document, { ...own, ...(oneOf ? { oneOf } : {}), ...(anyOf ? { anyOf } : {}) }, location)
    }
    const branches = [...(oneOf ?? []), ...(anyOf ?? [])] as Node[]
    if (branches.length === 0) return [{ node: own, location }]
    return branches.flatMap((branch) => {
      const resolved = deref(document, branch)
      return this.variants(document, { ...own, ...resolved.node }, resolved.ref ?? location)
    })
  }

  private types(before: Variant[], after: Variant[], location: string, direction: Direction): void {
    const oldTypes = typesOf(before)
    const newTypes = typesOf(after)
    const [wider, narrower] = direction === 'request' ? [oldTypes, newTypes] : [newTypes, oldTypes]
    const lost = [...wider].filter((type) => !covers(narrower, type))
    if (lost.length === 0) return
    const change = `${describeTypes(oldTypes)} → ${describeTypes(newTypes)}`
    this.report(
      direction === 'request' ? `request type narrowed: ${location} (${change})` : `response type widened: ${location} (${change})`,
    )
  }

  private enums(before: Variant[], after: Variant[], location: string, direction: Direction): void {
    const oldValues = enumOf(before)
    const newValues = enumOf(after)
    if (!oldValues) {
      if (newValues && direction === 'request')
        this.report(`request values restricted to an enum: ${location} (${[...newValues].join(', ')})`)
      return
    }
    if (!newValues) return
    for (const value of oldValues) if (!newValues.has(value)) this.report(`${direction} enum value removed: ${location} ${value}`)
  }

  /** Constraints a request value must meet, tightened: values valid before would be refused. */
  private constraints(before: Variant[], after: Variant[], location: string): void {
    const oldScalars = before.filter((variant) => !isObject(variant.node) && !isArray(variant.node) && !isNullOnly(variant.node))
    const newScalars = after.filter((variant) => !isObject(variant.node) && !isArray(variant.node) && !isNullOnly(variant.node))
    const checks: Array<[Variant, Variant]> = [
      ...pair(oldScalars, newScalars),
      ...pair(
        before.filter((variant) => isObject(variant.node)),
        after.filter((variant) => isObject(variant.node)),
      ),
      ...pair(
        before.filter((variant) => isArray(variant.node)),
        after.filter((variant) => isArray(variant.node)),
      ),
    ]
    for (const [oldVariant, newVariant] of checks) {
      const oldNode = oldVariant.node
      const newNode = newVariant.node
      // A variant reached through a $ref is named by its schema (`Longitude`), not by each use of it.
      const at = newVariant.location === location ? location : refLocation(oldVariant.location, newVariant.location)!
      for (const keyword of ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties']) {
        if (newNode[keyword] !== undefined && (oldNode[keyword] === undefined || newNode[keyword] < oldNode[keyword])) {
          this.report(`request constraint tightened: ${at} ${keyword} ${oldNode[keyword] ?? 'none'} → ${newNode[keyword]}`)
        }
      }
      for (const keyword of ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties']) {
        if (newNode[keyword] !== undefined && (oldNode[keyword] === undefined || newNode[keyword] > oldNode[keyword])) {
          this.report(`request constraint tightened: ${at} ${keyword} ${oldNode[keyword] ?? 'none'} → ${newNode[keyword]}`)
        }
      }
      for (const keyword of ['pattern', 'format', 'multipleOf']) {
        if (newNode[keyword] !== undefined && newNode[keyword] !== oldNode[keyword]) {
          this.report(`request constraint tightened: ${at} ${keyword} ${oldNode[keyword] ?? 'none'} → ${newNode[keyword]}`)
        }
      }
    }
  }
}

function refLocation(oldRef: string | undefined, newRef: string | undefined): string | undefined {
  if (oldRef && newRef && oldRef !== newRef) return `${oldRef} (now ${newRef})`
  return newRef ?? oldRef
}

/** Pairs alternatives: one with one, else by schema name, else in order. */
function pair(before: Variant[], after: Variant[]): Array<[Variant, Variant]> {
  if (before.length === 1 && after.length === 1) return [[before[0]!, after[0]!]]
  return before.flatMap((oldVariant, index): Array<[Variant, Variant]> => {
    const match = after.find((newVariant) => newVariant.location === oldVariant.location) ?? after[index]
    return match ? [[oldVariant, match]] : []
  })
}

function declaredTypes(node: Node): string[] | undefined {
  if (typeof node.type === 'string') return [node.type]
  if (Array.isArray(node.type)) return node.type
  if ('const' in node) return [jsonType(node.const)]
  if (Array.isArray(node.enum)) return [...new Set(node.enum.map(jsonType))]
  if (node.properties) return ['object']
  if (node.items) return ['array']
  return undefined
}

/** The JSON types a value can have; `any` when some alternative is unrestricted. */
function typesOf(variants: Variant[]): Set<string> {
  const types = new Set<string>()
  for (const variant of variants) {
    const declared = declaredTypes(variant.node)
    if (!declared) return new Set(['any'])
    for (const type of declared) types.add(type)
  }
  return types
}

function covers(types: Set<string>, type: string): boolean {
  return types.has('any') || types.has(type) || (type === 'integer' && types.has('number'))
}

function describeTypes(types: Set<string>): string {
  return [...types].join(' | ')
}

/** The values allowed when every alternative lists them (enum / const), JSON-encoded; else undefined. */
function enumOf(variants: Variant[]): Set<string> | undefined {
  const values = new Set<string>()
  for (const variant of variants) {
    const node = variant.node
    if (Array.isArray(node.enum)) for (const value of node.enum) values.add(JSON.stringify(value))
    else if ('const' in node) values.add(JSON.stringify(node.const))
    else if (isNullOnly(node)) values.add('null')
    else return undefined
  }
  return values
}

function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

function isObject(node: Node): boolean {
  return declaredTypes(node)?.includes('object') ?? false
}

function isArray(node: Node): boolean {
  return declaredTypes(node)?.includes('array') ?? false
}

function isNullOnly(node: Node): boolean {
  const types = declaredTypes(node)
  return types?.length === 1 && types[0] === 'null'
}

if (import.meta.main) {
  const [oldFile = latestReleased(), newFile = CURRENT_DOCUMENT] = process.argv.slice(2)
  const changes = breakingChanges(loadDocument(oldFile), loadDocument(newFile))
  if (changes.length === 0) {
    console.log(`no breaking change from ${oldFile} to ${newFile}`)
  } else {
    console.log(`${changes.length} breaking change${changes.length === 1 ? '' : 's'} from ${oldFile} to ${newFile}:`)
    for (const change of changes) console.log(`- ${change}`)
    process.exitCode = 1
  }
}
