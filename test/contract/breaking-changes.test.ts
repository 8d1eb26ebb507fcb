// The document may grow but not break its clients: openapi/openapi.yaml against the latest released
// document (openapi/released/openapi-<version>.yaml), by scripts/contract-diff.ts. The comparison is
// proven to catch what it claims to on mutated copies of the released document.

import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { stringify } from 'yaml'
import { breakingChanges, CURRENT_DOCUMENT, latestReleased, loadDocument } from '../../scripts/contract-diff.ts'

const RELEASED = latestReleased()
const released = loadDocument(RELEASED)
const CLI = fileURLToPath(new URL('../../scripts/contract-diff.ts', import.meta.url))

t.test(`openapi/openapi.yaml breaks nothing of the released ${basename(RELEASED)}`, async (t) => {
  const changes = breakingChanges(released, loadDocument(CURRENT_DOCUMENT))
  // On failure: restore what clients rely on (make it an addition), or release a new major version.
  t.same(changes, [], 'no breaking change (run `node scripts/contract-diff.ts` for the list)')
})

t.test('the released document is named after its info.version', async (t) => {
  t.equal(basename(RELEASED), `openapi-${released.info.version}.yaml`)
  t.same(breakingChanges(released, structuredClone(released)), [], 'a document does not break itself')
})

// Pushes to the park have operations of their own (/system/push/*); add-batch and attachment/add are
// business writes only, and X-Sync-Push, their push header in the released document, means nothing.
// It stays declared, deprecated, so that a client of the released document still sends requests the
// document accepts; dropping it would be a breaking change, and is reported as one.
t.test('X-Sync-Push stays declared, deprecated: removing it is reported as breaking', async (t) => {
  const current = loadDocument(CURRENT_DOCUMENT)
  // The business records' writes; live monitoring's (readings, alarm photos) came after the header.
  const pushable = Object.entries<any>(current.paths).filter(
    ([path]) => /\/(add-batch|attachment\/add)$/.test(path) && !/^\/hazard\/monitor(Data|Alarm)\//.test(path),
  )
  t.ok(pushable.length > 0)
  for (const [path, item] of pushable) {
    const header = item.post.parameters
      .map((parameter: any) => (parameter.$ref ? current.components.parameters[parameter.$ref.split('/').at(-1)] : parameter))
      .find((parameter: any) => parameter.name === 'X-Sync-Push')
    t.equal(header?.deprecated, true, `${path}: X-Sync-Push declared, deprecated`)
  }
  const withoutHeader = structuredClone(current)
  for (const [path] of pushable) {
    const operation = withoutHeader.paths[path].post
    operation.parameters = operation.parameters.filter((parameter: any) => !/SyncPush$/.test(parameter.$ref ?? ''))
  }
  t.match(breakingChanges(released, withoutHeader).join('\n'), /X-Sync-Push/, 'its removal breaks clients of the released document')
})

/** A copy of the released document, changed by `mutate`. */
function mutated(mutate: (document: Record<string, any>, schemas: Record<string, any>) => void): Record<string, any> {
  const copy = structuredClone(released)
  mutate(copy, copy.components.schemas)
  return copy
}

