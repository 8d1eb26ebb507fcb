// One Ajv for everything the document validates: request bodies (through Fastify) and batch items
// (one by one, so each failed item gets its own 1002). No coercion, no stripping: a wrong type or an
// unknown field is an error the caller hears about. One more rule applies to every schema it
// compiles: what PostgreSQL cannot hold (storable.ts) is a 1002 naming the field, whatever the field.
import Ajv2020Module, { type AnySchemaObject, type ErrorObject } from 'ajv/dist/2020.js'
import type { SchemaValidateFunction } from 'ajv/dist/types/index.js'
import addFormatsModule from 'ajv-formats'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import { english, isMessage, type Message, message } from '../messages/message.ts'
import { rememberingLast } from './remember-last.ts'
import { dateProblem, findUnstorable, instantProblem, instantSeconds, integerProblem, textProblem } from './storable.ts'

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
    // NaN and ±Infinity (a body's `1e309` parses as Infinity) are not numbers, nor integers.
    strictNumbers: true,
    // The schemas come from the document, checked against JSON Schema 2020-12 by the tests
    // (schemas-compile.test.ts), not at each start: the first compile would build the meta-schema's
    // validator (slowing the first request of each process) and every compile would check
    // its schema once more.
    validateSchema: false,
  })
  addFormats(ajv)
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime })
  ajv.addKeyword({ keyword: STORABLE, schemaType: 'boolean', errors: true, validate: storable })
  // Every schema compiled here, by Fastify's validator compiler or directly, carries the rule.
  const compile = ajv.compile.bind(ajv)
  ajv.compile = ((schema: AnySchemaObject, meta?: boolean) => compile(withStorableRule(schema), meta)) as typeof ajv.compile
  return ajv
}

/** Whether `value` has the document's `format` as request bodies are checked for it. */
export function isFormat(format: 'date' | 'date-time', value: string): boolean {
  return format === 'date-time' ? isDateTime(value) : ajvFormats.date(value)
}

/**
 * The document's `date-time`: ajv-formats' check (a date and a time that exist, a leap second only
 * at 23:59:60 UTC) narrowed to RFC 3339's grammar, which it widens (a space for `T`, offsets `±hh`
 * and `±hhmm`).
 */
const isDateTime = rememberingLast((value: string): boolean => instantSeconds(value) !== undefined && ajvFormats.dateTime(value))

const ajvFormats = { date: formatCheck('date'), dateTime: formatCheck('date-time') }

/** ajv-formats' own check of a string format. */
function formatCheck(format: 'date' | 'date-time'): (value: string) => boolean {
  const definition = fullFormats[format]
  const check = typeof definition === 'object' && !(definition instanceof RegExp) ? definition.validate : definition
  // date and date-time check strings (their definitions' type); the union types every format's.
  if (typeof check === 'function') return (value) => (check as (data: string) => boolean)(value) === true
  if (check instanceof RegExp) return (value) => check.test(value)
  throw new Error(`ajv-formats has no check of ${format}`)
}

/** The keyword that applies storable.ts to a value (added by withStorableRule, never written in the document). */
const STORABLE = 'x-storable'

/** The storable rule of one value, as an Ajv keyword (errors carry the path inside a value of any shape). */
const storable: SchemaValidateFunction = (_enabled, data, parentSchema, context) => {
  let problem: Message | undefined
  let at = ''
  if (typeof data === 'string') {
    problem =
      textProblem(data) ??
      (parentSchema?.format === 'date-time' ? instantProblem(data) : parentSchema?.format === 'date' ? dateProblem(data) : undefined)
  } else if (typeof data === 'number') {
    if (Number.isInteger(data) && typeList(parentSchema).includes('integer')) problem = integerProblem(data)
  } else if (typeList(parentSchema).length === 0) {
    // A value of any shape (no type declared): every string, key and number inside it.
    const found = findUnstorable(data)
    if (found) [at, problem] = [found.path, found.problem]
  }
  if (!problem) return true
  // The problem is a message, for the caller's language; Ajv's own `message` is its English.
  storable.errors = [
    { keyword: STORABLE, instancePath: `${context?.instancePath ?? ''}${at}`, params: { problem }, message: english(problem) },
  ]
  return false
}

