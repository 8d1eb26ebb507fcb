// Whatever a client sends, the answer is the envelope, never a 5xx, and nothing invalid is stored.
// fast-check builds valid bodies for every operation from the served OpenAPI document, then mutates
// them as a hostile client would: characters of every Unicode category (control characters and lone
// surrogates included), numbers past a double's range as raw JSON text (`1e309`), deep nesting, long
// arrays, wrong types, unknown and prototype keys, non-object bodies, foreign content types, bytes
// that are not UTF-8. Properties of every answer:
// - no 5xx; exactly the keys msg, code, data, success; the HTTP status the code has (the document's table of codes);
// - a mutation that makes the body certainly invalid is refused (1000, or 1002; in add-batch, the
//   item alone fails with 1002 while the others are processed);
// - an accepted add is read back as sent, a refused one left nothing (and likewise per batch item).
// A failure prints the seed: rerun it with FUZZ_SEED=<seed> npm test -- test/hardening/fuzz.test.ts
import fc from 'fast-check'
import t from 'tap'
import { listOperations, loadOpenApi, resolveRef, type JsonSchema } from '../../src/contract/openapi-document.ts'
import { BODY_LIMITS, operationPolicies } from '../../src/http/operation-policy.ts'
import { ResourceRegistry } from '../../src/resources/resource-registry.ts'
import { PARENT_FIELD, RESOURCE_PATHS, record } from '../helpers/fixtures.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'
import {
  anyJsonValue,
  deepNesting,
  extremeNumberText,
  foreignContentType,
  hostileChar,
  hostileKey,
  hostileString,
  INFINITE_NUMBER_TEXTS,
  invalidUtf8,
  longArray,
  Raw,
  serialise,
  unstorableText,
  validValue,
} from './request-arbitraries.ts'

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const RUNS = Number(process.env.FUZZ_RUNS ?? 2400)
const BATCH_RUNS = Number(process.env.FUZZ_BATCH_RUNS ?? 300)
t.comment(`fuzz seed ${SEED} (rerun with FUZZ_SEED=${SEED})`)

const { document } = loadOpenApi()
const registry = new ResourceRegistry(document)
const service = await startService(t)
const session = (await service.call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })).body.data
const token: string = session.token
const refreshToken: string = session.refresh_token

/** The HTTP status of each code, as the document's table of codes gives it. */
const STATUS: Record<number, number> = {
  0: 200,
  1000: 400,
  1001: 200,
  1002: 200,
  1003: 200,
  1004: 200,
  1005: 200,
  1006: 200,
  1007: 200,
  1008: 404,
  1009: 429,
  1010: 413,
  1011: 200,
  1012: 200,
  2001: 401,
  2002: 401,
  2003: 403,
  2004: 200,
  4001: 503,
  [-1]: 500,
}

// ---- the operations, and a parent of every kind for children to name ----

interface Operation {
  operationId: string
  path: string
  bodySchema: JsonSchema | undefined
  bodyRequired: boolean
  action: string | undefined
  resource: string | undefined
  /** Its body's `list` holds items judged one by one (x-batch-items): a bad item fails alone. */
  batchItems: boolean
}

// The service here is an enterprise edition: the park's own operations (x-edition park) answer 403
// before reading any body (test/auth/enterprise-accounts.test.ts), so they are left out.
const operations: Operation[] = listOperations(document).flatMap(({ operationId, path, spec }) => {
  if (spec['x-edition'] === 'park') return []
  const body = spec.requestBody ? resolveRef<any>(document, spec.requestBody) : undefined
  return {
    operationId,
    path,
    bodySchema: body?.content?.['application/json']?.schema,
    bodyRequired: body?.required === true,
    action: spec['x-action'],
    resource: spec['x-resource'],
    batchItems: resolveRef<any>(document, body?.content?.['application/json']?.schema ?? {}).properties?.list?.['x-batch-items'] === true,
  }
})

