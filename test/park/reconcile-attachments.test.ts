// Reconciliation covers attachments, with real processes: an
// attachment removed from the park's database by hand, or held there at an older version (as after
// a restore from an older dump), is found by comparing digests and pushed again, and the park then
// holds the very bytes sent (sha256). When nothing differs, a reconciliation reads one digest per
// pushed kind's records and one per kind's attachments, and pushes nothing.
import { createHash } from 'node:crypto'
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually, everythingPushed, loginTo, post, sqlOn as sql, startEdition, startParkProcess } from '../helpers/park.ts'
import { parsePrometheusText } from '../helpers/prometheus-text.ts'

const COMPANY = '444444444'
const park = await startParkProcess(t)
const parkToken = await loginTo(park.url)
const account = await post(
  `${park.url}/system/user/add`,
  { userName: 'ent-attach', password: 'password-attach', role: 'enterprise', companyCode: COMPANY },
  parkToken,
)
t.equal(account.code, 0, 'the enterprise account of the park')
const enterprise = await startEdition(t, {
  edition: 'enterprise',
  env: {
    COMPANY_CODE: COMPANY,
    PARK_URL: park.url,
    PARK_USER: 'ent-attach',
    PARK_PASSWORD: 'password-attach',
    SYNC_RETRY_DELAY_MAX_SECONDS: '1',
  },
})
const token = await loginTo(enterprise.url)
const onEnterprise = (path: string, body: unknown) => post(`${enterprise.url}${path}`, body, token)
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('a small jpeg'), Buffer.from([0xff, 0xd9])])
const PDF = Buffer.from('%PDF-1.7\n%%EOF\n', 'latin1')
const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'application/pdf': 'pdf' }
const SENT: { path: string; table: string; id: string; recordId: string; contentType: string; bytes: Buffer }[] = [
  { path: '/prevent/riskUnit', table: 'risk_unit_attachment', id: 'AT-PNG', recordId: 'RU-R1', contentType: 'image/png', bytes: PNG },
  { path: '/prevent/riskUnit', table: 'risk_unit_attachment', id: 'AT-JPG', recordId: 'RU-R2', contentType: 'image/jpeg', bytes: JPEG },
  {
    path: '/prevent/riskUnit',
    table: 'risk_unit_attachment',
    id: 'AT-GONE',
    recordId: 'RU-R2',
    contentType: 'application/pdf',
    bytes: PDF,
  },
  {
    path: '/hazard/monitorEquip',
    table: 'monitor_equip_attachment',
    id: 'AT-PDF',
    recordId: 'ME-R1',
    contentType: 'application/pdf',
    bytes: PDF,
  },
]

/** Everything pushed: no record, attachment nor fact pending or failed on the enterprise. */
async function settled(): Promise<boolean> {
  const status = await onEnterprise('/system/sync/status', {})
  return status.code === 0 && everythingPushed(status.data)
}

/** Requests the park answered, by operation, from its /metrics. */
async function parkRequests(operation: string): Promise<number> {
  const metrics = parsePrometheusText(await (await fetch(`${park.url}/metrics`)).text())
  return metrics.samples
    .filter((sample) => sample.name === 'api_requests_total' && sample.labels.operation === operation)
    .reduce((sum, sample) => sum + sample.value, 0)
}

/** Each attachment on one side, by table: id, version, state and, when live, its file and the sha256 of the bytes held. */
async function attachmentRows(databaseUrl: string): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {}
  for (const table of ['risk_unit_attachment', 'monitor_equip_attachment']) {
    all[table] = await sql(
      databaseUrl,
      // A tombstone is pushed without its bytes: compared by id, version and state.
      `SELECT id, "recordId", version::int, live, CASE WHEN live THEN "fileName" END AS "fileName", ` +
        `CASE WHEN live THEN "contentType" END AS "contentType", CASE WHEN live THEN size END AS size, ` +
        `CASE WHEN live THEN sha256 END AS sha256, CASE WHEN live THEN encode(sha256(content), 'hex') END AS held ` +
        `FROM ${table} WHERE "companyCode" = $1 ORDER BY id`,
      [COMPANY],
    )
  }
  return all
}

{
  for (const id of ['RU-R1', 'RU-R2']) t.equal((await onEnterprise('/prevent/riskUnit/add', record('riskUnit', id))).code, 0)
  t.equal((await onEnterprise('/hazard/monitorEquip/add', record('monitorEquip', 'ME-R1'))).code, 0)
  for (const sent of SENT) {
    const body = {
      id: sent.id,
      recordId: sent.recordId,
      fileName: `${sent.id}.${EXTENSIONS[sent.contentType]}`,
      contentType: sent.contentType,
      content: sent.bytes.toString('base64'),
    }
    const added = await onEnterprise(`${sent.path}/attachment/add`, body)
    t.equal(added.code, 0, `${sent.id} added: ${added.msg}`)
  }
  t.equal((await onEnterprise('/prevent/riskUnit/attachment/delete', { id: 'AT-GONE' })).code, 0, 'a tombstone too')
  await eventually(settled, { timeoutMs: 60_000, what: 'everything pushed' })
}

