// The step before the bundle (scripts/openapi-templates.ts): a resource's paths file that names the
// shared templates gets their operations and shapes, filled with its own values, and nothing else.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parse } from 'yaml'
import { instantiateTemplates } from '../../scripts/openapi-templates.ts'

const OPERATIONS = `
shared:
  errors: &errors
    "500": { $ref: ../components/errors.yaml#/InternalError }
  notAnAuthor: the park is not an author
operations:
  add:
    post:
      summary: "{{A}} {{one}} added"
      description: "Checks: schema (1002){{#unique}} → uniqueness of {{unique}} (1001){{/unique}}. {{notAnAuthor}}"
      operationId: "{{module}}{{Key}}Add"
      requestBody: { content: { application/json: { examples: { one: { value: "{{record}}" } } } } }
      responses:
        "200":
          description: codes 0, 1002{{#unique}}, 1001{{/unique}}
          content:
            application/json:
              examples:
                duplicate{{^unique}}None{{/unique}}: { value: "{{record.id}}" }
                "{{#unique}}duplicateUnique{{/unique}}": { value: "{{unique}} already used" }
        <<: *errors
  list:
    post:
      summary: List {{many}}
      description: "first: {{record.id}}"
      responses: { "200": { description: ok }, <<: *errors }
  misspelt:
    post: { summary: "Add {{a}} {{oen}}" }
`
const SHAPES = `
"{{Key}}Field":
  type: string
  enum: [ "{{...fieldNames}}", companyCode ]
"{{Key}}Patch":
  examples: [ "{{patch}}" ]
`
const SCHEMA = `
fields: { id: { type: string }, drillNo: { type: string } }
EmergencyDrill:
  examples: [ { id: ED-1, drillNo: D-1 } ]
`
const declaration = (values: string) => `
templates: { operations: ../templates/operations.yaml, shapes: ../templates/shapes.yaml }
resource:
  module: prevent
  key: emergencyDrill
  Key: EmergencyDrill
  one: emergency drill
  many: emergency drills
${values}
/prevent/emergencyDrill/own:
  post: { summary: an operation of its own }
`

async function instantiate(t: { teardown(fn: () => unknown): void }, values: string, schema = SCHEMA) {
  const source = await mkdtemp(join(tmpdir(), 'openapi-templates-test-'))
  for (const directory of ['templates', 'paths', 'resources']) await mkdir(join(source, directory))
  await writeFile(join(source, 'templates/operations.yaml'), OPERATIONS)
  await writeFile(join(source, 'templates/shapes.yaml'), SHAPES)
  await writeFile(join(source, 'resources/emergencyDrill.yaml'), schema)
  await writeFile(join(source, 'paths/emergencyDrill.yaml'), declaration(values))
  await writeFile(join(source, 'paths/system.yaml'), '/system/login: { post: { summary: "untouched {{x}}" } }\n')
  t.teardown(() => rm(source, { recursive: true, force: true }))
  const copy = await instantiateTemplates(source)
  t.teardown(() => rm(copy, { recursive: true, force: true }))
  const read = async (file: string) => parse(await readFile(join(copy, file), 'utf8')) as Record<string, any>
  return { paths: await read('paths/emergencyDrill.yaml'), schemas: await read('resources/emergencyDrill.yaml'), copy }
}

t.test("each operation is written under /{module}/{key}/{operation} with the resource's names and values", async (t) => {
  const { paths } = await instantiate(t, '  operations: [ add, list ]\n  unique: drillNo\n  patch: { id: ED-1 }')
  const add = paths['/prevent/emergencyDrill/add'].post
  t.equal(add.summary, 'An emergency drill added')
  t.equal(add.operationId, 'preventEmergencyDrillAdd')
  t.equal(add.description, 'Checks: schema (1002) → uniqueness of drillNo (1001). the park is not an author')
  t.same(add.requestBody.content['application/json'].examples.one.value, { id: 'ED-1', drillNo: 'D-1' }, 'the add shape example')
  t.same(Object.keys(add.responses), ['200', '500'], 'the shared answers merged after its own')
  t.same(add.responses['200'].content['application/json'].examples, {
    duplicate: { value: 'ED-1' },
    duplicateUnique: { value: 'drillNo already used' },
  })
  t.same(paths['/prevent/emergencyDrill/own'], { post: { summary: 'an operation of its own' } }, 'its own operations are kept')
})

t.test('what a resource does not have is left out: sections, and entries whose key renders empty', async (t) => {
  const { paths, schemas } = await instantiate(t, '  operations: [ add ]\n  patch: { id: ED-1 }')
  const add = paths['/prevent/emergencyDrill/add'].post
  t.equal(add.description, 'Checks: schema (1002). the park is not an author')
  t.equal(add.responses['200'].description, 'codes 0, 1002')
  t.same(Object.keys(add.responses['200'].content['application/json'].examples), ['duplicateNone'])
  t.same(schemas.EmergencyDrillField.enum, ['id', 'drillNo', 'companyCode'], 'a list spread in place')
  t.same(schemas.EmergencyDrillPatch.examples, [{ id: 'ED-1' }])
  t.same(schemas.EmergencyDrill, { examples: [{ id: 'ED-1', drillNo: 'D-1' }] }, 'the hand-written shapes are kept')
})

t.test('only the declared operations and shapes are written; other files are copied as they are', async (t) => {
  const { paths, schemas, copy } = await instantiate(t, '  operations: [ list ]\n  shapes: [ Field ]')
  t.same(Object.keys(paths), ['/prevent/emergencyDrill/list', '/prevent/emergencyDrill/own'])
  t.notOk('EmergencyDrillPatch' in schemas)
  t.equal(await readFile(join(copy, 'paths/system.yaml'), 'utf8'), '/system/login: { post: { summary: "untouched {{x}}" } }\n')
})

t.test('records the service creates: no add shape, the example record given with the values', async (t) => {
  const { paths, schemas } = await instantiate(
    t,
    '  operations: [ list ]\n  shapes: [ Field ]\n  record: { id: MA-1 }',
    'fields: { id: { type: string } }\n',
  )
  t.equal(paths['/prevent/emergencyDrill/list'].post.description, 'first: MA-1')
  t.same(Object.keys(schemas), ['fields', 'EmergencyDrillField'])
})

t.test('a text placeholder without a value fails, naming the file and the placeholder', async (t) => {
  await t.rejects(instantiate(t, '  operations: [ misspelt ]'), /emergencyDrill\.yaml .*misspelt.*\{\{oen\}\} is not a text value/)
  await t.rejects(instantiate(t, '  operations: [ nothing ]'), /no operation nothing in the template/)
})

t.test('the contract cites no decision document, issue or work session: it says things in its own words', async (t) => {
  const root = fileURLToPath(new URL('../../openapi/src/', import.meta.url))
  const citations: string[] = []
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = join(entry.parentPath, entry.name)
    const text = await readFile(file, 'utf8')
    for (const match of text.matchAll(/\bCONTRACT\b|\bSPEC\b|§\s*\d|\b[Ii]ssue \d+|\bsession \d+/g)) citations.push(`${file}: ${match[0]}`)
  }
  t.same(citations, [])
})