const PARENTS: Record<string, string> = {}
for (const resource of Object.keys(RESOURCE_PATHS)) {
  const parent = PARENT_FIELD[resource]
  const id = `FUZZ-PARENT-${resource}`
  const reply = await service.call(
    `${RESOURCE_PATHS[resource]}/add`,
    record(resource, id, parent ? { [parent[0]]: PARENTS[parent[1]] } : {}),
    { token },
  )
  if (reply.body.code !== 0) throw new Error(`parent ${resource}: ${reply.body.code} ${reply.body.msg}`)
  PARENTS[resource] = id
}

/** Every property name any schema of the document declares: a key outside this set is unknown everywhere. */
const DECLARED = new Set<string>()
;(function collect(node: unknown) {
  if (Array.isArray(node)) node.forEach(collect)
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && value && typeof value === 'object') for (const name of Object.keys(value)) DECLARED.add(name)
      collect(value)
    }
  }
})(document)

// ---- mutations ----

type Path = (string | number)[]

type Mutation =
  | { kind: 'none' }
  | { kind: 'insertChars'; pick: number; at: number; chars: string }
  | { kind: 'replace'; pick: number; value: unknown }
  | { kind: 'addKey'; pick: number; key: string; value: unknown }
  | { kind: 'dropKey'; pick: number }
  | { kind: 'body'; value: unknown }
  | { kind: 'invalidUtf8'; at: number; bytes: readonly number[] }
  | { kind: 'utf16' }
  | { kind: 'contentType'; contentType: string }
  | { kind: 'noBody'; withContentType: boolean }

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('insertChars' as const),
      pick: fc.nat(),
      at: fc.nat(),
      chars: fc.string({ unit: hostileChar, minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      pick: fc.nat(),
      value: fc.oneof(
        anyJsonValue,
        hostileString,
        extremeNumberText.map((text) => new Raw(text)),
        deepNesting,
        longArray,
      ),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('addKey' as const), pick: fc.nat(), key: hostileKey, value: anyJsonValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dropKey' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('body' as const),
      value: fc.oneof(
        hostileString,
        fc.constant(null),
        fc.boolean(),
        fc.integer(),
        fc.constant([]),
        fc.array(fc.constant({}), { maxLength: 2 }),
        extremeNumberText.map((text) => new Raw(text)),
        deepNesting,
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('invalidUtf8' as const), at: fc.nat(), bytes: invalidUtf8 }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'utf16' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('contentType' as const), contentType: foreignContentType }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('noBody' as const), withContentType: fc.boolean() }) },
)

/** Every path of a JSON value: the root, every member and element, depth first. */
function paths(value: unknown, prefix: Path = []): Path[] {
  const all: Path[] = [prefix]
  if (Array.isArray(value)) value.forEach((element, index) => all.push(...paths(element, [...prefix, index])))
  else if (value && typeof value === 'object') for (const [key, child] of Object.entries(value)) all.push(...paths(child, [...prefix, key]))
  return all
}

function get(value: any, path: Path): any {
  return path.reduce((current, key) => current?.[key], value)
}

function set(root: any, path: Path, value: unknown): any {
  if (path.length === 0) return value
  get(root, path.slice(0, -1))[path.at(-1)!] = value
  return root
}

interface Request {
  bytes: Buffer | undefined
  contentType: string | undefined
  /** Certainly invalid: must be refused (1000/1002), or in add-batch fail the item it is in. */
  invalid: boolean
  /** The path the mutation touched, when it touched one. */
  path: Path | undefined
}