t.test('a mutated copy: every kind of breaking change is reported, each once, with where it is used', async (t) => {
  const broken = mutated((document, schemas) => {
    delete document.paths['/prevent/riskUnit/delete'] // operation removed
    delete schemas.RiskUnit.properties.hazardDep // request field removed
    delete schemas.RiskUnitRecord.properties.hazardDep // response field removed
    schemas.RiskUnitRecord.required = schemas.RiskUnitRecord.required.filter((field: string) => field !== 'hazardDep')
    schemas.SearchOperator.enum = schemas.SearchOperator.enum.filter((value: string) => value !== 'like') // enum value removed
    schemas.RiskUnit.properties.riskLevel.enum = ['1', '2', '3', null] // enum value removed (inline)
    schemas.RiskUnit.required.push('hazardCode') // field newly required
    schemas.RiskUnit.properties.longitude = { $ref: '#/components/schemas/Longitude' } // null no longer accepted
    schemas.RiskUnit.properties.riskUnitName.maxLength = 100 // constraint tightened
    schemas.RiskUnitRecord.properties.createBy.type = ['string', 'null'] // response may now be null
    delete schemas.BatchResult.properties.failed.items.properties.reason // deep: envelope → oneOf → $ref → array item
    delete document.paths['/prevent/riskUnit/add'].post.parameters // Idempotency-Key no longer taken
  })
  const changes = breakingChanges(released, broken)
  const expected = [
    'operation removed: POST /prevent/riskUnit/delete (preventRiskUnitDelete)',
    'request field removed: RiskUnit.hazardDep [POST /prevent/riskUnit/add, POST /prevent/riskUnit/add-batch]',
    'response field removed: RiskUnitRecord.hazardDep [POST /prevent/riskUnit/getById, POST /prevent/riskUnit/list, POST /prevent/riskUnit/search]',
    'request enum value removed: SearchOperator "like" [POST /hazard/monitorEquip/search, POST /prevent/riskUnit/search, POST /prevent/riskEvents/search and 6 more]',
    'request enum value removed: RiskUnit.riskLevel "4" [POST /prevent/riskUnit/add, POST /prevent/riskUnit/add-batch]',
    'request field newly required: RiskUnit.hazardCode [POST /prevent/riskUnit/add, POST /prevent/riskUnit/add-batch]',
    'request type narrowed: RiskUnit.longitude (number | null → number) [POST /prevent/riskUnit/add, POST /prevent/riskUnit/add-batch]',
    'request constraint tightened: RiskUnit.riskUnitName maxLength 200 → 100 [POST /prevent/riskUnit/add, POST /prevent/riskUnit/add-batch]',
    'response type widened: RiskUnitRecord.createBy (string → string | null) [POST /prevent/riskUnit/getById, POST /prevent/riskUnit/list, POST /prevent/riskUnit/search]',
    'response field removed: BatchResult.failed[].reason [POST /hazard/monitorEquip/add-batch, POST /prevent/riskUnit/add-batch, POST /prevent/riskEvents/add-batch and 6 more]',
    'request header parameter Idempotency-Key removed [POST /prevent/riskUnit/add]',
  ]
  for (const change of expected) t.ok(changes.includes(change), change)
  const unexpected = changes.filter((change) => !expected.includes(change))
  t.same(unexpected, [], 'nothing else reported')
  t.equal(new Set(changes).size, changes.length, 'each change named once')
})

t.test('an operation, a field, an enum value removed: each alone is reported', async (t) => {
  t.same(
    breakingChanges(
      released,
      mutated((document) => delete document.paths['/system/user/list']),
    ),
    ['operation removed: POST /system/user/list (systemUserList)'],
  )
  t.same(
    breakingChanges(
      released,
      mutated((_, schemas) => delete schemas.LoginRequest.properties.password),
    ),
    ['request field removed: LoginRequest.password [POST /system/login]'],
  )
  t.same(
    breakingChanges(
      released,
      mutated((_, schemas) => (schemas.Role.enum = ['admin', 'operator'])),
    ),
    [
      'request enum value removed: Role "viewer" [POST /system/user/add, POST /system/user/update]',
      'response enum value removed: Role "viewer" [POST /system/user/list]',
    ],
  )
})

t.test('a number narrowed to an integer, through a $ref and through anyOf', async (t) => {
  // Named at the component where it is used as such, and at each field that makes it nullable.
  t.same(
    breakingChanges(
      released,
      mutated((_, schemas) => (schemas.Latitude.type = 'integer')),
    ),
    [
      'request type narrowed: Latitude (number → integer) [POST /hazard/monitorEquip/add, POST /hazard/monitorEquip/update, POST /hazard/monitorEquip/add-batch]',
      'request type narrowed: RiskUnit.latitude (number | null → integer | null) [POST /prevent/riskUnit/add, POST /prevent/riskUnit/add-batch]',
      'request type narrowed: RiskUnitPatch.latitude (number | null → integer | null) [POST /prevent/riskUnit/update]',
      'request type narrowed: TicketBaseInfo.latitude (number | null → integer | null) [POST /prevent/ticketBaseInfo/add, POST /prevent/ticketBaseInfo/add-batch]',
      'request type narrowed: TicketBaseInfoPatch.latitude (number | null → integer | null) [POST /prevent/ticketBaseInfo/update]',
    ],
  )
})

