// The envelope and the one error handler: every error, ours, Fastify's or a library's, answered as
// the envelope with its code and HTTP status; an unknown path is 1008. Nothing internal leaks; the
// unexpected is logged with its detail. Every envelope's `msg` is written here, in the request's
// language (http/language.ts), which the answer names in Content-Language.
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { describeProblems, isNotAnObject } from '../../contract/validation.ts'
import { BusinessError, type BusinessCode, Code, type Envelope, failure, statusOf } from '../../errors.ts'
import { type Language, type Message, message, render } from '../../messages/message.ts'
import { classifyDatabaseError } from '../../store/database-errors.ts'
import { announceLanguage, languageOf } from '../language.ts'

export default fp(
  async (app) => {
    const notFound = (request: FastifyRequest, reply: FastifyReply) =>
      sendEnvelope(
        request,
        reply.code(404),
        failure(Code.noSuchPath, message('noSuchPathOf', { method: request.method, path: request.url.split('?')[0] })),
      )
    // A path that names no operation is 1008 whatever its body: Fastify reads the body of such a
    // request too, and an error reading it comes here before the not-found handler would run.
    app.setErrorHandler((error, request, reply) => (request.is404 ? notFound(request, reply) : sendFailure(request, reply, error)))
    app.setNotFoundHandler(notFound)
    // The envelopes the operations return, success or a kept answer replayed, written the same way.
    app.addHook('preSerialization', async (request, reply, payload) => (isEnvelope(payload) ? written(request, reply, payload) : payload))
  },
  { name: 'envelope', fastify: '5.x' },
)

export function sendFailure(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const [code, said] = classify(error)
  if (code === Code.unexpected || code === Code.databaseUnavailable) request.log.error({ err: error }, 'request failed')
  return sendEnvelope(request, reply.code(statusOf(code)), failure(code, said))
}

/** Sends an envelope, its `msg` in the request's language. */
export function sendEnvelope(request: FastifyRequest, reply: FastifyReply, envelope: Envelope): FastifyReply {
  return reply.send(written(request, reply, envelope))
}

/** The envelope as written: `msg` as text in the request's language, named in Content-Language. */
function written(request: FastifyRequest, reply: FastifyReply, envelope: Envelope): Envelope {
  const language = languageOf(request)
  announceLanguage(reply, language)
  return typeof envelope.msg === 'string' ? envelope : { ...envelope, msg: msgText(envelope.code, envelope.msg, language) }
}

/** A message as `msg`: a 1002 says in Chinese first that a parameter is wrong. */
export function msgText(code: BusinessCode, said: Message, language: Language): string {
  return render(code === Code.badParameter ? message('badParameter', { detail: said }) : said, language)
}

function isEnvelope(payload: unknown): payload is Envelope {
  return typeof payload === 'object' && payload !== null && 'code' in payload && 'success' in payload && 'msg' in payload
}

/** What Fastify's own errors carry. */
interface FastifyErrorFields {
  validation?: Parameters<typeof describeProblems>[0]
  validationContext?: string
  statusCode?: number
  code?: string
}

/** `idempotency-key` → `Idempotency-Key`. */
const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())

/** Every error, ours or Fastify's or a library's, as (code, message) for the caller: nothing internal leaks. */
function classify(error: unknown): [BusinessCode, Message] {
  if (error instanceof BusinessError) return [error.code, error.msg]
  const fastifyError: FastifyErrorFields = typeof error === 'object' && error !== null ? error : {}
  if (fastifyError.validation) {
    const context = fastifyError.validationContext
    if (context === 'body' && isNotAnObject(fastifyError.validation)) return [Code.malformed, message('bodyNotObject')]
    // Fastify validates headers by their lower-case names; the message names one as the document does.
    const errors =
      context === 'headers'
        ? fastifyError.validation.map((error) => ({ ...error, instancePath: error.instancePath.replace(/[^/]+/g, headerName) }))
        : fastifyError.validation
    return [Code.badParameter, describeProblems(errors)]
  }
  // A database error that escaped the store: the caller's value (1002), the database out of reach or too busy (4001).
  const refusal = classifyDatabaseError(error)
  if (refusal) return [refusal.code, refusal.message]
  switch (fastifyError.statusCode) {
    case 400:
    case 415:
      return [Code.malformed, fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? message('contentTypeJson') : message('bodyNotJson')]
    case 413:
      return [Code.tooLarge, message('bodyTooLarge')]
    case 404:
      return [Code.noSuchPath, message('noSuchPath')]
    default:
      return [Code.unexpected, message('systemBusy')]
  }
}
