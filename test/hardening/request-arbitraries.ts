// fast-check arbitraries for the fuzzing of test/hardening/fuzz.test.ts: valid request bodies built
// from the OpenAPI document's schemas, and the mutations a hostile client applies to them.
import fc from 'fast-check'
import { resolveRef, type JsonSchema, type OpenApiDocument } from '../../src/contract/openapi-document.ts'

/** A JSON text inserted as it is where this marker string stands (numbers JSON.stringify cannot write, deep nesting, `__proto__` keys). */
export class Raw {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

/** JSON text of a value that may hold Raw pieces anywhere. */
export function serialise(value: unknown): string {
  const raws: string[] = []
  const text = JSON.stringify(value, (_key, current) => {
    if (current instanceof Raw) {
      raws.push(current.text)
      return `\u0001raw${raws.length - 1}\u0001`
    }
    return current
  })
  return text === undefined ? '' : text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_match, index) => raws[Number(index)])
}

// ---- valid values, from the schemas ----

const TEXT_LIMIT = 40

/** A character a valid text may hold: any Unicode scalar value but NUL (PostgreSQL's text cannot hold U+0000). */
const validChar = fc
  .oneof(
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
    fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength: 1 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  )
  .filter((char) => char !== '\u0000')

/** Text of minLength..maxLength code points (each unit above is one code point, as JSON Schema counts). */
const validText = (minLength: number, maxLength: number) => fc.string({ unit: validChar, minLength, maxLength })

const pad = (value: number, width = 2) => String(value).padStart(width, '0')

/** A valid RFC 3339 instant of the years 1970..2200, with any real-world offset, sometimes a fraction. */
export const validInstant = fc
  .record({
    ms: fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) / 1000 }).map((seconds) => seconds * 1000),
    offset: fc.integer({ min: -12 * 4, max: 14 * 4 }).map((quarters) => quarters * 15),
    fraction: fc.option(fc.stringMatching(/^\.[0-9]{1,6}$/), { nil: undefined }),
    zulu: fc.boolean(),
  })
  .map(({ ms, offset, fraction, zulu }) => {
    const minutes = zulu ? 0 : offset
    const local = new Date(ms + minutes * 60_000)
    const suffix = zulu ? 'Z' : `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`
    return `${local.toISOString().slice(0, 19)}${fraction ?? ''}${suffix}`
  })

export const validDate = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10))

/** Valid values of a schema of the document (bounded sizes: strings of at most 40 characters, arrays of at most 3). */
export function validValue(document: OpenApiDocument, schema: JsonSchema): fc.Arbitrary<unknown> {
  // The document's schemas are walked keyword by keyword: any, as JSON Schema is.
  const node: any = resolveRef(document, schema)
  if (node.const !== undefined) return fc.constant(node.const)
  if (Array.isArray(node.enum)) return fc.constantFrom(...node.enum)
  if (node.anyOf || node.oneOf) return fc.oneof(...(node.anyOf ?? node.oneOf).map((branch: JsonSchema) => validValue(document, branch)))
  const types: string[] = Array.isArray(node.type) ? node.type : node.type ? [node.type] : []
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue(document, { ...node, type })))
  switch (types[0]) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return fc.integer({ min: node.minimum ?? -(2 ** 31), max: node.maximum ?? 2 ** 31 - 1 })
    case 'number':
      return fc.double({ min: node.minimum ?? -1e15, max: node.maximum ?? 1e15, noNaN: true, noDefaultInfinity: true })
    case 'string':
      return validString(node)
    case 'array': {
      const items = validValue(document, node.items ?? {})
      const minLength = node.minItems ?? 0
      return fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(node.maxItems ?? 3, 3)) })
    }
    case 'object':
      return validObject(document, node)
    default:
      // A value of any shape (a search condition's operand): scalars, sometimes a small array.
      return fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.integer(),
        fc.boolean(),
        fc.array(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 3 }),
      )
  }
}

function validString(node: any): fc.Arbitrary<string> {
  const minLength = node.minLength ?? 0
  const maxLength = node.maxLength ?? TEXT_LIMIT
  if (node.format === 'date-time') return validInstant
  if (node.format === 'date') return validDate
  if (node.pattern) {
    const pattern = new RegExp(node.pattern, 'u')
    return fc
      .stringMatching(pattern, { size: 'xsmall' })
      .filter((text) => [...text].length >= minLength && [...text].length <= maxLength && pattern.test(text))
  }
  // Sometimes the longest string allowed, to walk the boundary.
  return fc.oneof(
    { weight: 4, arbitrary: validText(minLength, Math.min(maxLength, TEXT_LIMIT)) },
    { weight: 1, arbitrary: validText(maxLength, maxLength) },
  )
}

