// History on the park (one history entry per applied push) and attachments (pushed after
// their records, keyed by companyCode and id, in pages bounded by bytes): the bytes on the park are
// the bytes sent, after the park was down while they were written; an attachment is synced only when
// the park says it holds the pushed version.
import { createHash } from 'node:crypto'
import pg from 'pg'
import t from 'tap'
import { pushedAttachment, pushedRecord, record } from '../helpers/fixtures.ts'
import { eventually, everythingPushed, loginTo, post, pushAttachment, pushRecords, startParkProcess } from '../helpers/park.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const park = await startParkProcess(t)
const enterprise = await startService(t, {
  env: {
    PARK_URL: park.url,
    PARK_USER: 'admin',
    PARK_PASSWORD: ADMIN_PASSWORD,
    SYNC_RETRY_DELAY_MAX_SECONDS: '1',
    SYNC_RETRY_LIMIT: '1000',
    // Pages of at most 1 MiB of attachments: a 5 MiB file goes alone, the small ones after it.
    SYNC_BATCH_BYTES: String(1024 * 1024),
  },
})
const token = await enterprise.login()
let parkToken = await loginTo(park.url)
const onPark = (path: string, body: unknown) => post(`${park.url}${path}`, body, parkToken)
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

async function allSynced() {
  const status = await enterprise.call('/system/sync/status', {}, { token })
  return everythingPushed(status.body.data)
}

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('a small jpeg'), Buffer.from([0xff, 0xd9])])
const PDF = Buffer.from('%PDF-1.7\n%%EOF\n', 'latin1')
const LARGE = Buffer.alloc(5 * 1024 * 1024)
PNG.copy(LARGE)
for (let i = PNG.length; i < LARGE.length; i++) LARGE[i] = (i * 7919) % 251

t.test('the park keeps one history entry per applied push', async (t) => {
  t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-PH'), { token })).body.code, 0)
  await eventually(allSynced, { what: 'the add pushed' })
  t.equal((await enterprise.call('/prevent/riskUnit/update', { id: 'RU-PH', riskUnitName: 'pushed rename' }, { token })).body.code, 0)
  await eventually(allSynced, { what: 'the update pushed' })
  t.equal((await enterprise.call('/prevent/riskUnit/delete', { id: 'RU-PH' }, { token })).body.code, 0)
  await eventually(allSynced, { what: 'the delete pushed' })
  const history = await onPark('/prevent/riskUnit/history', { id: 'RU-PH' })
  t.equal(history.code, 0, history.msg)
  t.same(
    history.data.list.map((entry: any) => [entry.version, entry.action, Object.keys(entry.changes)]),
    [
      [3, 'delete', []],
      [2, 'update', ['riskUnitName']],
      [1, 'add', Object.keys(record('riskUnit', 'RU-PH'))],
    ],
  )
  // Every applied push has its entry row, the add's too (the park's versions may skip).
  const parkDatabase = new pg.Client({ connectionString: park.databaseUrl })
  await parkDatabase.connect()
  const stored = await parkDatabase.query(`SELECT version::int AS version FROM record_history WHERE id = 'RU-PH' ORDER BY version`)
  t.same(
    stored.rows.map((row) => row.version),
    [1, 2, 3],
  )
  // A record pushed before the park wrote adds (no row for its version 1, an update at version 2):
  // its add is read from the row, as before.
  await parkDatabase.query(`DELETE FROM record_history WHERE id = 'RU-PH' AND version = 1`)
  await parkDatabase.end()
  t.same((await onPark('/prevent/riskUnit/history', { id: 'RU-PH' })).data.list, history.data.list, 'the same entries')
  t.same(history.data.list[1].changes.riskUnitName, [record('riskUnit', 'RU-PH').riskUnitName, 'pushed rename'])
  t.equal(history.data.list[1].userName, 'admin', 'the enterprise user who wrote it')
  const enterpriseHistory = await enterprise.call('/prevent/riskUnit/history', { id: 'RU-PH' }, { token })
  t.same(
    history.data.list.map((entry: any) => entry.time),
    enterpriseHistory.body.data.list.map((entry: any) => entry.time),
    'at the times of the writes',
  )
  // A repeated push (the park already holds the version) adds nothing.
  const item = pushedRecord('riskUnit', 'RU-PH', { version: 2 })
  const replay = await pushRecords(park.url, parkToken, 'riskUnit', [item])
  t.equal(replay.code, 0)
  t.equal((await onPark('/prevent/riskUnit/history', { id: 'RU-PH' })).data.total, 3)
  // A record the park first receives at a later version (written several times while the park was
  // away) has its add's entry at that version, with the values pushed.
  const later = { ...item, ...record('riskUnit', 'RU-PH3'), riskUnitName: 'third version', version: 3 }
  t.equal((await pushRecords(park.url, parkToken, 'riskUnit', [later])).code, 0)
  const laterHistory = await onPark('/prevent/riskUnit/history', { id: 'RU-PH3' })
  t.same(
    laterHistory.data.list.map((entry: any) => [entry.version, entry.action, entry.changes.riskUnitName]),
    [[3, 'add', [null, 'third version']]],
  )
})

