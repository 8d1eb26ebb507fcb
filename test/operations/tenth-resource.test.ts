// The recipe of docs/adding-a-resource.md, followed for a throw-away tenth resource: in a temporary
// copy of the service, its schema file (fields and add shape) and its paths file (its own values for
// the shared operation and shape templates of openapi/src/templates/) are written, their $ref lines and its key
// (ResourceKey) added to the contract's root, its migration and its registry entry written, and the
// contract bundled; then the copy's own service is started (its buildApp, over its files) and
// serves every operation of the new resource. No other file of the service is touched: handlers,
// store, SQL, constraint names, push and fixtures follow from those.
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import t from 'tap'
import { parse } from 'yaml'
import type { OpenApiDocument } from '../../src/contract/openapi-document.ts'
import { listOperations } from '../../src/contract/openapi-document.ts'
import { createAjv, describeErrors } from '../../src/contract/validation.ts'
import { fixturesOf } from '../helpers/fixtures.ts'
import { checkResourceTable } from '../helpers/resource-tables.ts'
import { ADMIN_PASSWORD, freshDatabase } from '../helpers/service.ts'
import { PUSHED_FACTS } from '../../src/store/pushed-facts.ts'

const REPO = fileURLToPath(new URL('../../', import.meta.url))
const copy = await mkdtemp(join(tmpdir(), 'tenth-resource-'))
t.after(() => rm(copy, { recursive: true, force: true }))
for (const part of ['package.json', 'src', 'openapi', 'prisma/migrations', 'scripts/openapi-bundle.ts', 'scripts/openapi-templates.ts']) {
  await cp(join(REPO, part), join(copy, part), { recursive: true })
}
await symlink(join(REPO, 'node_modules'), join(copy, 'node_modules'), 'dir')

const KEY = 'emergencyDrill'
const PATH = `/prevent/${KEY}`

// 1. The schema file: its fields once and its add shape with an example; the other shapes (patch,
// record, search, batch, envelopes) come from openapi/src/templates/record-shapes.yaml.
const SCHEMA_FILE = `# EmergencyDrill: its fields and add shape; the derived shapes come from templates/record-shapes.yaml.
fields:
  id:
    $ref: "../components/scalars.yaml#/Id"
  drillNo:
    type: string
    minLength: 1
    maxLength: 64
    x-unique: true
  drillName:
    type: string
    minLength: 1
    maxLength: 200
  riskUnitId:
    anyOf:
      - $ref: "../components/scalars.yaml#/Id"
      - type: "null"
    x-references: riskUnit
  drillTime:
    $ref: "../components/scalars.yaml#/Instant"
  participantCount:
    type: integer
    minimum: 0
    maximum: 2147483647
  summary:
    type: [ string, "null" ]
    maxLength: 2000
EmergencyDrill:
  type: object
  additionalProperties: false
  description: An emergency drill (应急演练) of the enterprise, optionally within a risk analysis unit.
  required: [ id, drillNo, drillName, drillTime, participantCount ]
  properties:
    $ref: "#/fields"
  examples:
    - { id: ED-001, drillNo: YJ-2026-001, drillName: 液氨泄漏应急演练, riskUnitId: RU-001, drillTime: "2026-11-20T09:00:00+08:00", participantCount: 24, summary: null }
`
const SHAPES = ['', 'Patch', 'Record', 'Field', 'Search', 'Batch', 'RecordEnvelope', 'PageEnvelope'].map(
  (shape) => `EmergencyDrill${shape}`,
)

// 2. The paths file: the twelve shared operations of openapi/src/templates/record-operations.yaml,
// instantiated with the resource's own names, rules and examples.
const PATHS_FILE = `# Emergency drills (/prevent/emergencyDrill): the shared record operations and shapes (templates/).
templates: { operations: ../templates/record-operations.yaml, shapes: ../templates/record-shapes.yaml }
resource:
  module: prevent
  key: ${KEY}
  Key: EmergencyDrill
  one: emergency drill
  many: emergency drills
  unique: drillNo
  parents: "\`riskUnitId\` → riskUnit (when set)"
  missingId: ED-404
  messages:
    invalid: "drillName: must NOT have more than 200 characters"
    duplicate: "drillNo already exists: YJ-2026-001"
    missingReference: "riskUnitId: referenced riskUnit RU-404 does not exist"
  second: { id: ED-002, drillNo: YJ-2026-002, drillName: 储罐区火灾应急演练, riskUnitId: null, drillTime: "2026-11-21T09:00:00+08:00", participantCount: 30, summary: null }
  patch: { id: ED-001, summary: 演练结束，评估合格 }
  search: { pageNum: 1, pageSize: 20, conditions: [ { field: drillName, op: like, value: 液氨 } ] }
  history:
    - { version: 1, action: add, time: "2026-11-21T13:02:35+08:00", userName: zhangwei, changes: { id: [ null, ED-001 ], drillNo: [ null, YJ-2026-001 ] } }
`
const OPERATIONS = Object.keys(
  (parse(await readFile(join(REPO, 'openapi/src/templates/record-operations.yaml'), 'utf8'), { merge: true }) as { operations: object })
    .operations,
)

