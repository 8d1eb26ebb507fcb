// JSON only, as UTF-8 text (RFC 8259): bytes that are not UTF-8 are 1000, like any unparseable body.
// An empty body is "no body" (logout, refresh); an operation whose document says its body is
// required answers 1000 without one, any other takes it as `{}`. Any other content type is 1000
// (the envelope plugin says so).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { decodeUtf8 } from '../../contract/request-bodies.ts'
import { BusinessError, Code } from '../../errors.ts'
import type { OperationPolicy } from '../operation-policy.ts'
import { operationIdOf } from '../routing.ts'

async function jsonBody(app: FastifyInstance, options: { policies: Map<string, OperationPolicy> }): Promise<void> {
  const { policies } = options
  app.removeAllContentTypeParsers()
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined)
    let text: string
    try {
      text = decodeUtf8(Buffer.isBuffer(body) ? body : Buffer.from(body))
    } catch (error) {
      return done(error instanceof Error ? error : new Error(String(error)), undefined)
    }
    parseJson(request, text, done)
  })
  app.addHook('preValidation', (request, _reply, done) => {
    const operationId = operationIdOf(request)
    if (operationId && policies.get(operationId)?.bodyRequired && request.body === undefined) {
      return done(new BusinessError(Code.malformed, 'request body must be a JSON object'))
    }
    if (operationId && request.body === undefined) request.body = {} // no body where it is optional: as `{}`
    done()
  })
}

// Its refusals are answered by the envelope's error handler.
export default fp(jsonBody, { name: 'json-body', fastify: '5.x', dependencies: ['envelope'] })