t.test('nothing differs: one digest per kind and per kind\u2019s attachments, nothing pushed again', async (t) => {
  const [digestsBefore, pushesBefore] = [await parkRequests('systemSyncDigest'), await parkRequests('preventRiskUnitAttachmentAdd')]
  const answer = await onEnterprise('/system/sync/reconcile', {})
  t.equal(answer.code, 0, answer.msg)
  t.match(answer.data, { differences: 0, repushed: 0, error: null })
  const facts = ['enterpriseZone', 'workCalendar', 'inspectionPeriod']
  t.same(
    answer.data.attachments.map((entry: any) => entry.resource),
    answer.data.resources.map((entry: any) => entry.resource).filter((key: string) => !facts.includes(key)),
    'attachments of every resource and of the alarms compared',
  )
  t.match(
    answer.data.attachments.find((entry: any) => entry.resource === 'riskUnit'),
    { enterprise: 3, park: 3, missing: 0, stale: 0, parkOnly: 0, ids: [] },
    'the tombstone counted on both sides',
  )
  t.match(
    answer.data.attachments.find((entry: any) => entry.resource === 'monitorEquip'),
    { enterprise: 1, park: 1 },
  )
  const expected = digestsBefore + answer.data.resources.length + answer.data.attachments.length
  // The park counts a request once its answer is sent: wait for the count, then check it is exact.
  await eventually(async () => (await parkRequests('systemSyncDigest')) >= expected, { what: 'the digest calls counted' })
  t.equal(await parkRequests('systemSyncDigest'), expected, 'no bucket split, no record listed')
  t.equal(await parkRequests('preventRiskUnitAttachmentAdd'), pushesBefore, 'no attachment pushed again')
  t.ok(await settled(), 'nothing marked pending')
})

t.test('an attachment deleted by hand on the park, another held at an older version: found, pushed again, bytes equal', async (t) => {
  const before = await attachmentRows(enterprise.databaseUrl)
  t.same(await attachmentRows(park.databaseUrl), before, 'the park holds what the enterprise holds')
  const removed = await sql(park.databaseUrl, `DELETE FROM risk_unit_attachment WHERE "companyCode" = $1 AND id = 'AT-PNG' RETURNING id`, [
    COMPANY,
  ])
  t.equal(removed.length, 1, 'removed on the park by hand')
  // As a restore from an older dump would leave it: an earlier version, other bytes.
  await sql(
    park.databaseUrl,
    `UPDATE monitor_equip_attachment SET version = version - 1, content = '\\x00'::bytea, size = 1 WHERE "companyCode" = $1 AND id = 'AT-PDF'`,
    [COMPANY],
  )
  const found = await onEnterprise('/system/sync/reconcile', {})
  t.equal(found.data.error, null, 'the reconciliation completed')
  t.match(
    found.data.attachments.find((entry: any) => entry.resource === 'riskUnit'),
    { enterprise: 3, park: 2, missing: 1, stale: 0, ids: ['AT-PNG'] },
  )
  t.match(
    found.data.attachments.find((entry: any) => entry.resource === 'monitorEquip'),
    { missing: 0, stale: 1, ids: ['AT-PDF'] },
  )
  t.match(found.data, { differences: 2, repushed: 2 })
  t.ok(
    found.data.resources.every((entry: any) => entry.missing + entry.stale + entry.parkOnly === 0),
    'the records themselves did not differ',
  )
  await eventually(settled, { timeoutMs: 60_000, what: 'the attachments pushed again' })
  t.same(await attachmentRows(park.databaseUrl), before, 'the park holds them again, byte for byte')
  const got = await post(`${park.url}/prevent/riskUnit/attachment/get`, { id: 'AT-PNG' }, parkToken)
  t.equal(got.code, 0, got.msg)
  t.equal(
    sha256(Buffer.from(got.data.content, 'base64')),
    sha256(PNG),
    'read back through the park\u2019s API: the sha256 of the bytes sent',
  )
  t.equal(got.data.sha256, sha256(PNG))
  const again = await onEnterprise('/system/sync/reconcile', {})
  t.match(again.data, { differences: 0, repushed: 0 }, 'nothing differs any more')
  const status = await onEnterprise('/system/sync/status', {})
  t.same(
    status.data.reconcile.attachments.length,
    again.data.attachments.length,
    'the last result, attachments included, is part of the status',
  )
})

t.end()
