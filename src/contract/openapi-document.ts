// Loads openapi/openapi.yaml, the single source of truth for every request and response shape.
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

export const OPENAPI_PATH = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url))
/**
 * The same document as JSON, written beside the generated types by `npm run generate` (and checked
 * against the YAML by test/contract/generated.test.ts): parsing the YAML at start cost a second and
 * some 60 MB of memory the process kept, JSON.parse a few milliseconds.
 */
export const OPENAPI_JSON_PATH = fileURLToPath(new URL('../../generated/openapi.json', import.meta.url))

/** A schema of the document, with the keywords and extensions this service reads. */
export interface JsonSchema {
  $ref?: string
  type?: string | string[]
  format?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  oneOf?: JsonSchema[]
  anyOf?: JsonSchema[]
  examples?: unknown[]
  'x-unique'?: boolean
  /** The resource key a reference field names. */
  'x-references'?: string
  /** An add-batch `list`: its items are validated one by one by the handler. */
  'x-batch-items'?: boolean
  'x-state-machine'?: { field: string; transitions: Record<string, string[]> }
  [keyword: string]: unknown
}

export interface ParameterSpec {
  $ref?: string
  name: string
  in: string
  [keyword: string]: unknown
}

export interface ResponseSpec {
  $ref?: string
  content?: Record<string, { schema?: JsonSchema }>
  [keyword: string]: unknown
}

export type SecurityRequirement = Record<string, string[]>

/** An operation of the document, with the extensions this service reads. */
export interface OperationSpec {
  operationId?: string
  security?: SecurityRequirement[]
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> }
  responses?: Record<string, ResponseSpec>
  parameters?: ParameterSpec[]
  /** The roles that may call it. */
  'x-roles'?: string[]
  /** The resource key of a generic resource operation, and which of the seven it is. */
  'x-resource'?: string
  'x-action'?: string
  /** The one edition that serves it, when only one does. */
  'x-edition'?: 'park' | 'enterprise'
  [keyword: string]: unknown
}

export interface OpenApiDocument {
  openapi: string
  info: Record<string, unknown>
  servers?: { url: string }[]
  security?: SecurityRequirement[]
  paths: Record<string, Record<string, OperationSpec>>
  components: {
    schemas: Record<string, JsonSchema>
    parameters?: Record<string, ParameterSpec>
    responses?: Record<string, ResponseSpec>
    securitySchemes?: Record<string, Record<string, unknown>>
    [section: string]: unknown
  }
  [field: string]: unknown
}

let cached: { document: OpenApiDocument } | undefined

/** The document as published (/openapi.json): read once, never mutated. */
export function loadOpenApi(): { document: OpenApiDocument } {
  if (!cached) {
    const document: unknown = JSON.parse(readFileSync(OPENAPI_JSON_PATH, 'utf8'))
    if (!isOpenApiDocument(document))
      throw new Error(`${OPENAPI_JSON_PATH} is not an OpenAPI document (openapi, info, paths, components.schemas)`)
    cached = { document: deepFreeze(document) }
  }
  return cached
}

let yamlText: Promise<string> | undefined

/**
 * The document's text as written (/openapi.yaml), read when first asked for: an edition that is
 * never asked for it does not read 700 kB at its start, nor keep it.
 */
export function openApiYaml(): Promise<string> {
  // A failed read is tried again by the next request.
  yamlText ??= readFile(OPENAPI_PATH, 'utf8').catch((error: unknown) => {
    yamlText = undefined
    throw error
  })
  return yamlText
}

/** Follows a local `$ref` (`#/components/schemas/X`) to its target; other nodes come back as they are. */
export function resolveRef<T extends { $ref?: string }>(document: OpenApiDocument, node: T): T {
  let current = node
  const seen = new Set<string>()
  while (current && typeof current.$ref === 'string') {
    const ref: string = current.$ref
    if (!ref.startsWith('#/') || seen.has(ref)) throw new Error(`unsupported $ref ${ref}`)
    seen.add(ref)
    const target = ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((parent, key) => (isObject(parent) ? parent[key] : undefined), document)
    if (!isObject(target)) throw new Error(`dangling $ref ${ref}`)
    // A local $ref names a node of the same kind as the one that holds it (schema, parameter, response).
    current = target as T
  }
  return current
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

export interface Operation {
  operationId: string
  path: string
  spec: OperationSpec
}

export function listOperations(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, spec] of Object.entries(item)) {
      if (method === 'post' && spec.operationId) operations.push({ operationId: spec.operationId, path, spec })
    }
  }
  return operations
}

function isOpenApiDocument(value: unknown): value is OpenApiDocument {
  return (
    isObject(value) &&
    typeof value.openapi === 'string' &&
    isObject(value.info) &&
    isObject(value.paths) &&
    isObject(value.components) &&
    isObject(value.components.schemas)
  )
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

/** Keys that only document: descriptions, summaries, examples. */
const DOCUMENTATION = new Set(['description', 'summary', 'example', 'examples'])
/** Maps whose keys are names, not keywords: a property or a parameter called `description` stays. */
const NAMED = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'paths',
  'schemas',
  'parameters',
  'responses',
  'requestBodies',
  'headers',
  'content',
  'securitySchemes',
  'encoding',
  'links',
  'callbacks',
  'mapping',
  'variables',
])
/** Values that are data, copied as they are: a default or an enum member may hold any key. */
const LITERAL = new Set(['default', 'enum', 'const'])

/**
 * A copy of the document without its documentation (descriptions, summaries, examples), for the
 * router: fastify-openapi-glue checks the whole document against the OpenAPI schema and walks it at
 * every start, and these are most of it. A response keeps its description, which OpenAPI requires. The published document keeps
 * everything.
 */
export function withoutDocumentation(document: OpenApiDocument): OpenApiDocument {
  return undocumented(document) as OpenApiDocument
}

function undocumented(value: unknown, named = false, response = false): unknown {
  if (Array.isArray(value)) return value.map((item) => undocumented(item))
  if (typeof value !== 'object' || value === null) return value
  const copy: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    if (named) copy[key] = undocumented(child, false, response)
    else if (DOCUMENTATION.has(key) && !(response && key === 'description')) continue
    else if (LITERAL.has(key) || key.startsWith('x-')) copy[key] = child
    else copy[key] = undocumented(child, NAMED.has(key), key === 'responses')
  }
  return copy
}
