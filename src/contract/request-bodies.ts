// What every operation's request body may be, the same for all: UTF-8 JSON text (RFC 8259), an
// object of the declared schema, and for an operation that declares no body, nothing or `{}`.
import { type JsonSchema, type OpenApiDocument, resolveRef } from './openapi-document.ts'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** A body that is not UTF-8 is not JSON text: 400/1000 like any other unparseable body. */
export class InvalidEncoding extends Error {
  readonly statusCode = 400
  readonly code = 'FST_ERR_CTP_INVALID_JSON_BODY'
  constructor() {
    super('request body is not valid UTF-8')
  }
}

/** The body's text; throws InvalidEncoding when a byte sequence is not UTF-8 (never replaced by U+FFFD). */
export function decodeUtf8(body: Buffer): string {
  try {
    return utf8.decode(body)
  } catch {
    throw new InvalidEncoding()
  }
}

const CLOSING_BRACE = '}'.charCodeAt(0)

/**
 * The bytes of a push's `list` as sent, when the body is `{"resource":"<resource>","list":…}` and
 * nothing else, written compactly (as JSON.stringify writes it, and as the push sends its pages);
 * undefined otherwise. For a body that parsed and passed its schema (an object of `resource` and
 * `list` alone, `resource` the one named), these are exactly the JSON text of the list it parsed
 * into: a body with another member, even a second `list`, leaves bytes that are not JSON, which
 * PostgreSQL refuses.
 */
export function pushedListBytes(body: Buffer, resource: string): Buffer | undefined {
  const opening = Buffer.from(`{"resource":${JSON.stringify(resource)},"list":`)
  const framed = body.length > opening.length && body.at(-1) === CLOSING_BRACE && body.subarray(0, opening.length).equals(opening)
  return framed ? body.subarray(opening.length, -1) : undefined
}

/**
 * The document as the router validates it, without changing what it publishes:
 * - an operation that declares no request body takes an optional empty object, like `logout`, so a
 *   JSON string or an unknown field is refused there as everywhere (1000, 1002);
 * - a component that only renames another (`SyncStatusRequest: {$ref: EmptyRequest, description}`)
 *   is replaced by its target, since the router's dereferencing drops a `$ref` that has siblings.
 */
export function withDeclaredBodies(specification: OpenApiDocument): OpenApiDocument {
  const schemas = specification.components.schemas
  for (const [name, schema] of Object.entries(schemas)) {
    if (typeof schema.$ref === 'string') {
      const { $ref, ...siblings } = schema
      schemas[name] = { ...resolveRef(specification, { $ref }), ...siblings }
    }
  }
  const empty: JsonSchema = { type: 'object', additionalProperties: false, maxProperties: 0 }
  for (const item of Object.values(specification.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method !== 'post' || operation.requestBody) continue
      operation.requestBody = { required: false, content: { 'application/json': { schema: empty } } }
    }
  }
  return specification
}