function typeList(schema: AnySchemaObject | Record<string, unknown> | undefined): string[] {
  const type = schema?.type
  return Array.isArray(type) ? type.filter((name): name is string => typeof name === 'string') : typeof type === 'string' ? [type] : []
}

/** Keywords whose value is one subschema, a list of subschemas, or a map of name to subschema. */
const ONE_SUBSCHEMA = [
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]
const LIST_OF_SUBSCHEMAS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']
const MAP_OF_SUBSCHEMAS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']
const COMPOSED = ['$ref', '$dynamicRef', 'enum', 'const', 'allOf', 'anyOf', 'oneOf', 'not']

/**
 * A copy of `schema` in which every schema of a string or an integer, and every schema that does
 * not constrain its value's shape, carries the storable keyword; the document's own components (the
 * targets of `$ref`s) included. Batch items (`x-batch-items`) are left alone: each item is validated
 * on its own by its resource's validator, so that a bad item fails alone.
 */
export function withStorableRule<T>(schema: T): T {
  const copies = new Map<object, unknown>()
  const mark = (node: unknown): unknown => {
    if (!isSchemaObject(node)) return node
    if (copies.has(node)) return copies.get(node)
    const copy: Record<string, unknown> = { ...node }
    copies.set(node, copy)
    for (const keyword of ONE_SUBSCHEMA) if (keyword in copy) copy[keyword] = mark(copy[keyword])
    for (const keyword of LIST_OF_SUBSCHEMAS) {
      const list = copy[keyword]
      if (Array.isArray(list)) copy[keyword] = list.map(mark)
    }
    for (const keyword of MAP_OF_SUBSCHEMAS) {
      const map = copy[keyword]
      if (isSchemaObject(map)) copy[keyword] = markEach(map)
    }
    const items = copy.items
    if (items !== undefined && !copy['x-batch-items']) copy.items = Array.isArray(items) ? items.map(mark) : mark(items)
    const components = copy.components
    if (isSchemaObject(components) && isSchemaObject(components.schemas)) {
      copy.components = { ...components, schemas: markEach(components.schemas) }
    }
    const types = typeList(copy)
    const unconstrained = types.length === 0 && !COMPOSED.some((keyword) => keyword in copy)
    if (types.includes('string') || types.includes('integer') || unconstrained) copy[STORABLE] = true
    return copy
  }
  const markEach = (map: Record<string, unknown>) => Object.fromEntries(Object.entries(map).map(([name, node]) => [name, mark(node)]))
  // A copy of the same shape: only keywords were added.
  return mark(schema) as T
}

function isSchemaObject(node: unknown): node is Record<string, unknown> {
  return node !== null && typeof node === 'object' && !Array.isArray(node)
}

/** What the callers of a validator use: the call, and the errors of its last call (an Ajv validator, or one compiled on first use). */
export interface Validator {
  (data: unknown): boolean
  errors?: ErrorObject[] | null
}

/** `/list/0/id` → `list[0].id` */
function fieldPath(instancePath: string, prefix: string): string {
  const parts = instancePath.split('/').slice(1)
  let path = prefix
  for (const part of parts) path += /^\d+$/.test(part) ? `[${part}]` : path ? `.${part}` : part
  return path
}

