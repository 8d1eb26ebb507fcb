// Requests refused before Fastify routes them, answered as the envelope like every other refusal
// (the envelope of every answer), never as Node's or Fastify's own bodies: HTTP that cannot be parsed (a broken
// request line or header, a length that does not fit the body), headers too large, a request not
// received within REQUEST_TIMEOUT_MS / HEADERS_TIMEOUT_MS (code 1000, with the HTTP status that
// says which), and a path whose percent-encoding is not valid (404/1008, as any path not served).
// A request that could not be parsed has no Accept-Language to read: its answer is in English.
import http from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { Code, failure } from '../errors.ts'
import { english, message } from '../messages/message.ts'
import { sendEnvelope } from './plugins/envelope.ts'

/** Fastify's `clientErrorHandler`: the answer written on the socket, which Node then closes. */
export function answerClientError(this: { log: FastifyBaseLogger }, error: Error & { code?: string }, socket: Socket): void {
  // A connection reset or already closed: nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, said] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, message('requestTimeout')]
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, message('headersTooLarge')]
        : [400, message('malformedHttp')]
  this.log.debug({ err: error }, 'client error')
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const body = JSON.stringify({ ...failure(Code.malformed, said), msg: english(said) })
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      'Content-Language: en\r\nVary: Accept-Language\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

/** Fastify's `frameworkErrors`: a URL it cannot decode names no path the service serves. */
export function answerFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  request.log.debug({ err: error }, 'request refused by the router')
  void sendEnvelope(request, reply.code(404), failure(Code.noSuchPath, message('badPercentEncoding')))
}
