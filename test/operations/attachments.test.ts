// Attachments: files attached to records: types proven by their bytes, strict base64, a size
// limit (±1 byte), live records only, 1012 on deleting a record with live attachments, idempotent
// deletes, reads for every role and writes for operator and admin.
import { createHash } from 'node:crypto'
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()
const viewer = await service.userToken('viewer')
const operator = await service.userToken('operator')

export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\u0000 a tiny jpeg body'),
  Buffer.from([0xff, 0xd9]),
])
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1')
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const base = '/prevent/riskUnit/attachment'
const add = (body: Record<string, unknown>, as = token, headers?: Record<string, string>) =>
  service.call(
    `${base}/add`,
    { recordId: 'RU-A1', fileName: 'photo.png', contentType: 'image/png', content: PNG.toString('base64'), ...body },
    { token: as, headers },
  )

t.before(async () => {
  for (const id of ['RU-A1', 'RU-A2']) {
    const reply = await service.call('/prevent/riskUnit/add', record('riskUnit', id), { token })
    if (reply.body.code !== 0) throw new Error(reply.body.msg)
  }
})

t.test('each type is accepted and read back byte for byte; lists carry no bytes', async (t) => {
  const files = [
    { id: 'AT-PNG', fileName: 'before.png', contentType: 'image/png', bytes: PNG },
    { id: 'AT-JPG', fileName: 'after.JPG', contentType: 'image/jpeg', bytes: JPEG },
    { id: 'AT-PDF', fileName: '作业票 scan.pdf', contentType: 'application/pdf', bytes: PDF },
    { id: 'AT-NOEXT', fileName: 'certificate', contentType: 'application/pdf', bytes: PDF },
  ]
  for (const file of files) {
    const reply = await add(
      { id: file.id, fileName: file.fileName, contentType: file.contentType, content: file.bytes.toString('base64') },
      operator,
    )
    t.equal(reply.body.code, 0, `${file.contentType} ${file.fileName}: ${reply.body.msg}`)
  }
  const list = await service.call(`${base}/list`, { recordId: 'RU-A1' }, { token: viewer })
  t.equal(list.body.code, 0)
  const listed = list.body.data.list
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1)
  t.same(
    listed.map((item: any) => item.id),
    [...listed]
      .sort((a: any, b: any) => (a.createTime === b.createTime ? byId(a, b) : a.createTime < b.createTime ? -1 : 1))
      .map((item: any) => item.id),
    'oldest first (as createTime shows, to the second), then by id',
  )
  t.same(
    [...listed].sort(byId).map((item: any) => [item.id, item.size, item.sha256, item.sync_status, 'content' in item]),
    [...files].sort(byId).map((file) => [file.id, file.bytes.length, sha256(file.bytes), 'pending', false]),
  )
  t.equal(list.body.data.total, 4)
  for (const file of files) {
    const got = await service.call(`${base}/get`, { id: file.id }, { token: viewer })
    t.equal(got.body.code, 0)
    t.equal(sha256(Buffer.from(got.body.data.content, 'base64')), sha256(file.bytes), `${file.id} round-trips`)
    t.match(got.body.data, { recordId: 'RU-A1', fileName: file.fileName, contentType: file.contentType, createBy: 'operator-' })
  }
  const unit = await service.call('/prevent/riskUnit/getById', { id: 'RU-A1' }, { token })
  t.notOk(JSON.stringify(unit.body.data).includes(PNG.toString('base64').slice(0, 20)), 'the record read carries no bytes')
})

