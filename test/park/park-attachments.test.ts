// Attachments on the park: they are keyed by (companyCode, id), and several
// enterprises may use one attachment id or one record id. attachment/get and attachment/list then
// behave as getById: without `companyCode` they answer when one enterprise holds the id, 1002
// naming `companyCode` when several do, and the named enterprise's when it is given.
import t from 'tap'
import { pushedAttachment, pushedRecord } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const park = await startService(t, { env: { EDITION: 'park' } })
const admin = await park.login()
const A = '320115001'
const B = '320115002'

const PDF = Buffer.from('%PDF-1.7\n%%EOF\n', 'latin1')

/** An attachment as an enterprise pushes it (/system/push/attachment): a PDF naming its enterprise. */
const attachment = (id: string, recordId: string, companyCode: string) =>
  pushedAttachment(id, recordId, Buffer.concat([PDF, Buffer.from(companyCode)]), {
    companyCode,
    fields: { fileName: `${companyCode}.pdf`, contentType: 'application/pdf' },
  })
const push = { token: admin }

t.before(async () => {
  // RU-001 and RU-BARE are held by both enterprises, RU-A by A alone; RU-BARE has no attachments.
  const records = [...[A, B].flatMap((companyCode) => ['RU-001', 'RU-BARE'].map((id) => [id, companyCode])), ['RU-A', A]]
  const list = records.map(([id, companyCode]) => pushedRecord('riskUnit', id, { companyCode }))
  const pushed = await park.call('/system/push/records', { resource: 'riskUnit', list }, push)
  if (pushed.body.data.succeeded.length !== list.length) throw new Error(JSON.stringify(pushed.body))
  for (const body of [
    attachment('RA-2', 'RU-001', A),
    attachment('RA-2', 'RU-001', B),
    attachment('RA-B3', 'RU-001', B),
    attachment('RA-A1', 'RU-A', A),
  ]) {
    const reply = await park.call('/system/push/attachment', { resource: 'riskUnit', ...body }, push)
    if (reply.body.data?.held.length !== 1) throw new Error(JSON.stringify(reply.body))
  }
})

const get = (body: unknown, token: string) => park.call('/prevent/riskUnit/attachment/get', body, { token })
const list = (body: unknown, token: string) => park.call('/prevent/riskUnit/attachment/list', body, { token })
const keys = (reply: { body: { data: { list: { id: string; companyCode: string }[] } } }) =>
  reply.body.data.list.map((item) => `${item.id}/${item.companyCode}`)

t.test('attachment/get of an id several enterprises hold answers 1002 naming companyCode; with it, that one', async (t) => {
  for (const role of ['admin', 'operator', 'viewer'] as const) {
    const token = role === 'admin' ? admin : await park.userToken(role)
    const ambiguous = await get({ id: 'RA-2' }, token)
    t.match(ambiguous.body, { code: 1002, data: null }, `${role}: no enterprise's file is picked`)
    t.match(ambiguous.body.msg, /^companyCode: several enterprises hold riskUnit attachment RA-2/)
    for (const companyCode of [A, B]) {
      const named = await get({ id: 'RA-2', companyCode }, token)
      t.equal(named.body.code, 0, `${role}, ${companyCode}: ${named.body.msg}`)
      t.match(named.body.data, { id: 'RA-2', companyCode, fileName: `${companyCode}.pdf` })
      t.equal(Buffer.from(named.body.data.content, 'base64').toString('latin1').slice(PDF.length), companyCode, 'its own bytes')
    }
    t.match((await get({ id: 'RA-A1' }, token)).body.data, { id: 'RA-A1', companyCode: A }, 'an id one enterprise holds')
  }
  t.equal((await get({ id: 'RA-2', companyCode: '320115009' }, admin)).body.code, 1004, 'an enterprise that holds none')
  t.equal((await get({ id: 'RA-A1', companyCode: B }, admin)).body.code, 1004, "another enterprise's attachment")
  const malformed = await get({ id: 'RA-2', companyCode: '32011500' }, admin)
  t.equal(malformed.body.code, 1002)
  t.match(malformed.body.msg, /companyCode/)
})

t.test('attachment/list of a record several enterprises hold answers 1002 naming companyCode; with it, that one', async (t) => {
  for (const role of ['admin', 'operator', 'viewer'] as const) {
    const token = role === 'admin' ? admin : await park.userToken(role)
    const ambiguous = await list({ recordId: 'RU-001' }, token)
    t.match(ambiguous.body, { code: 1002, data: null }, `${role}: the enterprises' attachments are not merged`)
    t.match(ambiguous.body.msg, /^companyCode: several enterprises hold riskUnit RU-001/)
    t.same(keys(await list({ recordId: 'RU-001', companyCode: A }, token)), ['RA-2/320115001'])
    t.same(keys(await list({ recordId: 'RU-001', companyCode: B }, token)), ['RA-2/320115002', 'RA-B3/320115002'])
    t.same(keys(await list({ recordId: 'RU-A' }, token)), ['RA-A1/320115001'], 'a record one enterprise holds')
  }
  const bare = await list({ recordId: 'RU-BARE' }, admin)
  t.equal(bare.body.code, 1002, 'several enterprises hold the record, whether or not it has attachments')
  t.same((await list({ recordId: 'RU-BARE', companyCode: A }, admin)).body.data, { list: [], total: 0 })
  t.same((await list({ recordId: 'RU-NONE' }, admin)).body.data, { list: [], total: 0 }, 'no such record')
  t.same((await list({ recordId: 'RU-A', companyCode: B }, admin)).body.data, { list: [], total: 0 })
})

t.test("an enterprise account reads its own enterprise's attachments; naming another is 2003", async (t) => {
  const added = await park.call(
    '/system/user/add',
    { userName: 'ent-b', password: 'password-ent-b', role: 'enterprise', companyCode: B },
    { token: admin },
  )
  t.equal(added.body.code, 0, added.body.msg)
  const own = await park.login('ent-b', 'password-ent-b')
  t.match((await get({ id: 'RA-2' }, own)).body.data, { id: 'RA-2', companyCode: B }, 'its own, without naming it')
  t.match((await get({ id: 'RA-2', companyCode: B }, own)).body.data, { id: 'RA-2', companyCode: B })
  t.equal((await get({ id: 'RA-A1' }, own)).body.code, 1004, "another enterprise's id is not found")
  t.same(keys(await list({ recordId: 'RU-001' }, own)), ['RA-2/320115002', 'RA-B3/320115002'])
  for (const reply of [await get({ id: 'RA-2', companyCode: A }, own), await list({ recordId: 'RU-001', companyCode: A }, own)]) {
    t.same([reply.status, reply.body.code], [403, 2003], 'another companyCode, as getById')
  }
  const getById = await park.call('/prevent/riskUnit/getById', { id: 'RU-001', companyCode: A }, { token: own })
  t.same([getById.status, getById.body.code], [403, 2003])
})

t.test("an attachment pushed is the enterprise's last push, in the park's overview", async (t) => {
  const C = '320115003'
  const overview = async () =>
    (await park.call('/system/enterprise/list', {}, { token: admin })).body.data.list.find((entry: any) => entry.companyCode === C)
  t.equal(await overview(), undefined, 'an enterprise that never pushed is not listed')
  t.same((await park.call('/system/push/attachment', { resource: 'riskUnit', ...attachment('RA-C1', 'RU-C', C) }, push)).body.data.held, [
    { id: 'RA-C1', index: 0, version: 1 },
  ])
  const entry = await overview()
  t.ok(entry?.lastPushTime, `last push ${entry?.lastPushTime}`)
})

t.end()
