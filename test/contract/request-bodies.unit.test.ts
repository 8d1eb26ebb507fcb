// pushedListBytes: the bytes of a push's `list` as sent, only when the body is
// `{"resource":"<resource>","list":…}` and nothing else; any other framing gives nothing, and a
// further member leaves bytes that are not JSON.
import t from 'tap'
import { pushedListBytes } from '../../src/contract/request-bodies.ts'

const text = (bytes: Buffer | undefined) => bytes?.toString('utf8')
const OPENING = '{"resource":"monitorEquip","list":'
const batchListBytes = (body: Buffer) => pushedListBytes(body, 'monitorEquip')

t.test("a compact body's list, as it was sent", async (t) => {
  const list = '[{"id":"ME-1","monitorName":"液氨储罐1#压力监测","version":1.0},{"id":"ME-2"}]'
  t.equal(text(batchListBytes(Buffer.from(`${OPENING}${list}}`))), list, 'byte for byte, numbers as written')
  t.same(
    JSON.parse(text(batchListBytes(Buffer.from(JSON.stringify({ resource: 'monitorEquip', list: [{ a: 1 }] })))) ?? ''),
    [{ a: 1 }],
    'as JSON.stringify writes it',
  )
})

t.test('nothing for any other framing', async (t) => {
  for (const body of [
    '{ "resource": "monitorEquip", "list": [] }',
    `${OPENING}[]}\n`,
    `\ufeff${OPENING}[]}`,
    `[${OPENING}[]}]`,
    OPENING,
    '{"list":[]}',
    '{"resource":"riskUnit","list":[]}',
    '{"list":[],"resource":"monitorEquip"}',
    '',
  ]) {
    t.equal(batchListBytes(Buffer.from(body)), undefined, JSON.stringify(body))
  }
})

t.test('a second member leaves bytes that are not JSON, never another list', async (t) => {
  for (const body of [
    `${OPENING}[{"id":"A"}],"list":[{"id":"B"}]}`,
    `${OPENING}[],"resource":"monitorEquip"}`,
    `${OPENING}[],"other":1}`,
  ]) {
    const bytes = batchListBytes(Buffer.from(body))
    t.throws(() => JSON.parse(text(bytes) ?? ''), body)
  }
})
