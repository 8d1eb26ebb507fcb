// Security headers on every answer (@fastify/helmet): `X-Content-Type-Options: nosniff`, a
// Content-Security-Policy that lets an API answer load nothing and be framed by no one (the docs
// plugin sets the Swagger UI's own strict policy on its pages), and helmet's other defaults. CORS
// (@fastify/cors) is off unless CORS_ORIGINS names the browser origins allowed to call.
import fastifyCors from '@fastify/cors'
import fastifyHelmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

export interface SecurityHeadersOptions {
  /** Origins allowed to call from a browser (CORS); none: no CORS headers, browsers refuse cross-origin calls. */
  corsOrigins: string[]
}

async function securityHeaders(app: FastifyInstance, options: SecurityHeadersOptions): Promise<void> {
  await app.register(fastifyHelmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
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

export default fp(securityHeaders, { name: 'security-headers', fastify: '5.x' })