t.test('the bytes decide the type: a PNG named .pdf, a PNG declared PDF, text declared PNG are 1002', async (t) => {
  const pngAsPdfName = await add({ id: 'AT-X1', fileName: 'scan.pdf' })
  t.equal(pngAsPdfName.body.code, 1002)
  t.match(pngAsPdfName.body.msg, /fileName: extension \.pdf does not fit image\/png/)
  const pngDeclaredPdf = await add({ id: 'AT-X2', fileName: 'scan.pdf', contentType: 'application/pdf' })
  t.equal(pngDeclaredPdf.body.code, 1002)
  t.match(pngDeclaredPdf.body.msg, /content: not a PDF file/)
  const text = await add({ id: 'AT-X3', content: Buffer.from('just some text, not an image').toString('base64') })
  t.equal(text.body.code, 1002)
  t.match(text.body.msg, /content: not a PNG file/)
  t.equal((await add({ id: 'AT-X4', contentType: 'image/gif' })).body.code, 1002, 'an unlisted type')
  t.equal((await add({ id: 'AT-X5', content: '' })).body.code, 1002, 'no bytes at all')
  for (const id of ['AT-X1', 'AT-X2', 'AT-X3', 'AT-X4', 'AT-X5'])
    t.equal((await service.call(`${base}/get`, { id }, { token })).body.code, 1004)
})