t.test('on the park an entry stays once shown, whatever versions the pushes skip', async (t) => {
  const push = async (...list: Record<string, unknown>[]) => {
    const answer = await pushRecords(park.url, parkToken, 'riskUnit', list)
    t.equal(answer.code, 0, answer.msg)
    return answer.data
  }
  const entries = async (id: string) =>
    (await onPark('/prevent/riskUnit/history', { id })).data.list.map((entry: any) => [
      entry.version,
      entry.action,
      entry.changes.riskUnitName,
    ])
  // Version 1, then version 3 (two writes while the park was away, pushed as one).
  await push(pushedRecord('riskUnit', 'RU-GAP', { version: 1, fields: { riskUnitName: 'g0' } }))
  await push(pushedRecord('riskUnit', 'RU-GAP', { version: 3, fields: { riskUnitName: 'g2' } }))
  t.same(await entries('RU-GAP'), [
    [3, 'update', ['g0', 'g2']],
    [1, 'add', [null, 'g0']],
  ])
  // A record the park first receives as a tombstone: one entry, the delete.
  await push(pushedRecord('riskUnit', 'RU-TOMB', { version: 2, deleted: true }))
  t.same(await entries('RU-TOMB'), [[2, 'delete', undefined]])
  // Pushes of one record at once (several instances of an enterprise): each entry's old value is
  // the value it replaced, and no answer holds less than the park held when it answered.
  await push(pushedRecord('riskUnit', 'RU-RACE', { version: 1, fields: { riskUnitName: 'n1' } }))
  const answers = await Promise.all(
    [2, 3, 4, 5, 6, 7, 8].map((version) => push(pushedRecord('riskUnit', 'RU-RACE', { version, fields: { riskUnitName: `n${version}` } }))),
  )
  for (const [i, answer] of answers.entries()) t.ok(answer.held[0].version >= i + 2, `held ${answer.held[0].version} for version ${i + 2}`)
  const chain = (await entries('RU-RACE')).reverse()
  t.equal(chain[0][1], 'add')
  t.equal(chain.at(-1)[2][1], 'n8', 'the newest version is held')
  for (let i = 1; i < chain.length; i++)
    t.equal(chain[i][2][0], chain[i - 1][2][1], `version ${chain[i][0]} replaced version ${chain[i - 1][0]}`)
})

