// The one error handler: every error, ours, Fastify's or a library's, answered as the envelope
// with its code and HTTP status. Nothing internal leaks; the unexpected is logged with its detail.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { describeErrors, isNotAnObject } from '../contract/validation.ts'
import { classifyDatabaseError } from '../store/database-errors.ts'
import { BusinessError, Code, failure, GENERIC_BUSY_MESSAGE, statusOf } from './business-error.ts'

export function sendFailure(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const [code, message] = classify(error)
  if (code === Code.unexpected || code === Code.databaseUnavailable) request.log.error({ err: error }, 'request failed')
  return reply.code(statusOf(code)).send(failure(code, message))
}

/** Every error, ours or Fastify's or a library's, as (code, message) for the caller: nothing internal leaks. */
function classify(error: unknown): [Parameters<typeof failure>[0], string] {
  if (error instanceof BusinessError) return [error.code, error.message]
  const fastifyError = error as { validation?: any[]; validationContext?: string; statusCode?: number; code?: string }
  if (fastifyError.validation) {
    const context = fastifyError.validationContext
    if (context === 'body' && isNotAnObject(fastifyError.validation)) return [Code.malformed, 'request body must be a JSON object']
    return [Code.badParameter, describeErrors(fastifyError.validation)]
  }
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