/** Applies a mutation to a valid body (a fresh copy). */
function mutate(body: unknown, change: Mutation): Request & { body: unknown } {
  const json = (value: unknown, invalid: boolean, path?: Path) => ({
    bytes: Buffer.from(serialise(value)),
    contentType: 'application/json',
    invalid,
    path,
    body: value,
  })
  const all = paths(body)
  switch (change.kind) {
    case 'none':
      return json(body, false)
    case 'insertChars': {
      const strings = all.filter((path) => typeof get(body, path) === 'string')
      if (strings.length === 0) return json(body, false)
      const path = strings[change.pick % strings.length]
      const text: string = get(body, path)
      const at = change.at % (text.length + 1)
      const changed = text.slice(0, at) + change.chars + text.slice(at)
      return json(set(body, path, changed), unstorableText(changed), path)
    }
    case 'replace': {
      const path = all[change.pick % all.length]
      const value = change.value
      const plainObject = value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Raw)
      const invalid =
        (value instanceof Raw && INFINITE_NUMBER_TEXTS.has(value.text)) ||
        (typeof value === 'string' && unstorableText(value)) ||
        (path.length === 0 && !plainObject)
      return json(set(body, path, value), invalid, path)
    }
    case 'addKey': {
      const objects = all.filter((path) => {
        const node = get(body, path)
        return node && typeof node === 'object' && !Array.isArray(node)
      })
      if (objects.length === 0) return json(body, false)
      const path = objects[change.pick % objects.length]
      const target = get(body, path)
      // `__proto__` would set the prototype, not a key: written into the JSON text instead.
      if (change.key === '__proto__') target['\u0002proto'] = change.value
      else target[change.key] = change.value
      const request = json(body, !DECLARED.has(change.key), path)
      const text = request.bytes!.toString('utf8').replace('"\\u0002proto"', '"__proto__"')
      return { ...request, bytes: Buffer.from(text) }
    }
    case 'dropKey': {
      const members = all.filter((path) => path.length > 0 && typeof path.at(-1) === 'string')
      if (members.length === 0) return json(body, false)
      const path = members[change.pick % members.length]
      delete get(body, path.slice(0, -1))[path.at(-1)!]
      return json(body, false, path)
    }
    case 'body':
      return json(change.value, true, [])
    case 'invalidUtf8': {
      const bytes = Buffer.from(serialise(body))
      const at = change.at % (bytes.length + 1)
      return {
        bytes: Buffer.concat([bytes.subarray(0, at), Buffer.from(change.bytes), bytes.subarray(at)]),
        contentType: 'application/json',
        invalid: true,
        path: [],
        body,
      }
    }
    case 'utf16':
      return { bytes: Buffer.from(serialise(body), 'utf16le'), contentType: 'application/json', invalid: true, path: [], body }
    case 'contentType':
      return { bytes: Buffer.from(serialise(body)), contentType: change.contentType, invalid: true, path: [], body }
    case 'noBody':
      return {
        bytes: undefined,
        contentType: change.withContentType ? 'application/json' : undefined,
        invalid: false,
        path: [],
        body: undefined,
      }
  }
}

// ---- sending, and what every answer must be ----

let counter = 0
const fresh = (prefix: string) => `FZ-${SEED.toString(36)}-${prefix}-${(counter++).toString(36)}`

interface Answer {
  status: number
  body: { msg: string; code: number; data: any; success: boolean }
}

async function send(operation: Operation, request: Request, headers: Record<string, string> = {}): Promise<Answer> {
  const bearer =
    operation.operationId === 'systemRefresh' ? refreshToken : operation.operationId === 'systemLogout' ? await freshToken() : token
  const response = await fetch(service.url + operation.path, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, ...(request.contentType ? { 'content-type': request.contentType } : {}), ...headers },
    body: request.bytes,
  })
  const text = await response.text()
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    throw new Error(`${operation.path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`)
  }
  const answer = { status: response.status, body }
  checkEnvelope(operation, answer)
  return answer
}

async function freshToken(): Promise<string> {
  return (await service.call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })).body.data.token
}