t.test('attachments written while the park is down reach it byte for byte, after their records', async (t) => {
  await park.stop('SIGTERM')
  t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-PA'), { token })).body.code, 0)
  const files = [
    { id: 'PA-LARGE', fileName: 'large.png', contentType: 'image/png', bytes: LARGE },
    { id: 'PA-PNG', fileName: 'before.png', contentType: 'image/png', bytes: PNG },
    { id: 'PA-JPG', fileName: 'after.jpg', contentType: 'image/jpeg', bytes: JPEG },
    { id: 'PA-PDF', fileName: 'ticket.pdf', contentType: 'application/pdf', bytes: PDF },
    { id: 'PA-GONE', fileName: 'mistake.png', contentType: 'image/png', bytes: PNG },
  ]
  for (const file of files) {
    const reply = await enterprise.call(
      '/prevent/riskUnit/attachment/add',
      { id: file.id, recordId: 'RU-PA', fileName: file.fileName, contentType: file.contentType, content: file.bytes.toString('base64') },
      { token },
    )
    t.equal(reply.body.code, 0, `${file.id}: ${reply.body.msg}`)
  }
  t.equal((await enterprise.call('/prevent/riskUnit/attachment/delete', { id: 'PA-GONE' }, { token })).body.code, 0)
  // Records written after the attachments are not held up by them.
  t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-PB'), { token })).body.code, 0)
  const pending = await enterprise.call('/system/sync/status', {}, { token })
  t.match(
    pending.body.data.resources.find((entry: any) => entry.resource === 'riskUnit/attachment'),
    { pending: 5 },
  )

  await park.start()
  parkToken = await loginTo(park.url)
  await eventually(allSynced, { what: 'everything pushed after the park came back', timeoutMs: 60_000 })

  for (const file of files.slice(0, 4)) {
    const got = await onPark('/prevent/riskUnit/attachment/get', { id: file.id })
    t.equal(got.code, 0, `${file.id} on the park`)
    t.equal(sha256(Buffer.from(got.data.content, 'base64')), sha256(file.bytes), `${file.id}: the same bytes`)
    t.match(got.data, {
      recordId: 'RU-PA',
      fileName: file.fileName,
      contentType: file.contentType,
      size: file.bytes.length,
      sha256: sha256(file.bytes),
      sync_status: 'synced',
    })
  }
  t.equal((await onPark('/prevent/riskUnit/attachment/get', { id: 'PA-GONE' })).code, 1004, 'the tombstone reached the park')
  const listed = await onPark('/prevent/riskUnit/attachment/list', { recordId: 'RU-PA' })
  t.same(listed.data.list.map((item: any) => item.id).sort(), ['PA-JPG', 'PA-LARGE', 'PA-PDF', 'PA-PNG'])
  const onEnterprise = await enterprise.call('/prevent/riskUnit/attachment/list', { recordId: 'RU-PA' }, { token })
  t.ok(
    onEnterprise.body.data.list.every((item: any) => item.sync_status === 'synced' && item.sync_time),
    'synced on the enterprise',
  )
  t.equal((await onPark('/prevent/riskUnit/getById', { id: 'RU-PB' })).code, 0)
})

t.test('deleting the attachments then the record reaches the park in that order', async (t) => {
  for (const id of ['PA-LARGE', 'PA-PNG', 'PA-JPG', 'PA-PDF']) {
    t.equal((await enterprise.call('/prevent/riskUnit/attachment/delete', { id }, { token })).body.code, 0)
  }
  t.equal((await enterprise.call('/prevent/riskUnit/delete', { id: 'RU-PA' }, { token })).body.code, 0)
  await eventually(allSynced, { what: 'the deletes pushed' })
  t.equal((await onPark('/prevent/riskUnit/getById', { id: 'RU-PA' })).code, 1004)
  t.same((await onPark('/prevent/riskUnit/attachment/list', { recordId: 'RU-PA' })).data.list, [])
})

t.test('the push of attachments is the park edition’s, and a push carries every push-only field', async (t) => {
  const body = { id: 'PX-1', recordId: 'RU-PB', fileName: 'x.png', contentType: 'image/png', content: PNG.toString('base64') }
  const onEnterprise = await enterprise.call(
    '/system/push/attachment',
    { resource: 'riskUnit', ...pushedAttachment('PX-1', 'RU-PB', PNG) },
    { token },
  )
  t.same([onEnterprise.status, onEnterprise.body.code], [403, 2003], 'the enterprise edition takes no pushes')
  const withPushField = await enterprise.call('/prevent/riskUnit/attachment/add', { ...body, version: 1 }, { token })
  t.equal(withPushField.body.code, 1002, 'attachment/add takes no push-only field')
  const pushed = await pushAttachment(park.url, parkToken, 'riskUnit', body)
  t.equal(pushed.code, 1002, 'the push-only fields are required in a push')
  t.match(pushed.msg, /companyCode/)
})

t.test("an enterprise account pushes and reads its own enterprise's attachments only", async (t) => {
  const added = await onPark('/system/user/add', {
    userName: 'att-ent',
    password: 'password-att',
    role: 'enterprise',
    companyCode: '333333333',
  })
  t.equal(added.code, 0, added.msg)
  const own = (await post(`${park.url}/system/login`, { userName: 'att-ent', password: 'password-att' })).data.token
  const pushed = (id: string, companyCode: string) => pushedAttachment(id, 'RU-OWN', PNG, { companyCode })
  const push = (body: Record<string, unknown>, as: string) => pushAttachment(park.url, as, 'riskUnit', body)
  const other = await push(pushed('PX-OTHER', '444444444'), own)
  t.same(
    other.data.failed.map((item: any) => [item.id, item.code]),
    [['PX-OTHER', 2003]],
    "another enterprise's attachment is refused, as an item of a page is",
  )
  t.equal((await push(pushed('PX-OWN', '333333333'), own)).code, 0, 'its own is applied')
  t.equal((await push(pushed('PX-ADMIN', '444444444'), parkToken)).code, 0, 'an admin pushes for any enterprise')
  const listed = await post(`${park.url}/prevent/riskUnit/attachment/list`, { recordId: 'RU-OWN' }, own)
  t.same(
    listed.data.list.map((entry: any) => [entry.id, entry.companyCode]),
    [['PX-OWN', '333333333']],
    "it sees its own enterprise's only",
  )
  t.equal((await post(`${park.url}/prevent/riskUnit/attachment/get`, { id: 'PX-ADMIN' }, own)).code, 1004)
  const written = await post(`${park.url}/prevent/riskUnit/attachment/add`, pushed('PX-W', '333333333'), own)
  t.equal(written.code, 2003, 'attachment/add is a business write: the park is not an author')
  t.equal((await post(`${park.url}/prevent/riskUnit/attachment/delete`, { id: 'PX-OWN' }, parkToken)).code, 2003)
})

