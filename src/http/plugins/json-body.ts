// JSON only. An empty body is "no body" (logout, refresh); an operation whose document says its body
// is required answers 1000 without one. Any other content type is 1000 (the envelope plugin says so).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { BusinessError, Code } from '../../errors.ts'
import type { OperationPolicy } from '../operation-policy.ts'
import { operationIdOf } from '../routing.ts'

async function jsonBody(app: FastifyInstance, options: { policies: Map<string, OperationPolicy> }): Promise<void> {
  const { policies } = options
  app.removeAllContentTypeParsers()
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined)
    parseJson(request, String(body), done)
  })
  app.addHook('preValidation', (request, _reply, done) => {
    const operationId = operationIdOf(request)
    if (operationId && policies.get(operationId)?.bodyRequired && request.body === undefined) {
      return done(new BusinessError(Code.malformed, 'request body must be a JSON object'))
    }
    done()
  })
}

// Its refusals are answered by the envelope's error handler.
export default fp(jsonBody, { name: 'json-body', fastify: '5.x', dependencies: ['envelope'] })