t.test('base64 is checked strictly', async (t) => {
  const valid = PNG.toString('base64')
  for (const [label, content] of [
    ['a character outside the alphabet', `${valid.slice(0, 8)}#${valid.slice(9)}`],
    ['a line break', `${valid.slice(0, 20)}\n${valid.slice(20)}`],
    ['missing padding', valid.replace(/=+$/, '')],
    ['url-safe alphabet', valid.replace(/\+/g, '-').replace(/\//g, '_')],
    ['not base64 at all', 'hello world!'],
  ]) {
    const reply = await add({ id: 'AT-B64', content })
    t.equal(reply.body.code, 1002, label)
    t.match(reply.body.msg, /content/, label)
  }
})

t.test('the size limit: exactly ATTACHMENT_MAX_BYTES is accepted, one byte more is 1002 naming the limit', async (t) => {
  const limit = service.config.attachmentMaxBytes
  t.equal(limit, 5 * 1024 * 1024, 'the default is 5 MiB')
  const atLimit = Buffer.alloc(limit, 0x20)
  PNG.copy(atLimit)
  const accepted = await add({ id: 'AT-BIG', content: atLimit.toString('base64') })
  t.equal(accepted.body.code, 0, accepted.body.msg)
  const over = Buffer.concat([atLimit, Buffer.from([0x20])])
  const refused = await add({ id: 'AT-BIG2', content: over.toString('base64') })
  t.equal(refused.body.code, 1002)
  t.match(refused.body.msg, /5242880 bytes/)
  const got = await service.call(`${base}/get`, { id: 'AT-BIG' }, { token })
  t.equal(got.body.data.size, limit)
  t.equal(got.body.data.sha256, sha256(atLimit))
})

t.test('the record must be live (1006); ids are never reused (1003); names carry no path', async (t) => {
  t.equal((await add({ id: 'AT-R1', recordId: 'RU-NONE' })).body.code, 1006)
  t.equal((await service.call('/prevent/riskUnit/add', record('riskUnit', 'RU-GONE'), { token })).body.code, 0)
  t.equal((await service.call('/prevent/riskUnit/delete', { id: 'RU-GONE' }, { token })).body.code, 0)
  t.equal((await add({ id: 'AT-R2', recordId: 'RU-GONE' })).body.code, 1006, 'a deleted record')
  t.equal((await add({ id: 'AT-PNG' })).body.code, 1003, 'a live attachment id')
  for (const fileName of ['../etc/passwd.png', 'dir\\photo.png', '', 'x'.repeat(252) + '.png']) {
    t.equal((await add({ id: 'AT-N1', fileName })).body.code, 1002, JSON.stringify(fileName.slice(0, 20)))
  }
  t.equal((await add({ id: 'AT-N1', fileName: 'x'.repeat(251) + '.png' })).body.code, 0, '255 characters')
  // Characters, not UTF-16 units: 126 emoji and ".png" are 130 characters (256 units).
  const emoji = await add({ id: 'AT-N2', fileName: '📷'.repeat(126) + '.png' })
  t.equal(emoji.body.code, 0, `130 characters of emoji: ${emoji.body.msg}`)
  t.equal((await add({ id: 'AT-N3', fileName: '📷'.repeat(252) + '.png' })).body.code, 1002, '256 characters of emoji')
  t.equal((await add({ id: 'AT-P1', version: 3 })).body.code, 1002, 'a push-only field: attachment/add is never a push')
})

t.test('deleting a record with live attachments is 1012; deletes are idempotent tombstones', async (t) => {
  t.equal((await add({ id: 'AT-D1', recordId: 'RU-A2' })).body.code, 0)
  const refused = await service.call('/prevent/riskUnit/delete', { id: 'RU-A2' }, { token })
  t.equal(refused.body.code, 1012)
  t.match(refused.body.msg, /attachment/)
  t.equal((await service.call(`${base}/delete`, { id: 'AT-D1' }, { token })).body.code, 0)
  t.equal((await service.call(`${base}/delete`, { id: 'AT-D1' }, { token })).body.code, 0, 'again')
  t.equal((await service.call(`${base}/delete`, { id: 'AT-NEVER' }, { token })).body.code, 0, 'never existed')
  t.equal((await service.call(`${base}/get`, { id: 'AT-D1' }, { token })).body.code, 1004)
  t.same((await service.call(`${base}/list`, { recordId: 'RU-A2' }, { token })).body.data, { list: [], total: 0 })
  t.equal((await add({ id: 'AT-D1', recordId: 'RU-A1' })).body.code, 1003, 'a deleted attachment id stays taken')
  t.equal((await service.call('/prevent/riskUnit/delete', { id: 'RU-A2' }, { token })).body.code, 0, 'then the record can go')
})

t.test('roles: reads for every role, writes for operator and admin', async (t) => {
  t.equal((await add({ id: 'AT-V1' }, viewer)).status, 403)
  t.equal((await service.call(`${base}/delete`, { id: 'AT-PNG' }, { token: viewer })).status, 403)
  t.equal((await service.call(`${base}/get`, { id: 'AT-PNG' }, { token: viewer })).body.code, 0)
  t.equal((await service.call(`${base}/list`, { recordId: 'RU-A1' })).status, 401)
})

t.test("companyCode names the enterprise edition's own enterprise only: another finds nothing, as getById", async (t) => {
  const own = { companyCode: '000000000' }
  const other = { companyCode: '320115009' }
  t.equal((await service.call(`${base}/get`, { id: 'AT-PNG', ...own }, { token: viewer })).body.code, 0)
  t.equal((await service.call(`${base}/get`, { id: 'AT-PNG', ...other }, { token: viewer })).body.code, 1004)
  t.equal((await service.call('/prevent/riskUnit/getById', { id: 'RU-A1', ...other }, { token: viewer })).body.code, 1004)
  const listed = await service.call(`${base}/list`, { recordId: 'RU-A1', ...own }, { token: viewer })
  t.ok(listed.body.data.total > 0)
  t.same((await service.call(`${base}/list`, { recordId: 'RU-A1', ...other }, { token: viewer })).body.data, { list: [], total: 0 })
})

t.test('every resource has attachments; counts in /system/sync/status', async (t) => {
  const equip = record('monitorEquip', 'ME-A1')
  t.equal((await service.call('/hazard/monitorEquip/add', equip, { token })).body.code, 0)
  const reply = await service.call(
    '/hazard/monitorEquip/attachment/add',
    { id: 'AT-ME1', recordId: 'ME-A1', fileName: 'gauge.jpg', contentType: 'image/jpeg', content: JPEG.toString('base64') },
    { token },
  )
  t.equal(reply.body.code, 0)
  t.equal((await service.call('/hazard/monitorEquip/delete', { id: 'ME-A1' }, { token })).body.code, 1012)
  const status = await service.call('/system/sync/status', {}, { token })
  const counts = Object.fromEntries(status.body.data.resources.map((entry: any) => [entry.resource, entry.pending]))
  t.equal(counts['monitorEquip/attachment'], 1)
  t.ok(counts['riskUnit/attachment'] >= 5)
})

t.test('an Idempotency-Key replays the add', async (t) => {
  const headers = { 'idempotency-key': 'att-key-1' }
  t.equal((await add({ id: 'AT-IK' }, token, headers)).body.code, 0)
  t.equal((await add({ id: 'AT-IK' }, token, headers)).body.code, 0, 'replayed, not 1003')
  t.equal((await add({ id: 'AT-IK', fileName: 'other.png' }, token, headers)).body.code, 1007)
})

t.end()