t.test('an attachment is synced only when the park holds the pushed version, failed with the reason otherwise', async (t) => {
  t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', 'RU-PV'), { token })).body.code, 0)
  await eventually(allSynced, { what: 'the record pushed' })
  // The park already holds ATT-V at version 50 (an admin's push, as in a migration).
  const pushed = (version: number) => pushedAttachment('ATT-V', 'RU-PV', PNG, { version })
  const push = (version: number) => pushAttachment(park.url, parkToken, 'riskUnit', pushed(version))
  const held50 = { succeeded: ['ATT-V'], failed: [], held: [{ id: 'ATT-V', index: 0, version: 50 }] }
  t.same(await push(50), { msg: '', code: 0, data: held50, success: true }, 'the park answers the version it holds')
  t.same((await push(3)).data, held50, 'an older version is ignored, and the answer says which one is held')

  const attached = await enterprise.call(
    '/prevent/riskUnit/attachment/add',
    { id: 'ATT-V', recordId: 'RU-PV', fileName: 'v.png', contentType: 'image/png', content: PNG.toString('base64') },
    { token },
  )
  t.equal(attached.body.code, 0)
  const failed = await eventually(
    async () => {
      const [listed] = (await enterprise.call('/prevent/riskUnit/attachment/list', { recordId: 'RU-PV' }, { token })).body.data.list
      return listed?.sync_status === 'failed' && listed
    },
    { what: 'the attachment to fail' },
  )
  t.equal(failed.sync_error, 'the park holds version 50, not the pushed version 1', 'the reason, readable through the API')
  t.ok(failed.sync_time, 'when it failed')
  t.equal((await enterprise.call('/prevent/riskUnit/attachment/get', { id: 'ATT-V' }, { token })).body.data.sync_error, failed.sync_error)

  // Its delete (version 2) does not reach the park either: the park still holds version 50, live.
  t.equal((await enterprise.call('/prevent/riskUnit/attachment/delete', { id: 'ATT-V' }, { token })).body.code, 0)
  const row = async () =>
    (await enterprise.database.pool.query(`SELECT sync_status, sync_error FROM risk_unit_attachment WHERE id = 'ATT-V'`)).rows[0]
  const tombstone = await eventually(
    async () => {
      const now = await row()
      return now.sync_status === 'failed' && now
    },
    { what: 'the tombstone to fail' },
  )
  t.equal(tombstone.sync_error, 'the park holds version 50, not the pushed version 2')
  t.equal((await onPark('/prevent/riskUnit/attachment/get', { id: 'ATT-V' })).code, 0, 'live on the park')
  const status = (await enterprise.call('/system/sync/status', {}, { token })).body.data
  t.match(
    status.resources.find((counts: any) => counts.resource === 'riskUnit/attachment'),
    { pending: 0, failed: 1 },
  )

  // A reconciliation finds it stale and queues it again (pending before it answers): pushed again,
  // it fails again, it is not taken as synced.
  const reconciled = (await enterprise.call('/system/sync/reconcile', {}, { token })).body.data
  t.match(
    reconciled.attachments.find((entry: any) => entry.resource === 'riskUnit'),
    { stale: 1, ids: ['ATT-V'] },
  )
  const again = await eventually(
    async () => {
      const now = await row()
      return now.sync_status !== 'pending' && now
    },
    { what: 'the tombstone pushed again' },
  )
  t.same(again, { sync_status: 'failed', sync_error: 'the park holds version 50, not the pushed version 2' })
})

t.end()