function describe(error: ErrorObject, prefix: string, root: string): Message {
  const at = fieldPath(error.instancePath, prefix)
  const join = (name: string) => (at ? `${at}.${name}` : name)
  switch (error.keyword) {
    case 'required':
      return message('required', { field: join(error.params.missingProperty) })
    case 'additionalProperties':
      return message('unknownField', { field: join(error.params.additionalProperty) })
    // A schema composed with allOf closes itself with unevaluatedProperties (openapi/src/, "The contract").
    case 'unevaluatedProperties':
      return message('unknownField', { field: join(error.params.unevaluatedProperty) })
    case 'enum':
      return message('enumOneOf', { at, values: (error.params.allowedValues as unknown[]).filter((value) => value !== null).join(', ') })
    case 'const':
      return message('constMustBe', { at, value: JSON.stringify(error.params.allowedValue) })
    case 'format':
      return error.params.format === 'date-time'
        ? message('formatInstant', { at })
        : error.params.format === 'date'
          ? message('formatDate', { at })
          : message('formatOther', { at, format: String(error.params.format) })
    case 'pattern':
      return message('pattern', { at, pattern: String(error.params.pattern) })
    case 'type': {
      // A list of types (`[string, null]`), which Ajv's text joins with bare commas, reads as words.
      const types = String(error.params.type).split(',')
      if (types.length > 1)
        return message('typeEither', { at: at || root, types: types.slice(0, -1).join(', '), last: types[types.length - 1] })
      return ruleBroken(error, at || root)
    }
    default:
      return ruleBroken(error, at || root)
  }
}

/** Ajv's other rules, each in the catalogue with Ajv's own English; a rule not there keeps Ajv's text. */
function ruleBroken(error: ErrorObject, at: string): Message {
  const { params } = error
  const said = ((): Message | undefined => {
    switch (error.keyword) {
      case STORABLE:
        return isMessage(params.problem) ? message('unstorable', { at, problem: params.problem }) : undefined
      case 'type':
        return message('type', { at, type: String(params.type) })
      case 'maxLength':
      case 'minLength':
      case 'maxItems':
      case 'minItems':
      case 'maxProperties':
      case 'minProperties':
      case 'maximum':
      case 'minimum':
      case 'exclusiveMaximum':
      case 'exclusiveMinimum':
        return message(error.keyword, { at, limit: String(params.limit) })
      case 'multipleOf':
        return message('multipleOf', { at, limit: String(params.multipleOf) })
      case 'uniqueItems':
        return message('uniqueItems', { at, i: String(params.i), j: String(params.j) })
      case 'not':
        return message('notAllowed', { at })
      case 'oneOf':
        return message('oneOfSchemas', { at })
      case 'anyOf':
        return message('anyOfSchemas', { at })
      default:
        return undefined
    }
  })()
  // The English text is Ajv's, exactly: where the catalogue's would differ, Ajv's is kept in both languages.
  const ajvText = `${at}: ${error.message}`
  return said && english(said) === ajvText ? said : message('otherRule', { at, rule: String(error.message) })
}

/**
 * The `msg` of a 1002: the fields and the rules they broke, most specific first. `root` names the
 * value itself when it breaks a rule (the body, or an add-batch item).
 */
export function describeProblems(errors: ErrorObject[] | null | undefined, prefix = '', root = 'body'): Message {
  // Wrappers (oneOf/anyOf of a value or null) repeat what their branches said.
  const specific = (errors ?? []).filter((error) => !['oneOf', 'anyOf', 'if'].includes(error.keyword))
  const chosen = specific.length > 0 ? specific : (errors ?? [])
  // Within a `T | null` union, prefer the branch about T over "must be null".
  const unique = (list: ErrorObject[]) => {
    const byText = new Map<string, Message>()
    for (const error of list) {
      const said = describe(error, prefix, root)
      const text = english(said)
      if (!byText.has(text)) byText.set(text, said)
    }
    return [...byText.values()]
  }
  const problems = unique(chosen.filter((error) => !(error.keyword === 'type' && error.params.type === 'null')))
  const list = problems.length > 0 ? problems : chosen.map((error) => describe(error, prefix, root))
  return list.length === 0 ? message('invalidRequest') : list.length === 1 ? list[0] : message('problems', { list: list.slice(0, 5) })
}

/** The English text of describeProblems: what an add-batch item's `reason` carries. */
export function describeErrors(errors: ErrorObject[] | null | undefined, prefix = '', root = 'body'): string {
  return english(describeProblems(errors, prefix, root))
}

/** True when the body itself is not a JSON object (array, string, number, missing): 400/1000. */
export function isNotAnObject(errors: ErrorObject[] | null | undefined): boolean {
  return (errors ?? []).some((error) => error.instancePath === '' && error.keyword === 'type')
}
