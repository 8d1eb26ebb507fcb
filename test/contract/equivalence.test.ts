// The contract written in parts (openapi/src/, bundled into openapi/openapi.yaml) means exactly what the
// hand-written single file meant before the split (test/contract/reference/openapi-before-split.yaml):
// per operationId, the dereferenced request body, parameters and responses are the same schemas once
// compositions are flattened (allOf merged; `unevaluatedProperties: false` over a merged allOf is the
// `additionalProperties: false` it replaces) and prose (`description`) is set aside. A lost field, a lost
// `required`, a lost maxLength / pattern / enum, or an object newly open to unknown fields fails it.

import { readFileSync } from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import t from 'tap'
import { parse } from 'yaml'
import { listOperations, loadOpenApi, type OpenApiDocument, resolveRef } from '../../src/contract/openapi-document.ts'
import { createAjv, describeErrors } from '../../src/contract/validation.ts'

type Node = any

const REFERENCE: OpenApiDocument = parse(readFileSync(new URL('./reference/openapi-before-split.yaml', import.meta.url), 'utf8'))

function pointer(document: OpenApiDocument, ref: string): Node {
  if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`)
  const target = ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((node: Node, key) => node?.[key], document)
  if (target === undefined) throw new Error(`dangling $ref ${ref}`)
  return target
}

/** The node with every `$ref` replaced by its target (siblings of a `$ref` are kept over the target's). */
function dereference(document: OpenApiDocument, node: Node, seen: string[] = []): Node {
  if (Array.isArray(node)) return node.map((item) => dereference(document, item, seen))
  if (!node || typeof node !== 'object') return node
  const { $ref, ...rest } = node
  let base: Node = {}
  if (typeof $ref === 'string') {
    if (seen.includes($ref)) throw new Error(`recursive $ref ${$ref}`)
    base = dereference(document, pointer(document, $ref), [...seen, $ref])
  }
  const own = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, dereference(document, value, seen)]))
  return { ...base, ...own }
}

/**
 * Two schemas that must both hold, as one: keywords of either (the same keyword twice only with the same
 * value), properties merged the same way, required united. A pair that cannot be merged stays an allOf
 * (and so differs from whatever it is compared with).
 */
function merge(a: Node, b: Node): Node {
  if (isDeepStrictEqual(a, b)) return a
  const merges = new Set(['properties', 'required', 'items'])
  const conflict = Object.keys(b).some((key) => !merges.has(key) && key in a && !isDeepStrictEqual(a[key], b[key]))
  // A closed object only merges with a schema that names none of the properties it refuses.
  const closedTo = (closed: Node, other: Node) =>
    closed.additionalProperties === false && Object.keys(other.properties ?? {}).some((name) => !(name in (closed.properties ?? {})))
  if (conflict || closedTo(a, b) || closedTo(b, a)) return { allOf: [a, b] }
  const merged: Node = { ...a, ...b }
  if (a.items && b.items) merged.items = merge(a.items, b.items)
  if (a.properties || b.properties) {
    merged.properties = { ...a.properties }
    for (const [name, schema] of Object.entries<Node>(b.properties ?? {}))
      merged.properties[name] = name in merged.properties ? merge(merged.properties[name], schema) : schema
  }
  if (a.required || b.required) merged.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])].sort()
  return merged
}

/** Prose set aside, allOf merged into its parent, required as a set: what a validator would check. */
function normalise(node: Node): Node {
  if (Array.isArray(node)) return node.map(normalise)
  if (!node || typeof node !== 'object') return node
  const { description: _description, allOf, ...rest } = node
  const out: Node = {}
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'examples' || key.startsWith('x-')) out[key] = value
    else if (key === 'properties')
      out[key] = Object.fromEntries(Object.entries(value as object).map(([name, child]) => [name, normalise(child)]))
    else if (key === 'required' && Array.isArray(value)) out[key] = [...new Set(value as string[])].sort()
    else out[key] = normalise(value)
  }
  if (!Array.isArray(allOf)) return out
  let merged = out
  for (const part of allOf) {
    const branch = normalise(part)
    // additionalProperties inside a branch sees only that branch's properties: never equivalent.
    if ('additionalProperties' in branch) return { ...out, allOf: allOf.map(normalise) }
    merged = merge(merged, branch)
  }
  if (merged.unevaluatedProperties === false) {
    delete merged.unevaluatedProperties
    merged.additionalProperties = false
  }
  return merged
}

/** What an operation accepts and answers, by operationId. */
function shapes(document: OpenApiDocument): Map<string, Node> {
  const result = new Map<string, Node>()
  for (const { operationId, spec } of listOperations(document)) {
    const operation = dereference(document, spec)
    result.set(
      operationId,
      normalise({
        parameters: operation.parameters ?? [],
        security: operation.security,
        requestBody: operation.requestBody,
        responses: operation.responses,
      }),
    )
  }
  return result
}

/** Differences between two shapes, as `path: before → after` lines (at most `limit`). */
function differences(before: Node, after: Node, path = '', limit = 20, out: string[] = []): string[] {
  if (out.length >= limit || isDeepStrictEqual(before, after)) return out
  // An example added since (e.g. a new refusal documented) changes what nothing accepts or answers.
  if (before === undefined && path.includes('/examples/')) return out
  if (before && after && typeof before === 'object' && typeof after === 'object' && !Array.isArray(before) && !Array.isArray(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)]))
      differences(before[key], after[key], `${path}/${key}`, limit, out)
  } else out.push(`${path}: ${JSON.stringify(before)?.slice(0, 120)} → ${JSON.stringify(after)?.slice(0, 120)}`)
  return out
}

function compare(before: OpenApiDocument, after: OpenApiDocument): string[] {
  const old = shapes(before)
  const current = shapes(after)
  const problems: string[] = []
  for (const [operationId, shape] of old) {
    if (!current.has(operationId)) problems.push(`${operationId}: operation missing`)
    else problems.push(...differences(shape, current.get(operationId)).map((line) => `${operationId}${line}`))
  }
  // Operations added since (history, attachments) are additions: the breaking-change check governs them.
  return problems
}

/**
 * The contract changes made since the split, undone: what remains must be the split document. Each
 * later change to the contract made on purpose is listed here (additions only; the
 * breaking-change check guards the released contract).
 */
function withoutLaterChanges(document: OpenApiDocument): OpenApiDocument {
  const copy: Node = structuredClone(document)
  // The park supervises many enterprises: the `enterprise` role and its companyCode,
  // getById's companyCode, sync_error on records, the push answer's `held`, the status's
  // failedExhausted and reconcile, and three system operations.
  for (const path of ['/system/sync/reconcile', '/system/sync/digest', '/system/enterprise/list']) delete copy.paths[path]
  const schemas = copy.components.schemas
  for (const name of ['User', 'UserAddRequest', 'UserUpdateRequest']) delete schemas[name].properties.companyCode
  schemas.UserAddRequest.examples = schemas.UserAddRequest.examples.filter((example: Node) => example.role !== 'enterprise')
  for (const example of schemas.User.examples) delete example.companyCode
  // Names for the members of generated enums, the status's failures, and its pushFailure (the push
  // has operations of its own).
  const added = new Set([
    'enterprise',
    'sync_error',
    'held',
    'failedExhausted',
    'reconcile',
    'x-enum-varnames',
    'x-enumNames',
    'failures',
    'pushFailure',
    // Live monitoring: the gateway's role, the equipment's alarm settings, the supervision's computed field.
    'collector',
    'alarmDeadband',
    'alarmDelaySeconds',
    'offlineAfterSeconds',
    'frozenAfterSeconds',
    'overdue',
  ])
  const undo = (node: Node): Node => {
    if (Array.isArray(node)) return node.filter((item) => !added.has(item)).map(undo)
    if (!node || typeof node !== 'object') return node
    if (node.$ref === '#/components/schemas/GetByIdRequest') return { ...node, $ref: '#/components/schemas/IdRequest' }
    return Object.fromEntries(Object.entries(node).flatMap(([key, value]) => (added.has(key) ? [] : [[key, undo(value)]])))
  }
  // /system/refresh declares its optional empty body (and 400,
  // 413) as logout does; user/list pages by pageNum only, its request without `after`.
  const refresh = copy.paths['/system/refresh'].post
  delete refresh.requestBody
  for (const status of ['400', '413']) delete refresh.responses[status]
  delete refresh.responses['200'].content['application/json'].examples.invalidParameter
  copy.paths['/system/user/list'].post.requestBody.content['application/json'].schema = { $ref: '#/components/schemas/ListRequest' }
  delete schemas.UserListRequest
  // The examples of errors say what the service answers; an empty
  // body's schema says so once (additionalProperties), not twice.
  for (const [path, item] of Object.entries<Node>(copy.paths)) saidBefore(item, path.split('/')[2])
  saidBefore(copy.components.responses, '')
  schemas.EmptyRequest.maxProperties = 0
  // Required-when rules that say blank text is no value, and the work level of hot work, work at
  // height and lifting tickets required.
  for (const schema of Object.values<Node>(schemas)) {
    if (!Array.isArray(schema['x-rules'])) continue
    schema['x-rules'] = schema['x-rules']
      .filter((rule: string) => !rule.startsWith('workLevel is required'))
      .map((rule: string) => rule.replace(', not only white space, U+3000 and U+00A0 included)', ')'))
  }
  // The push through operations of its own: X-Sync-Push, once the push on add-batch, is deprecated
  // and means nothing (what a request may send is unchanged).
  copy.components.parameters.SyncPush = structuredClone(REFERENCE.components.parameters!.SyncPush)
  withoutSupervision(copy)
  for (const path of Object.keys(copy.paths)) {
    // Live monitoring's operations, events and webhooks came later.
    if (/^\/hazard\/(monitorData|monitorAlarm)\/|^\/hazard\/monitorEquip\/(shelve|unshelve)$|^\/system\/(event|webhook)\//.test(path)) {
      delete copy.paths[path]
    }
  }
  // The language of `msg`: every operation's Accept-Language, every answer's Content-Language and Vary.
  const withoutLanguage = (responses: Node) => {
    for (const response of Object.values<Node>(responses ?? {})) {
      if (!response.headers) continue
      delete response.headers['Content-Language']
      delete response.headers.Vary
      if (Object.keys(response.headers).length === 0) delete response.headers
    }
  }
  for (const item of Object.values<Node>(copy.paths)) {
    const operation = item.post
    operation.parameters = (operation.parameters ?? []).filter(
      (parameter: Node) => parameter.$ref !== '#/components/parameters/AcceptLanguage',
    )
    if (operation.parameters.length === 0) delete operation.parameters
    withoutLanguage(operation.responses)
  }
  withoutLanguage(copy.components.responses)
  return undo(copy)
}

/** Supervision of dual prevention came later: its four operations, and the computed `overdue` of hidden dangers and tickets. */
function withoutSupervision(copy: Node): void {
  for (const path of ['/prevent/troubleshootTask/periods', '/system/calendar/set', '/system/calendar/get', '/system/indicators']) {
    delete copy.paths[path]
  }
  const schemas = copy.components.schemas
  for (const name of ['TroubleshootInfoRecord', 'TicketBaseInfoRecord']) {
    schemas[name].allOf = schemas[name].allOf.filter((part: Node) => !String(part.$ref).endsWith('Overdue'))
  }
  for (const name of ['TroubleshootInfoField', 'TicketBaseInfoField']) {
    schemas[name].enum = schemas[name].enum.filter((field: string) => field !== 'overdue')
    schemas[name].description = schemas[name].description.replace('; the computed `overdue` in conditions with `eq` only', '')
  }
}

/** The examples' `msg` of errors as they were written before the service's own words replaced them. */
function saidBefore(node: Node, resource: string): void {
  if (!node || typeof node !== 'object') return
  if (node.code === 1009 && node.msg === 'rate limit exceeded: retry in 58 s') node.msg = 'too many requests, retry later'
  if (node.code === 2003 && node.msg === 'permission denied: role viewer may not call preventRiskUnitAdd') node.msg = 'permission denied'
  if (node.code === 1002 && typeof node.msg === 'string') {
    node.msg = node.msg
      .replace(/must NOT have more than (\d+) characters/, 'must NOT be longer than $1 characters')
      .replace('must NOT have fewer than 8 characters', 'must NOT be shorter than 8 characters')
      .replace(/^conditions\[0\]\.field: must be one of .*/, `conditions[0].field: colour is not a field of ${resource}`)
      .replace('the prefix of classify2 (1-4) must equal classify1 (2)', 'classify2 1-4 does not belong to classify1 2')
      .replace(/^workStartTime: required when/, 'checkCycleUnit, workStartTime: workStartTime is required when')
      .replace(/^checkAcceptPerson: required when/, 'dangerState, checkAcceptPerson: checkAcceptPerson is required when')
      .replace('must match the pattern ^1[3-9][0-9]{9}$', 'must match pattern "^1[3-9][0-9]{9}$"')
      .replace(/^planEndTime: must be after planStartTime$/, 'planStartTime, planEndTime: planEndTime must be after planStartTime')
      .replace(
        'passCount, participantCount: passCount must not exceed participantCount',
        'participantCount, passCount: passCount (40) must not be greater than participantCount (36)',
      )
  }
  for (const value of Object.values(node)) saidBefore(value, resource)
}

const current = withoutLaterChanges(loadOpenApi().document)

t.test('every operation accepts and answers exactly the schemas it did before the split', async (t) => {
  t.same(compare(REFERENCE, current), [])
})

t.test('operations keep their ids, paths, summaries, tags, examples and x- extensions', async (t) => {
  const keep = (document: OpenApiDocument) =>
    listOperations(document).map(({ operationId, path, spec }) => ({
      operationId,
      path,
      summary: spec.summary,
      tags: spec.tags,
      extensions: Object.fromEntries(Object.entries(spec).filter(([key]) => key.startsWith('x-'))),
      examples: JSON.stringify(spec, (key, value) => (key === 'description' ? undefined : value)).match(/"examples?":\{.*?\}\}/g),
    }))
  const before = new Set(listOperations(REFERENCE).map(({ operationId }) => operationId))
  t.same(
    keep(current).filter(({ operationId }) => before.has(operationId)),
    keep(REFERENCE),
  )
})

t.test('every component schema name of before the split is still there, with its x- extensions', async (t) => {
  for (const [name, schema] of Object.entries<Node>(REFERENCE.components.schemas)) {
    const now = current.components.schemas[name]
    t.ok(now, `components.schemas.${name}`)
    const extensions = (node: Node) => Object.fromEntries(Object.entries(node ?? {}).filter(([key]) => key.startsWith('x-')))
    t.same(extensions(now), extensions(schema), `${name} x- extensions`)
    for (const [field, property] of Object.entries<Node>(schema.properties ?? {})) {
      if (Object.keys(extensions(property)).length > 0)
        t.same(extensions(now?.properties?.[field]), extensions(property), `${name}.${field} x- extensions`)
    }
  }
})

/** Bodies near each documented example: the example, and one change at a time (a field dropped, nulled, too long, of another type, an unknown field), one level deep into arrays of objects. */
function corpus(examples: Node[]): Node[] {
  const variants = (value: Node, depth: number): Node[] => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return []
    const out: Node[] = [{ ...value, unknownField: 1 }]
    for (const [key, field] of Object.entries<Node>(value)) {
      const { [key]: _dropped, ...without } = value
      out.push(without)
      for (const replacement of [null, 'x'.repeat(5000), '', 12345, -1, 1.5, true, {}, [], '2026-13-45', 'not-a-date'])
        out.push({ ...value, [key]: replacement })
      if (depth > 0 && Array.isArray(field) && field.length > 0) {
        for (const item of variants(field[0], depth - 1)) out.push({ ...value, [key]: [item, ...field.slice(1)] })
        out.push({ ...value, [key]: ['x'] })
      }
    }
    return out
  }
  return [{}, [], 'x', ...examples.flatMap((example) => [example, ...variants(example, 1)])]
}

t.test('a corpus of requests around every example is accepted or refused as before, with the same messages', async (t) => {
  const ajvBefore = createAjv()
  const ajvNow = createAjv()
  const operations = new Map(listOperations(current).map((operation) => [operation.operationId, operation]))
  let checked = 0
  for (const { operationId, spec } of listOperations(REFERENCE)) {
    const requestBody: Node = spec.requestBody ?? {}
    const content = resolveRef(REFERENCE, requestBody).content?.['application/json']
    if (!content?.schema) continue
    const schema = resolveRef(REFERENCE, content.schema)
    const examples = [...Object.values<Node>(content.examples ?? {}).map((example) => example.value), ...(schema.examples ?? [])]
    const before = ajvBefore.compile({ ...content.schema, components: REFERENCE.components })
    const nowSpec = operations.get(operationId)!.spec
    const now = ajvNow.compile({
      ...resolveRef<Node>(current, nowSpec.requestBody).content['application/json'].schema,
      components: current.components,
    })
    const verdicts: string[] = []
    for (const body of corpus(examples)) {
      const expected = before(body) ? 'accepted' : `refused: ${[...describeErrors(before.errors).split('; ')].sort().join('; ')}`
      const actual = now(body) ? 'accepted' : `refused: ${[...describeErrors(now.errors).split('; ')].sort().join('; ')}`
      checked++
      if (actual !== expected) verdicts.push(`${operationId} ${JSON.stringify(body).slice(0, 200)}: ${expected} → ${actual}`)
    }
    t.same(verdicts.slice(0, 10), [], `${operationId}: every request of the corpus`)
  }
  t.ok(checked > 5000, `${checked} requests checked`)
})

t.test('the comparison sees what would break a client', async (t) => {
  const mutated = (mutate: (schemas: Node) => void) => {
    const copy = structuredClone(current)
    mutate(copy.components.schemas)
    return compare(REFERENCE, copy)
  }
  const cases: [string, (schemas: Node) => void][] = [
    ['a lost field', (schemas) => delete schemas.RiskUnit.properties.hazardDep],
    ['a lost required', (schemas) => (schemas.RiskUnit.required = ['id'])],
    ['a lost maxLength', (schemas) => delete schemas.RiskUnitPatch.properties.riskUnitName.maxLength],
    ['a lost pattern', (schemas) => delete schemas.ServerKeptFields.properties.companyCode.pattern],
    ['a lost enum value', (schemas) => (schemas.RiskUnit.properties.riskLevel.enum = ['1', '2', '3', null])],
    ['an unknown field accepted', (schemas) => delete schemas.RiskUnit.additionalProperties],
    ['an unknown field accepted (composed)', (schemas) => delete schemas.RiskUnitRecord.unevaluatedProperties],
    ['a lost response field', (schemas) => delete schemas.RiskUnitRecord.properties.hazardCode],
  ]
  for (const [what, mutate] of cases) t.ok(mutated(mutate).length > 0, `${what} is seen`)
})

t.end()
