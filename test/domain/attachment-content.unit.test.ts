// The rules of an attachment's content (src/domain/attachment-content.ts), without a database:
// strict base64, the size limit ±1 byte, types proven by the bytes, file names without paths.
import t from 'tap'
import { decodeAttachment, decodeBase64 } from '../../src/domain/attachment-content.ts'
import { BusinessError } from '../../src/errors.ts'

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])
const refusal = (run: () => unknown): string => {
  try {
    run()
  } catch (error) {
    if (error instanceof BusinessError && error.code === 1002) return error.message
    throw error
  }
  return 'accepted'
}
const decode = (body: Partial<{ fileName: string; contentType: string; content: string }>, max = 1024) =>
  refusal(() => decodeAttachment({ fileName: 'a.png', contentType: 'image/png', content: PNG.toString('base64'), ...body }, max))

t.test('each type is told by its signature, whatever the name or declared type says', async (t) => {
  t.equal(decode({}), 'accepted')
  t.equal(
    decode({ fileName: 'photo', contentType: 'image/jpeg', content: Buffer.from([0xff, 0xd8, 0xff, 0xdb]).toString('base64') }),
    'accepted',
  )
  t.equal(decode({ fileName: 'scan.PDF', contentType: 'application/pdf', content: Buffer.from('%PDF-1.7').toString('base64') }), 'accepted')
  t.match(decode({ fileName: 'a.pdf' }), /extension \.pdf does not fit image\/png/)
  t.match(decode({ contentType: 'application/pdf', fileName: 'a.pdf' }), /not a PDF file/)
  t.match(decode({ content: Buffer.from('plain text').toString('base64') }), /not a PNG file/)
  t.match(decode({ contentType: 'text/plain' }), /contentType: must be one of/)
})

t.test('the size limit: exactly the limit passes, one byte more does not, named in the message', async (t) => {
  const exact = Buffer.alloc(64)
  PNG.copy(exact)
  t.equal(decode({ content: exact.toString('base64') }, 64), 'accepted')
  t.match(decode({ content: Buffer.concat([exact, Buffer.from([0])]).toString('base64') }, 64), /limit of 64 bytes/)
  t.match(decode({ content: 'A'.repeat(10_000) }, 64), /limit of 64 bytes/, 'refused before decoding')
})

t.test('base64 is the canonical padded encoding or nothing', async (t) => {
  t.same(decodeBase64('aGk='), Buffer.from('hi'))
  for (const text of ['aGk', 'aG k=', 'aGk=\n', 'aGl=', 'a-_=', '===='])
    t.match(
      refusal(() => decodeBase64(text)),
      /not valid base64/,
      JSON.stringify(text),
    )
})

t.test('file names carry no path', async (t) => {
  for (const fileName of ['', '../a.png', 'dir/a.png', 'dir\\a.png', '.', '..', 'a\u0000.png', `${'x'.repeat(252)}.png`]) {
    t.not(decode({ fileName }), 'accepted', JSON.stringify(fileName.slice(0, 12)))
  }
  t.equal(decode({ fileName: `${'x'.repeat(251)}.png` }), 'accepted')
  // Characters are code points: 126 emoji (252 UTF-16 units) and ".png" are 130 characters.
  t.equal(decode({ fileName: `${'📷'.repeat(126)}.png` }), 'accepted', '130 characters of 256 UTF-16 units')
  t.equal(decode({ fileName: `${'📷'.repeat(251)}.png` }), 'accepted', '255 characters')
  t.match(decode({ fileName: `${'📷'.repeat(252)}.png` }), /fileName: must be 1 to 255 characters/, '256 characters')
})
