// Loads openapi/openapi.yaml, the single source of truth for every request and response shape.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

export const OPENAPI_PATH = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url))

export type JsonSchema = Record<string, any>
export type OpenApiDocument = Record<string, any>

let cached: { yaml: string; document: OpenApiDocument } | undefined

/** The document as published (/openapi.yaml, /openapi.json): read once, never mutated. */
export function loadOpenApi(): { yaml: string; document: OpenApiDocument } {
  if (!cached) {
    const yaml = readFileSync(OPENAPI_PATH, 'utf8')
    cached = { yaml, document: deepFreeze(parse(yaml)) }
  }
  return cached
}

/** Follows a local `$ref` (`#/components/schemas/X`) to its target; other nodes come back as they are. */
export function resolveRef(document: OpenApiDocument, node: JsonSchema): JsonSchema {
  let current = node
  const seen = new Set<string>()
  while (current && typeof current.$ref === 'string') {
    const ref: string = current.$ref
    if (!ref.startsWith('#/') || seen.has(ref)) throw new Error(`unsupported $ref ${ref}`)
    seen.add(ref)
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce((target: any, key) => target?.[key], document)
    if (current === undefined) throw new Error(`dangling $ref ${ref}`)
  }
  return current
}

export interface Operation {
  operationId: string
  path: string
  spec: Record<string, any>
}

export function listOperations(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths ?? {})) {
    for (const [method, spec] of Object.entries<Record<string, any>>(item)) {
      if (method === 'post' && spec.operationId) operations.push({ operationId: spec.operationId, path, spec })
    }
  }
  return operations
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}