// 3. The migration: the table, its reference and unique field named after the registry, and the
// table of its attachments.
const MIGRATION = `
CREATE TABLE emergency_drill (
  id                 text PRIMARY KEY,
  "drillNo"          text NOT NULL,
  "drillName"        text NOT NULL,
  "riskUnitId"       text,
  "drillTime"        timestamptz(3) NOT NULL,
  "participantCount" integer NOT NULL,
  summary            text,
  "companyCode" text NOT NULL, "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL,
  "createBy" text NOT NULL, "updateBy" text NOT NULL,
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_attempts integer NOT NULL DEFAULT 0, sync_error text, sync_rounds integer NOT NULL DEFAULT 0,
  UNIQUE (id, live),
  CONSTRAINT "emergency_drill_riskUnitId_ref" FOREIGN KEY ("riskUnitId", live) REFERENCES risk_unit (id, live)
);
CREATE UNIQUE INDEX "emergency_drill_drillNo_unique" ON emergency_drill ("drillNo") WHERE live;
CREATE INDEX emergency_drill_page ON emergency_drill ("updateTime" DESC, id) WHERE live;
CREATE INDEX emergency_drill_pending ON emergency_drill (sync_status) WHERE sync_status <> 'synced';
CREATE TABLE emergency_drill_attachment (
  id text NOT NULL,
  "companyCode" text NOT NULL,
  "recordId" text NOT NULL,
  "fileName" text NOT NULL,
  "contentType" text NOT NULL CHECK ("contentType" IN ('image/png', 'image/jpeg', 'application/pdf')),
  size integer NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  "createTime" timestamptz(3) NOT NULL, "updateTime" timestamptz(3) NOT NULL, "createBy" text NOT NULL, "updateBy" text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  live boolean DEFAULT true CHECK (live), "deleteTime" timestamptz(3),
  sync_status text NOT NULL DEFAULT 'pending' CHECK (sync_status IN ('pending', 'synced', 'failed')),
  sync_time timestamptz(3), sync_attempts integer NOT NULL DEFAULT 0, sync_error text, sync_rounds integer NOT NULL DEFAULT 0,
  PRIMARY KEY ("companyCode", id),
  CONSTRAINT "emergency_drill_attachment_recordId_ref" FOREIGN KEY ("recordId", live) REFERENCES emergency_drill (id, live)
);
CREATE INDEX emergency_drill_attachment_record ON emergency_drill_attachment ("recordId") WHERE live;
CREATE INDEX emergency_drill_attachment_unsynced ON emergency_drill_attachment ("updateTime", id) WHERE sync_status <> 'synced';
`

// 4. The registry entry.
const ENTRY = `  { key: '${KEY}', module: 'prevent', table: 'emergency_drill' },\n`

async function edit(file: string, change: (text: string) => string): Promise<void> {
  const path = join(copy, file)
  const before = await readFile(path, 'utf8')
  const after = change(before)
  if (after === before) throw new Error(`${file}: the recipe's edit did not apply`)
  await writeFile(path, after)
}

await writeFile(join(copy, `openapi/src/resources/${KEY}.yaml`), SCHEMA_FILE)
await writeFile(join(copy, `openapi/src/paths/${KEY}.yaml`), PATHS_FILE)
// The root and ResourceKey are edited as a person would: lines inserted, nothing else reformatted.
await edit('openapi/src/openapi.yaml', (text) => {
  const paths = OPERATIONS.map(
    (segment) => `  ${PATH}/${segment}:\n    $ref: ./paths/${KEY}.yaml#/${`${PATH}/${segment}`.replaceAll('/', '~1')}\n`,
  ).join('')
  const schemas = SHAPES.map((name) => `    ${name}:\n      $ref: ./resources/${KEY}.yaml#/${name}\n`).join('')
  return text.replace('\ncomponents:\n', `\n${paths}components:\n`).replace('\n  schemas:\n', `\n  schemas:\n${schemas}`)
})
await edit('openapi/src/components/scalars.yaml', (text) =>
  text.replace(/(\nResourceKey:\n {2}type: string\n {2}enum: \[[^\]]*?) \]/, `$1, ${KEY} ]`),
)
const versions = (await readdir(join(copy, 'prisma/migrations'))).map((name) => Number(/^(\d+)\.do\./.exec(name)?.[1] ?? 0))
const version = String(Math.max(...versions) + 1).padStart(3, '0')
await writeFile(join(copy, `prisma/migrations/${version}.do.emergency-drill.sql`), MIGRATION)
await edit('src/resources/resource-registry.ts', (text) =>
  text.replace(/(const ENTRIES: Entry\[\] = \[\n[\s\S]*?\n)(\]\n)/, `$1${ENTRY}$2`),
)

