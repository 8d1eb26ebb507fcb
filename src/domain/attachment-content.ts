// The rules of an attachment's content: strict base64, a size limit, a file name
// without path, and a type proven by the bytes themselves (PNG, JPEG and PDF signatures), never by
// the name or the declared type alone. Pure functions; every refusal is 1002 naming the field.
import { createHash } from 'node:crypto'
import { BusinessError, Code } from '../errors.ts'
import { type Message, message } from '../messages/message.ts'

export const ATTACHMENT_TYPES = ['image/png', 'image/jpeg', 'application/pdf'] as const
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number]

/** How each type's bytes start, and the file name extensions that go with it. */
const SIGNATURES: Record<AttachmentType, { magic: Buffer; extensions: string[]; name: string }> = {
  'image/png': { magic: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), extensions: ['png'], name: 'PNG' },
  'image/jpeg': { magic: Buffer.from([0xff, 0xd8, 0xff]), extensions: ['jpg', 'jpeg', 'jpe'], name: 'JPEG' },
  'application/pdf': { magic: Buffer.from('%PDF-', 'latin1'), extensions: ['pdf'], name: 'PDF' },
}

export interface DecodedAttachment {
  content: Buffer
  sha256: string
}

/** Decodes and checks `content` (base64) against `contentType` and `fileName`; 1002 when anything is off. */
export function decodeAttachment(body: { fileName: string; contentType: string; content: string }, maxBytes: number): DecodedAttachment {
  checkFileName(body.fileName)
  const type = SIGNATURES[body.contentType as AttachmentType]
  if (!type) throw bad(message('contentTypeOneOf', { types: ATTACHMENT_TYPES.join(', ') }))
  // Checked before decoding: a body far beyond the limit is not decoded at all.
  if (body.content.length > Math.ceil(maxBytes / 3) * 4) throw tooLarge(maxBytes)
  const content = decodeBase64(body.content)
  if (content.length > maxBytes) throw tooLarge(maxBytes)
  if (content.length < type.magic.length || !content.subarray(0, type.magic.length).equals(type.magic)) {
    throw bad(message('contentNotOfType', { kind: type.name, contentType: body.contentType }))
  }
  const extension = /\.([^.]+)$/.exec(body.fileName)?.[1]?.toLowerCase()
  if (extension !== undefined && !type.extensions.includes(extension)) {
    const expected = type.extensions.map((e) => `.${e}`).join(', ')
    throw bad(message('fileNameExtension', { extension, contentType: body.contentType, expected }))
  }
  return { content, sha256: createHash('sha256').update(content).digest('hex') }
}

/** Strict base64 (RFC 4648, with padding, no whitespace): the text must be the canonical encoding of its bytes. */
export function decodeBase64(text: string): Buffer {
  const content = Buffer.from(text, 'base64')
  if (text.length % 4 !== 0 || content.toString('base64') !== text) throw bad(message('contentNotBase64'))
  return content
}

export function checkFileName(fileName: string): void {
  // Characters are code points, as the schema's maxLength counts them: an emoji is one, not two UTF-16 units.
  const characters = [...fileName].length
  if (characters < 1 || characters > 255) throw bad(message('fileNameLength'))
  if (/[/\\]/.test(fileName)) throw bad(message('fileNameSeparator'))
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(fileName)) throw bad(message('fileNameControl'))
  if (fileName === '.' || fileName === '..') throw bad(message('fileNameNotAFile'))
}

function tooLarge(maxBytes: number): BusinessError {
  return bad(message('contentTooLarge', { limit: maxBytes }))
}

function bad(said: Message): BusinessError {
  return new BusinessError(Code.badParameter, said)
}