function validObject(document: OpenApiDocument, node: any): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, JsonSchema> = node.properties ?? {}
  const required = new Set<string>(node.required ?? [])
  const model = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, validValue(document, property)]))
  const record = fc.record(model, { requiredKeys: [...required] }) as fc.Arbitrary<Record<string, unknown>>
  const minProperties = node.minProperties ?? 0
  return minProperties > 0 ? record.filter((value) => Object.keys(value).length >= minProperties) : record
}

// ---- what a hostile client sends instead ----

/** Characters of every Unicode category, control characters and lone surrogates included. */
export const hostileChar = fc.oneof(
  fc.constantFrom('\u0000', '\u0001', '\u0008', '\u001f', '\u007f', '\u0085', '\u009f'), // Cc
  fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)), // lone surrogates (Cs)
  fc.constantFrom('\u00ad', '\u200b', '\u200e', '\u202e', '\u2066', '\ufeff', '\u{e0001}'), // Cf
  fc.constantFrom('\u0300', '\u0489', '\u20dd'), // Mn, Me
  fc.constantFrom('\u00a0', '\u2028', '\u2029', '\u3000'), // Zs, Zl, Zp
  fc.constantFrom('\ue000', '\u{f0000}', '\u{10fffd}'), // Co
  fc.constantFrom('\u0378', '\ufffe', '\uffff', '\u{e0080}'), // Cn, noncharacters
  fc.constantFrom('\u{1f600}', '\u{1f469}\u200d\u{1f4bb}', '\u{20000}', '\u0645', '\u05d0', 'Ǆ', '\u16ee', '\u00b2', '\u0e3f'), // So, Lo, Lt, Nl, No, Sc...
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
)

export const hostileString = fc.string({ unit: hostileChar, minLength: 0, maxLength: 30 })

/** True when PostgreSQL's text could not hold the string (a NUL, or a lone surrogate). */
export function unstorableText(text: string): boolean {
  return text.includes('\u0000') || !text.isWellFormed()
}

/** JSON number texts at and past the limits of a double; `1e309` parses as Infinity. */
export const extremeNumberText = fc.constantFrom(
  '1e309',
  '-1e309',
  '1e-400',
  '-0',
  '5e-324',
  '1.7976931348623157e308',
  '9007199254740993',
  '-9007199254740993',
  '123456789012345678901234567890',
  '2147483648',
  '-2147483649',
  '0.000000000000000000001',
  '1E+2',
)
export const INFINITE_NUMBER_TEXTS = new Set(['1e309', '-1e309'])

/** Keys no document declares, the prototype's own among them. */
export const hostileKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '',
    ' ',
    'id ',
    'ID',
    '$ref',
    'a\u0000b',
    '\ud800',
    'sync_status',
    'version',
  ),
  hostileString.filter((key) => key.length > 0),
)

/** A value of a JSON type chosen at random (to replace a value of another type). */
export const anyJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  hostileString,
  fc.constant({}),
  fc.constant([]),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
)

/** Nested arrays or objects 2..3000 levels deep, as raw JSON text. */
export const deepNesting = fc
  .record({ depth: fc.integer({ min: 2, max: 3000 }), objects: fc.boolean() })
  .map(({ depth, objects }) => new Raw(objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth)))

/** Arrays of 501..20 000 elements. */
export const longArray = fc
  .record({ length: fc.integer({ min: 501, max: 20_000 }), element: fc.constantFrom<unknown>(1, 'x', null, {}) })
  .map(({ length, element }) => Array.from({ length }, () => element))

/** Byte sequences that are not UTF-8: stray continuation bytes, overlong forms, CESU surrogates, truncated sequences. */
export const invalidUtf8 = fc.constantFrom(
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe4, 0xb8],
  [0xc3],
)

/** Content types other than JSON, and JSON's own spellings that must still work. */
export const foreignContentType = fc.constantFrom(
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/octet-stream',
  'application/jsonx',
  'application/json-patch+json',
  'json',
  '*/*',
  ';',
)
