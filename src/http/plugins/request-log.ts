// One log line per request, once answered: request id, user, operationId, HTTP status, the
// envelope's business code and the duration. Nothing of the body, nor any header, is logged (so no
// password, token or Authorization value can be).
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { operationOf } from '../routing.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The business code of the envelope answered (undefined when the answer is not an envelope). */
    envelopeCode: number | undefined
  }
}

export default fp(
  async (app) => {
    app.decorateRequest('envelopeCode', undefined)
    // Handlers, the error handler and the not-found handler all send the envelope as an object.
    // (Callback-style hooks: no promise per request on the hot path.)
    app.addHook('preSerialization', (request, _reply, payload, done) => {
      if (typeof payload === 'object' && payload !== null && 'code' in payload && typeof payload.code === 'number') {
        request.envelopeCode = payload.code
      }
      done(null, payload)
    })
    app.addHook('onResponse', (request, reply, done) => {
      if (infoEnabled(request.log)) {
        request.log.info(
          {
            method: request.method,
            path: request.url.split('?')[0],
            operationId: operationOf(request),
            user: request.caller?.userName ?? null,
            status: reply.statusCode,
            code: request.envelopeCode ?? null,
            durationMs: Math.round(reply.elapsedTime * 10) / 10,
          },
          'request completed',
        )
      }
      done()
    })
  },
  // The user of each line is the caller authentication found.
  { name: 'request-log', fastify: '5.x', dependencies: ['authentication'] },
)

/** pino answers isLevelEnabled; Fastify's no-op logger (logging off) has nothing to write. */
function infoEnabled(log: FastifyRequest['log']): boolean {
  return 'isLevelEnabled' in log && typeof log.isLevelEnabled === 'function' && log.isLevelEnabled('info') === true
}