t.test('composed schemas (allOf of the parts under openapi/src/) are seen through', async (t) => {
  const current = loadDocument(CURRENT_DOCUMENT)
  const changed = (mutate: (schemas: Record<string, any>) => void) => {
    const copy = structuredClone(current)
    mutate(copy.components.schemas)
    return breakingChanges(current, copy)
  }
  t.ok(
    changed((schemas) => delete schemas.ServerKeptFields.properties.createBy).includes(
      'response field removed: RiskUnitRecord.createBy [POST /prevent/riskUnit/getById, POST /prevent/riskUnit/list, POST /prevent/riskUnit/search]',
    ),
    'a server-kept field removed from every record',
  )
  t.ok(
    changed((schemas) => (schemas.Search.properties.conditions.maxItems = 10)).includes(
      'request constraint tightened: RiskUnitSearch.conditions maxItems 20 → 10 [POST /prevent/riskUnit/search]',
    ),
    'a constraint of the shared search body tightened',
  )
  t.ok(
    changed((schemas) => delete schemas.Page.properties.total).includes(
      'response field removed: RiskUnitPageEnvelope.data.total [POST /prevent/riskUnit/list, POST /prevent/riskUnit/search]',
    ),
    'a field of the shared page removed',
  )
  t.ok(
    changed((schemas) => (schemas.Envelope.properties.code = { type: 'string' })).includes(
      'response type widened: NullEnvelope.code (integer → string) [POST /system/logout, POST /system/user/add, POST /system/user/update and 45 more]',
    ),
    'the shared envelope changed',
  )
})

t.test('additions break nothing', async (t) => {
  const grown = mutated((document, schemas) => {
    document.paths['/prevent/riskUnit/export'] = structuredClone(document.paths['/prevent/riskUnit/list'])
    document.paths['/prevent/riskUnit/export'].post.operationId = 'preventRiskUnitExport'
    schemas.RiskUnit.properties.remark = { type: ['string', 'null'], maxLength: 200 }
    schemas.RiskUnitPatch.properties.remark = { type: ['string', 'null'], maxLength: 200 }
    schemas.RiskUnitRecord.properties.remark = { type: ['string', 'null'], maxLength: 200 }
    schemas.RiskUnitRecord.required.push('remark') // a new field always present in answers
    schemas.ResourceKey.enum.push('newResource')
    schemas.SearchOperator.enum.push('between')
    schemas.RiskUnit.properties.riskUnitName.maxLength = 300 // a request constraint relaxed
    schemas.RiskUnit.required = ['id'] // a request field no longer required
    schemas.RiskUnit.properties.hazardCode.type = ['string', 'number', 'null'] // a request type widened
    schemas.RiskUnitRecord.properties.hazardCode.type = 'string' // an answer type narrowed
  })
  t.same(breakingChanges(released, grown), [])
})

t.test('from the command line: exit 1 with the list, exit 0 when nothing breaks', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'contract-diff-'))
  t.teardown(() => rm(directory, { recursive: true, force: true }))
  const brokenFile = join(directory, 'broken.yaml')
  await writeFile(brokenFile, stringify(mutated((document) => delete document.paths['/prevent/riskUnit/delete'])))

  const run = promisify(execFile)
  const failure = await run(process.execPath, [CLI, RELEASED, brokenFile]).then(
    () => undefined,
    (error: { code: number; stdout: string }) => error,
  )
  t.equal(failure?.code, 1, 'exit 1')
  t.match(failure?.stdout, /1 breaking change from .*\n- operation removed: POST \/prevent\/riskUnit\/delete \(preventRiskUnitDelete\)\n$/)

  const clean = await run(process.execPath, [CLI])
  t.match(clean.stdout, /^no breaking change from .*openapi-\d+\.\d+\.\d+\.yaml to .*openapi\.yaml\n$/)
})

t.end()