function checkEnvelope(operation: Operation, { status, body }: Answer): void {
  const where = `${operation.path} → ${status} ${JSON.stringify(body).slice(0, 300)}`
  if (status >= 500) throw new Error(`5xx: ${where}`)
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error(`not an envelope: ${where}`)
  const keys = Object.keys(body).sort().join(',')
  if (keys !== 'code,data,msg,success') throw new Error(`envelope keys ${keys}: ${where}`)
  if (typeof body.msg !== 'string' || !Number.isInteger(body.code) || typeof body.success !== 'boolean')
    throw new Error(`envelope types: ${where}`)
  if (!(body.code in STATUS)) throw new Error(`unknown code: ${where}`)
  if (STATUS[body.code] !== status) throw new Error(`HTTP ${status} for code ${body.code} (the document: ${STATUS[body.code]}): ${where}`)
  if (body.success !== (body.code === 0)) throw new Error(`success ${body.success} with code ${body.code}: ${where}`)
  if (body.code !== 0 && body.data !== null) throw new Error(`a failure with data: ${where}`)
}

// ---- reading back what was stored ----

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)$/

/** Seconds since the epoch of an instant as sent or as written back. */
function instantSeconds(text: string): number | undefined {
  const match = INSTANT.exec(text)
  if (!match) return undefined
  const [, y, mo, d, h, mi, s, sign, oh, om] = match
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om ?? 0)) : 0
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000 - offset * 60
}

/** The add's record as stored: every field sent comes back as sent (instants as the same second, in the configured zone). */
async function assertStoredAsSent(resource: string, sent: Record<string, unknown>, where: string): Promise<void> {
  const read = await send(operationFor(resource, 'getById'), {
    bytes: Buffer.from(JSON.stringify({ id: sent.id })),
    contentType: 'application/json',
    invalid: false,
    path: undefined,
  })
  if (read.body.code !== 0) throw new Error(`${where}: accepted, but getById answers ${read.body.code} ${read.body.msg}`)
  const stored = read.body.data
  const def = registry.get(resource)
  for (const field of def.fields) {
    const value = sent[field.name] ?? null
    const back = stored[field.name]
    const same =
      field.kind === 'instant' && typeof value === 'string'
        ? instantSeconds(value) === instantSeconds(back) && /\+08:00$/.test(back)
        : JSON.stringify(value) === JSON.stringify(back)
    if (!same) throw new Error(`${where}: ${field.name} sent ${JSON.stringify(value)}, stored ${JSON.stringify(back)}`)
  }
}

async function assertNotStored(resource: string, id: string, where: string): Promise<void> {
  const read = await send(operationFor(resource, 'getById'), {
    bytes: Buffer.from(JSON.stringify({ id })),
    contentType: 'application/json',
    invalid: false,
    path: undefined,
  })
  if (read.body.code !== 1004) throw new Error(`${where}: refused, but getById of ${id} answers ${read.body.code}`)
}

/** An id this run gave out (and a valid one: a mutated id is refused before any look-up). */
function isFreshId(id: unknown): id is string {
  return typeof id === 'string' && id.startsWith('FZ-') && /^[\x21-\x7E]{1,64}$/.test(id)
}

/** The body as the service parsed it (raw number texts read as numbers). */
function asReceived(request: Request): any {
  return JSON.parse(request.bytes!.toString('utf8'))
}

function operationFor(resource: string, action: string): Operation {
  return operations.find((operation) => operation.resource === resource && operation.action === action)!
}

/** A valid add body gets a fresh id, fresh unique codes, and parents that exist. */
function prepareRecord(resource: string, item: Record<string, any>): Record<string, any> {
  const def = registry.get(resource)
  item.id = fresh(resource)
  for (const field of def.uniqueFields) if (typeof item[field] === 'string') item[field] = fresh(field)
  for (const reference of def.references) if (reference.field in item) item[reference.field] = PARENTS[reference.parent]
  return item
}

/** The body an operation is sent before the mutation: valid for its schema, with the ids that make it meaningful. */
function prepare(operation: Operation, body: any): any {
  if (!body || typeof body !== 'object') return body
  if (operation.resource && operation.action === 'add') return prepareRecord(operation.resource, body)
  if (operation.resource && operation.action === 'addBatch' && Array.isArray(body.list))
    body.list.forEach((item: any) => item && prepareRecord(operation.resource!, item))
  // Never lock the fuzzing out: admin is neither disabled, demoted nor deleted.
  if (/^systemUser(Update|Delete)$/.test(operation.operationId) && body.userName === 'admin') body.userName = 'not-admin'
  return body
}