// `npm run generate`'s bundle step, run by the copy's own script over the copy's parts.
const inCopy = (file: string) => pathToFileURL(join(copy, file)).href
const bundler = (await import(inCopy('scripts/openapi-bundle.ts'))) as typeof import('../../scripts/openapi-bundle.ts')
const bundled = await bundler.renderBundledOpenApi()
await writeFile(join(copy, 'openapi/openapi.yaml'), bundled)
await mkdir(join(copy, 'generated'))
await writeFile(join(copy, 'generated/openapi.json'), bundler.renderOpenApiJson(bundled))
const document = parse(bundled) as OpenApiDocument

// The copy's service, built by its own composition root over its own files.
const { buildApp } = (await import(inCopy('src/app.ts'))) as typeof import('../../src/app.ts')
const { loadConfig } = (await import(inCopy('src/config.ts'))) as typeof import('../../src/config.ts')
const { openDatabase } = (await import(inCopy('src/store/database.ts'))) as typeof import('../../src/store/database.ts')
const databaseUrl = await freshDatabase(t)
const database = openDatabase(databaseUrl, { max: 4 })
const app = await buildApp({
  config: loadConfig({ DATABASE_URL: databaseUrl, ADMIN_PASSWORD, LOG_LEVEL: 'silent' }),
  database,
  logger: false,
})
t.after(async () => {
  await app.close()
  await database.close()
})
const address = await app.fastify.listen({ port: 0, host: '127.0.0.1' })

// Every answer is checked against the copy's document, as test/helpers/service.ts does for the nine.
const ajv = createAjv()
const operationsByPath = new Map(listOperations(document).map((operation) => [operation.path, operation]))
async function call(path: string, body: unknown, token?: string): Promise<{ msg: string; code: number; data: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const response = await fetch(address + path, { method: 'POST', headers, body: JSON.stringify(body) })
  const answer: unknown = await response.json()
  const schema = operationsByPath.get(path)?.spec.responses?.['200']?.content?.['application/json']?.schema
  if (!schema) throw new Error(`${path}: no 200 answer in the document`)
  const validate = ajv.compile({ ...schema, components: document.components })
  if (response.status !== 200 || !validate(answer)) {
    throw new Error(`${path} answered ${response.status} off the document: ${describeErrors(validate.errors)}: ${JSON.stringify(answer)}`)
  }
  return answer as { msg: string; code: number; data: any }
}
const token = (await call('/system/login', { userName: 'admin', password: ADMIN_PASSWORD })).data.token as string
const { ResourceRegistry } = (await import(
  inCopy('src/resources/resource-registry.ts')
)) as typeof import('../../src/resources/resource-registry.ts')
const fixtures = fixturesOf(document, new ResourceRegistry(document))

t.test('the recipe gives the document the resource: its operations and its registry entry', async (t) => {
  const own = listOperations(document).filter((operation) => operation.spec['x-resource'] === KEY)
  t.same(own.map((operation) => operation.path).sort(), OPERATIONS.map((segment) => `${PATH}/${segment}`).sort())
  const resource = fixtures.registry.get(KEY)
  t.same(resource.uniqueFields, ['drillNo'])
  t.same(resource.references, [{ field: 'riskUnitId', parent: 'riskUnit' }])
  t.equal(fixtures.paths[KEY], PATH)
  t.same(fixtures.parents[KEY], ['riskUnitId', 'riskUnit'])
})

t.test('its contract source is small: two short files and its lines in the root', async (t) => {
  const lines = (text: string) => text.trimEnd().split('\n').length
  const added = async (file: string) => lines(await readFile(join(copy, file), 'utf8')) - lines(await readFile(join(REPO, file), 'utf8'))
  const total =
    lines(SCHEMA_FILE) +
    lines(PATHS_FILE) +
    (await added('openapi/src/openapi.yaml')) +
    (await added('openapi/src/components/scalars.yaml'))
  t.ok(total <= 150, `${total} lines of contract source`)
  const add = listOperations(document).find((operation) => operation.path === `${PATH}/add`)!.spec
  t.equal(add.summary, 'Add an emergency drill', 'the shared operations speak of the resource by its own name')
  t.match(add.description, /uniqueness of `drillNo` among live records \(1001\)/, 'and state its own rules')
})

