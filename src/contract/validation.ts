// One Ajv for everything the document validates: request bodies (through Fastify) and batch items
// (one by one, so each failed item gets its own 1002). No coercion, no stripping: a wrong type or an
// unknown field is an error the caller hears about.
import Ajv2020Module, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module
// ajv-formats is CommonJS: Node presents its export as the default import, with the plugin also as its `default`.
const addFormats = 'default' in addFormatsModule ? addFormatsModule.default : addFormatsModule

export function createAjv() {
  const ajv = new Ajv2020({
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: false,
    allErrors: true,
    strict: false,
    // Schemas are compiled per route and per batch item type; identical $ids must not collide.
    addUsedSchema: false,
  })
  addFormats(ajv)
  return ajv
}

export type Validator = ValidateFunction

/** `/list/0/id` → `list[0].id` */
function fieldPath(instancePath: string, prefix: string): string {
  const parts = instancePath.split('/').slice(1)
  let path = prefix
  for (const part of parts) path += /^\d+$/.test(part) ? `[${part}]` : path ? `.${part}` : part
  return path
}

function describe(error: ErrorObject, prefix: string): string {
  const at = fieldPath(error.instancePath, prefix)
  const join = (name: string) => (at ? `${at}.${name}` : name)
  switch (error.keyword) {
    case 'required':
      return `${join(error.params.missingProperty)}: required`
    case 'additionalProperties':
      return `${join(error.params.additionalProperty)}: unknown field`
    // A schema composed with allOf closes itself with unevaluatedProperties (openapi/src/, "The contract").
    case 'unevaluatedProperties':
      return `${join(error.params.unevaluatedProperty)}: unknown field`
    case 'enum':
      return `${at}: must be one of ${(error.params.allowedValues as unknown[]).filter((value) => value !== null).join(', ')}`
    case 'const':
      return `${at}: must be ${JSON.stringify(error.params.allowedValue)}`
    case 'format':
      return `${at}: must be a valid ${error.params.format === 'date-time' ? 'ISO 8601 instant with offset (2026-11-21T13:02:35+08:00)' : error.params.format === 'date' ? 'date (YYYY-MM-DD)' : error.params.format}`
    case 'pattern':
      return `${at}: must match the pattern ${error.params.pattern}`
    default:
      return `${at || 'body'}: ${error.message}`
  }
}

/** The `msg` of a 1002: the fields and the rules they broke, most specific first. */
export function describeErrors(errors: ErrorObject[] | null | undefined, prefix = ''): string {
  // Wrappers (oneOf/anyOf of a value or null) repeat what their branches said.
  const specific = (errors ?? []).filter((error) => !['oneOf', 'anyOf', 'if'].includes(error.keyword))
  const chosen = specific.length > 0 ? specific : (errors ?? [])
  // Within a `T | null` union, prefer the branch about T over "must be null".
  const messages = [
    ...new Set(
      chosen.filter((error) => !(error.keyword === 'type' && error.params.type === 'null')).map((error) => describe(error, prefix)),
    ),
  ]
  const list = messages.length > 0 ? messages : chosen.map((error) => describe(error, prefix))
  return list.slice(0, 5).join('; ') || 'invalid request'
}

/** True when the body itself is not a JSON object (array, string, number, missing): 400/1000. */
export function isNotAnObject(errors: ErrorObject[] | null | undefined): boolean {
  return (errors ?? []).some((error) => error.instancePath === '' && error.keyword === 'type')
}
