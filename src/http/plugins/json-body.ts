// JSON only, as UTF-8 text (RFC 8259): bytes that are not UTF-8 are 1000, like any unparseable body,
// and so is a compressed one (a `Content-Encoding` other than `identity`).
// An empty body is "no body" (logout, refresh); an operation whose document says its body is
// required answers 1000 without one, any other takes it as `{}`. Any other content type is 1000
// (the envelope plugin says so); a `__proto__` member (or `constructor.prototype`) is 1002, an
// unknown field like any other (inside an add-batch item, that item's). For an operation whose
// handler hands them on as they are (the park applies a pushed page from its own text), the body's
// bytes stay on the request (`bodyBytes`).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { decodeUtf8 } from '../../contract/request-bodies.ts'
import { BusinessError, Code } from '../../errors.ts'
import type { OperationPolicy } from '../operation-policy.ts'
import { operationIdOf } from '../routing.ts'
import { message } from '../../messages/message.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body's bytes as received (undefined without a body). */
    bodyBytes: Buffer | undefined
  }
}

async function jsonBody(app: FastifyInstance, options: { policies: Map<string, OperationPolicy> }): Promise<void> {
  const { policies } = options
  app.decorateRequest('bodyBytes', undefined)
  app.removeAllContentTypeParsers()
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // A compressed body would otherwise read as text that is not JSON: say what is wrong with it.
    const encoding = request.headers['content-encoding']?.trim().toLowerCase()
    if (encoding && encoding !== 'identity') return done(new BusinessError(Code.malformed, message('contentEncoding')), undefined)
    if (body.length === 0) return done(null, undefined)
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body)
    let text: string
    try {
      text = decodeUtf8(bytes)
    } catch (error) {
      return done(error instanceof Error ? error : new Error(String(error)), undefined)
    }
    const operationId = operationIdOf(request)
    if (operationId !== undefined && policies.get(operationId)?.keepsBytes) request.bodyBytes = bytes
    parseJson(request, text, (error, value) => {
      const forbidden = error ? forbiddenMember(text) : undefined
      if (!forbidden) return done(error, value)
      // An add-batch judges its items one by one: such a member inside an item is that item's unknown
      // field (its own 1002, the other items stored). JSON.parse keeps it an own property, which the
      // item's schema refuses before anything reads the item.
      const batch = operationId !== undefined && policies.get(operationId)?.batch
      const parsed: unknown = batch ? JSON.parse(text) : undefined
      if (isObject(parsed) && !Object.entries(parsed).some(([key, member]) => isPoisoning(key, member))) return done(null, parsed)
      // Valid JSON whose member would reach the prototype: refused as the unknown field it is.
      done(new BusinessError(Code.badParameter, message('unknownField', { field: forbidden })), undefined)
    })
  })
  app.addHook('preValidation', (request, _reply, done) => {
    const operationId = operationIdOf(request)
    if (operationId && policies.get(operationId)?.bodyRequired && request.body === undefined) {
      return done(new BusinessError(Code.malformed, message('bodyNotObject')))
    }
    if (operationId && request.body === undefined) request.body = {} // no body where it is optional: as `{}`
    done()
  })
}

/**
 * Where the member that made the parser refuse text that is valid JSON is (`conditions[0].__proto__`):
 * `__proto__`, or `constructor` holding a `prototype` (prototype poisoning, refused whatever the
 * operation); undefined when the text is not JSON at all. JSON.parse keeps such a member an own
 * property, so the parsed value can be walked in the text's order.
 */
function forbiddenMember(text: string): string | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  // Depth first, in the text's order, without recursion (a body may nest deeper than the stack).
  const stack: { value: unknown; path: string; poisoning: boolean }[] = [{ value: parsed, path: '', poisoning: false }]
  while (stack.length > 0) {
    const { value, path, poisoning } = stack.pop()!
    if (poisoning) return path
    if (!isObject(value)) continue
    const members = Object.entries(value)
    for (let i = members.length - 1; i >= 0; i--) {
      const [key, member] = members[i]
      const at = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key
      stack.push({ value: member, path: at, poisoning: !Array.isArray(value) && isPoisoning(key, member) })
    }
  }
  return undefined
}

/** A member that would reach the prototype, were it assigned. */
function isPoisoning(key: string, value: unknown): boolean {
  return key === '__proto__' || (key === 'constructor' && isObject(value) && Object.hasOwn(value, 'prototype'))
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null
}

// Its refusals are answered by the envelope's error handler.
export default fp(jsonBody, { name: 'json-body', fastify: '5.x', dependencies: ['envelope'] })