t.test('the migration built the table the schema declares', async (t) => {
  await checkResourceTable(t, database.pool, document, fixtures.registry.get(KEY))
})

t.test('the service serves the tenth resource: every operation', async (t) => {
  t.equal((await call('/prevent/riskUnit/add', fixtures.record('riskUnit', 'RU-1'), token)).code, 0)
  const drill = fixtures.record(KEY, 'ED-1', { riskUnitId: 'RU-1', drillTime: '2026-11-20T01:00:00Z' })
  t.same(await call(`${PATH}/add`, drill, token), { msg: '', code: 0, data: null, success: true })

  const read = (await call(`${PATH}/getById`, { id: 'ED-1' }, token)).data
  t.match(read, { ...drill, drillTime: '2026-11-20T09:00:00+08:00', createBy: 'admin', sync_status: 'pending' })
  t.equal(read.drillNo, 'DN-ED-1', 'the fixture derived the unique field from the id')

  t.same((await call(`${PATH}/list`, { pageNum: 1, pageSize: 10 }, token)).data.total, 1)
  const search = (conditions: unknown[]) => call(`${PATH}/search`, { conditions }, token)
  t.equal((await search([{ field: 'drillName', op: 'like', value: drill.drillName.slice(2, 6) }])).data.total, 1)
  t.equal((await search([{ field: 'participantCount', op: 'gt', value: drill.participantCount }])).data.total, 0)
  t.equal((await search([{ field: 'noSuchField', op: 'eq', value: 1 }])).code, 1002)

  t.equal((await call(`${PATH}/update`, { id: 'ED-1', drillName: 'renamed' }, token)).code, 0)
  t.equal((await call(`${PATH}/getById`, { id: 'ED-1' }, token)).data.drillName, 'renamed')
  t.same((await call(`${PATH}/add-batch`, { list: [fixtures.record(KEY, 'ED-2')] }, token)).data, { succeeded: ['ED-2'], failed: [] })

  // The rules the document and the migration state, told apart by constraint name through the registry.
  t.equal((await call(`${PATH}/add`, fixtures.record(KEY, 'ED-3', { drillNo: 'DN-ED-1' }), token)).code, 1001, 'unique drillNo')
  t.equal((await call(`${PATH}/add`, fixtures.record(KEY, 'ED-4', { riskUnitId: 'RU-404' }), token)).code, 1006, 'missing parent')
  t.equal((await call(`${PATH}/add`, { ...drill, participantCount: -1 }, token)).code, 1002, 'schema')
  t.equal((await call('/prevent/riskUnit/delete', { id: 'RU-1' }, token)).code, 1012, 'a live drill still names the unit')

  // Its history and attachments, kept by the shared record_history and its own attachment table.
  const history = (await call(`${PATH}/history`, { id: 'ED-1' }, token)).data
  t.equal(history.total, 2, 'add and update')
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
  const attachment = { id: 'EDA-1', recordId: 'ED-2', fileName: 'drill.png', contentType: 'image/png', content: png.toString('base64') }
  t.equal((await call(`${PATH}/attachment/add`, attachment, token)).code, 0)
  t.equal((await call(`${PATH}/attachment/list`, { recordId: 'ED-2' }, token)).data.list.length, 1)
  t.equal((await call(`${PATH}/attachment/get`, { id: 'EDA-1' }, token)).data.content, attachment.content)
  t.equal((await call(`${PATH}/delete`, { id: 'ED-2' }, token)).code, 1012, 'a live attachment still names the drill')
  t.equal((await call(`${PATH}/attachment/delete`, { id: 'EDA-1' }, token)).code, 0)
  t.equal((await call(`${PATH}/delete`, { id: 'ED-2' }, token)).code, 0)

  t.equal((await call(`${PATH}/delete`, { id: 'ED-1' }, token)).code, 0)
  t.equal((await call(`${PATH}/getById`, { id: 'ED-1' }, token)).code, 1004)
  t.equal((await call(`${PATH}/add`, drill, token)).code, 1003, 'ids are never reused')
  t.equal((await call('/prevent/riskUnit/delete', { id: 'RU-1' }, token)).code, 0)
})

t.test('the operators see it: sync status counts its records and attachments', async (t) => {
  const status = (await call('/system/sync/status', {}, token)).data
  t.equal(
    status.resources.length,
    fixtures.registry.pushed.length * 2 + PUSHED_FACTS.length,
    'records and attachments of each resource and of the alarms, and each kind of supervision fact',
  )
  t.match(
    status.resources.find((counts: { resource: string }) => counts.resource === KEY),
    { resource: KEY, pending: 2 },
    'two tombstones to push',
  )
})

t.end()
