// The typed SDK (src/sdk/client.ts) covers history and attachments: typed bodies and answers,
// a file uploaded and downloaded byte for byte, the record's history read back.
import { createHash } from 'node:crypto'
import t from 'tap'
import { createSafetyClient } from '../../src/sdk/client.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const service = await startService(t)
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

t.test('upload, list, download and delete an attachment; read the history, all typed', async (t) => {
  const safety = createSafetyClient({ baseUrl: service.url })
  t.equal((await safety.login('admin', ADMIN_PASSWORD)).data?.code, 0)
  const added = await safety.POST('/prevent/riskUnit/add', { body: { id: 'RU-SDK', riskUnitName: 'Tank farm' } })
  t.equal(added.data?.code, 0)
  const renamed = await safety.POST('/prevent/riskUnit/update', { body: { id: 'RU-SDK', riskUnitName: 'Tank farm north' } })
  t.equal(renamed.data?.code, 0)

  const photo = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
  const uploaded = await safety.POST('/prevent/riskUnit/attachment/add', {
    params: { header: { 'Idempotency-Key': 'sdk-upload-1' } },
    body: { id: 'ATT-SDK', recordId: 'RU-SDK', fileName: 'before.png', contentType: 'image/png', content: photo.toString('base64') },
  })
  t.equal(uploaded.data?.code, 0)
  const listed = await safety.POST('/prevent/riskUnit/attachment/list', { body: { recordId: 'RU-SDK' } })
  const info = listed.data?.data?.list[0]
  t.same([info?.id, info?.size, info?.sha256], ['ATT-SDK', photo.length, sha256(photo)])
  const downloaded = await safety.POST('/prevent/riskUnit/attachment/get', { body: { id: 'ATT-SDK' } })
  t.equal(sha256(Buffer.from(downloaded.data?.data?.content ?? '', 'base64')), sha256(photo))

  const history = await safety.POST('/prevent/riskUnit/history', { body: { id: 'RU-SDK' } })
  const [latest, first] = history.data?.data?.list ?? []
  t.same(latest?.changes, { riskUnitName: ['Tank farm', 'Tank farm north'] })
  t.equal(first?.action, 'add')

  t.equal((await safety.POST('/prevent/riskUnit/attachment/delete', { body: { id: 'ATT-SDK' } })).data?.code, 0)
  t.equal((await safety.POST('/prevent/riskUnit/delete', { body: { id: 'RU-SDK' } })).data?.code, 0)
  await safety.logout()
})

t.end()
