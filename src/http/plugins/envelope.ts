// The envelope and the one error handler: every error, ours, Fastify's or a library's, answered as
// the envelope with its code and HTTP status; an unknown path is 1008. Nothing internal leaks; the
// unexpected is logged with its detail.
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { describeErrors, isNotAnObject } from '../../contract/validation.ts'
import { BusinessError, type BusinessCode, Code, failure, GENERIC_BUSY_MESSAGE, statusOf } from '../../errors.ts'
import { classifyDatabaseError } from '../../store/database-errors.ts'

export default fp(
  async (app) => {
    app.setErrorHandler((error, request, reply) => sendFailure(request, reply, error))
    app.setNotFoundHandler((request, reply) =>
      reply.code(404).send(failure(Code.noSuchPath, `no such path: ${request.method} ${request.url.split('?')[0]}`)),
    )
  },
  { name: 'envelope', fastify: '5.x' },
)

export function sendFailure(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const [code, message] = classify(error)
  if (code === Code.unexpected || code === Code.databaseUnavailable) request.log.error({ err: error }, 'request failed')
  return reply.code(statusOf(code)).send(failure(code, message))
}

/** What Fastify's own errors carry. */
interface FastifyErrorFields {
  validation?: Parameters<typeof describeErrors>[0]
  validationContext?: string
  statusCode?: number
  code?: string
}

/** Every error, ours or Fastify's or a library's, as (code, message) for the caller: nothing internal leaks. */
function classify(error: unknown): [BusinessCode, string] {
  if (error instanceof BusinessError) return [error.code, error.message]
  const fastifyError: FastifyErrorFields = typeof error === 'object' && error !== null ? error : {}
  if (fastifyError.validation) {
    const context = fastifyError.validationContext
    if (context === 'body' && isNotAnObject(fastifyError.validation)) return [Code.malformed, 'request body must be a JSON object']
    return [Code.badParameter, describeErrors(fastifyError.validation)]
  }
  // A database error that escaped the store: the caller's value (1002), the database out of reach or too busy (4001).
  const refusal = classifyDatabaseError(error)
  if (refusal) return [refusal.code, refusal.message]
  switch (fastifyError.statusCode) {
    case 400:
    case 415:
      return [
        Code.malformed,
        fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'content type must be application/json' : 'request body is not valid JSON',
      ]
    case 413:
      return [Code.tooLarge, 'request body too large']
    case 404:
      return [Code.noSuchPath, 'no such path']
    default:
      return [Code.unexpected, GENERIC_BUSY_MESSAGE]
  }
}
