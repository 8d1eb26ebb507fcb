// Security headers on every answer (helmet): `X-Content-Type-Options: nosniff`, a
// Content-Security-Policy that lets an API answer load nothing and be framed by no one (the docs
// plugin sets the Swagger UI's own strict policy on its pages), and helmet's other defaults. CORS
// (@fastify/cors) is off unless CORS_ORIGINS names the browser origins allowed to call.
//
// The headers depend on nothing of the request, so helmet computes them once, at start (running its
// middleware per request, as @fastify/helmet does, cost several percent of a write's CPU).
import type { IncomingMessage, ServerResponse } from 'node:http'
import fastifyCors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'

export interface SecurityHeadersOptions {
  /** Origins allowed to call from a browser (CORS); none: no CORS headers, browsers refuse cross-origin calls. */
  corsOrigins: string[]
}

async function securityHeaders(app: FastifyInstance, options: SecurityHeadersOptions): Promise<void> {
  const headers = helmetHeaders({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  })
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers)
    done()
  })
  if (options.corsOrigins.length === 0) return
  await app.register(fastifyCors, {
    origin: options.corsOrigins,
    methods: ['GET', 'POST'],
    allowedHeaders: ['authorization', 'content-type', 'idempotency-key'],
    exposedHeaders: ['retry-after'],
    maxAge: 600,
  })
}

/** The headers helmet sets on an answer (its middleware run once, on an answer that only records them). */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const recorder = {
    setHeader(name: string, value: string) {
      headers[name.toLowerCase()] = value
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()]
    },
  }
  let failure: unknown
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => (failure = error))
  if (failure) throw failure
  return headers
}

export default fp(securityHeaders, { name: 'security-headers', fastify: '5.x' })