const caseOf = (operation: Operation) =>
  fc
    .record({
      body: operation.bodySchema ? validValue(document, operation.bodySchema) : fc.constant({}),
      change: mutation,
      idempotencyKey:
        operation.action && ['add', 'update', 'delete', 'addBatch'].includes(operation.action)
          ? fc.option(fc.stringMatching(/^[!-~]{1,20}$/), { nil: undefined })
          : fc.constant(undefined),
    })
    .map((generated) => ({ operation, ...generated }))

const policies = operationPolicies(document)

/** True when the body is over the operation's own limit (a batch's is BODY_LIMIT's: at least the smallest). */
function overLimit(operation: Operation, bytes: Buffer | undefined): boolean {
  const limit = policies.get(operation.operationId)?.bodyLimit
  return (bytes?.length ?? 0) > (typeof limit === 'number' ? limit : BODY_LIMITS.system)
}

let cases = 0
let refused = 0

t.test('every operation, every mutation: the envelope, never a 5xx, nothing invalid accepted or stored', async (t) => {
  const arbitrary = fc.oneof(...operations.map(caseOf))
  await fc.assert(
    fc.asyncProperty(arbitrary, async ({ operation, body, change, idempotencyKey }) => {
      cases++
      const started = Date.now()
      const prepared = prepare(operation, structuredClone(body))
      const request = mutate(prepared, change)
      const headers: Record<string, string> = idempotencyKey ? { 'idempotency-key': `${fresh('key')}${idempotencyKey}` } : {}
      const answer = await send(operation, request, headers)
      const where = `${operation.operationId} ${change.kind} ${serialise(request.body).slice(0, 200)}`
      if (answer.body.code !== 0) refused++
      if (process.env.FUZZ_DEBUG)
        console.error(
          Date.now() - started,
          'ms',
          operation.operationId,
          change.kind,
          answer.status,
          answer.body.code,
          answer.body.msg.slice(0, 100),
        )
      // A body over its operation's limit (system operations: a few KB) is 413/1010, whatever it holds.
      if (answer.body.code === 1010 && !overLimit(operation, request.bytes)) {
        throw new Error(`a body of ${request.bytes?.length ?? 0} bytes answered 1010 under its limit: ${where}`)
      }
      if (answer.body.code === 1010) return
      const inBatchItem = operation.batchItems && request.path !== undefined && request.path[0] === 'list' && request.path.length >= 2
      if (request.invalid && !inBatchItem && ![1000, 1002].includes(answer.body.code)) {
        throw new Error(`invalid input answered ${answer.body.code} ${answer.body.msg}: ${where}`)
      }
      if (request.invalid && inBatchItem && answer.body.code === 0) {
        const index = request.path![1] as number
        const failed = answer.body.data.failed.find((failure: any) => failure.index === index)
        if (!failed) throw new Error(`an invalid batch item ${index} was not refused: ${where} → ${JSON.stringify(answer.body.data)}`)
      }
      if (operation.action === 'add' && operation.resource && request.body && typeof request.body === 'object') {
        const sent = request.body as Record<string, unknown>
        if (answer.body.code === 0) await assertStoredAsSent(operation.resource, asReceived(request), where)
        else if (isFreshId(sent.id) && answer.body.code !== 1003) await assertNotStored(operation.resource, sent.id, where)
      }
      if (operation.action === 'addBatch' && operation.resource && answer.body.code === 0) {
        const list = asReceived(request).list as any[]
        if (answer.body.data.failed.some((failure: any) => failure.code === -1 || failure.code === 4001))
          throw new Error(`a batch item failed unexpectedly: ${where} → ${JSON.stringify(answer.body.data)}`)
        for (const [index, item] of list.entries()) {
          const succeeded = !answer.body.data.failed.some((failure: any) => failure.index === index)
          if (succeeded) await assertStoredAsSent(operation.resource, item, `${where} item ${index}`)
          else if (isFreshId(item?.id) && list.filter((other) => other?.id === item.id).length === 1)
            await assertNotStored(operation.resource, item.id, `${where} item ${index}`)
        }
      }
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  )
  t.pass(`${RUNS} cases over ${operations.length} operations`)
})

t.test('add-batch: a bad item fails alone, whatever it holds; the others are stored', async (t) => {
  const batchOperations = operations.filter((operation) => operation.action === 'addBatch')
  const itemChange = fc.oneof(
    fc.record({
      kind: fc.constant('chars' as const),
      chars: fc.string({ unit: hostileChar, minLength: 1, maxLength: 3 }).filter(unstorableText),
      pick: fc.nat(),
    }),
    fc.record({ kind: fc.constant('number' as const), text: fc.constantFrom('1e309', '-1e309'), pick: fc.nat() }),
    fc.record({ kind: fc.constant('key' as const), key: hostileKey.filter((key) => key !== '__proto__' && !DECLARED.has(key)) }),
    fc.record({ kind: fc.constant('type' as const), value: anyJsonValue }),
  )
  const arbitrary = fc.oneof(
    ...batchOperations.map((operation) => {
      const item = validValue(document, resolveRef<any>(document, operation.bodySchema!).properties.list.items)
      return fc.record({
        operation: fc.constant(operation),
        items: fc.array(item, { minLength: 2, maxLength: 5 }),
        bad: fc.nat(),
        change: itemChange,
      })
    }),
  )
  await fc.assert(
    fc.asyncProperty(arbitrary, async ({ operation, items, bad, change }) => {
      cases++
      const list = items.map((item) => prepareRecord(operation.resource!, structuredClone(item as Record<string, any>)))
      const index = bad % list.length
      const item = list[index]
      const fields = Object.keys(item).filter((key) => key !== 'id')
      if (change.kind === 'chars') {
        const strings = fields.filter((key) => typeof item[key] === 'string')
        const key = strings.length > 0 ? strings[change.pick % strings.length] : 'id'
        item[key] = `${item[key]}${change.chars}`
      } else if (change.kind === 'number') item[fields[change.pick % fields.length] ?? 'id'] = new Raw(change.text)
      else if (change.kind === 'key') item[change.key] = 1
      else list[index] = change.value as any
      const answer = await send(operation, {
        bytes: Buffer.from(serialise({ list })),
        contentType: 'application/json',
        invalid: true,
        path: ['list', index],
      })
      const where = `${operation.operationId} item ${index} ${change.kind}: ${serialise(list[index]).slice(0, 200)}`
      if (answer.body.code !== 0) throw new Error(`the whole batch answered ${answer.body.code} ${answer.body.msg}: ${where}`)
      const { failed } = answer.body.data
      const own = failed.find((failure: any) => failure.index === index)
      if (!own || own.code !== 1002)
        throw new Error(`the bad item was not refused with 1002: ${where} → ${JSON.stringify(answer.body.data)}`)
      for (const [other, sent] of list.entries()) {
        if (other === index) continue
        const failure = failed.find((candidate: any) => candidate.index === other)
        if (failure && ![1002].includes(failure.code))
          throw new Error(`item ${other} failed with ${failure.code} ${failure.reason}: ${where}`)
        if (!failure) await assertStoredAsSent(operation.resource!, JSON.parse(serialise(sent)), `${where}, item ${other}`)
      }
      if (isFreshId(list[index]?.id)) await assertNotStored(operation.resource!, list[index].id, where)
    }),
    { seed: SEED, numRuns: BATCH_RUNS, endOnFailure: true },
  )
  t.pass(`${BATCH_RUNS} batches`)
})

t.test('figures', async (t) => {
  t.comment(`fuzz seed ${SEED}: ${cases} cases sent, ${refused} refused by the service, 0 answers off the contract`)
  t.ok(cases >= RUNS + BATCH_RUNS, 'every case ran')
})

t.end()
