// Rate limits (@fastify/rate-limit): every route registered after this plugin counts against one
// limit per caller (the user once authenticated, the address otherwise), checked before the body
// is parsed. Login counts against two limits at once, the user name's and the address's, checked
// in the login route's preValidation (the plugin's own route hooks run one limiter per request).
import fastifyRateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { BusinessError, Code } from '../../errors.ts'
import { operationIdOfSchema } from '../routing.ts'

export interface RateLimitOptions {
  max: number
  loginMax: number
  windowMs: number
}

async function rateLimits(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  // Before the limiter's own onRoute hook (added next), which then leaves the login route to these.
  app.addHook('onRoute', (route) => {
    if (operationIdOfSchema(route.schema) !== 'systemLogin') return
    route.config = { ...route.config, rateLimit: false }
    route.preValidation = [...[route.preValidation ?? []].flat(), loginLimit]
  })
  await app.register(fastifyRateLimit, {
    global: true,
    hook: 'preParsing',
    max: options.max,
    timeWindow: options.windowMs,
    keyGenerator: (request) => (request.caller ? `user:${request.caller.userName}` : `ip:${request.ip}`),
    errorResponseBuilder: (_request, context) =>
      new BusinessError(Code.rateLimited, `rate limit exceeded: retry in ${Math.ceil(context.ttl / 1000)} s`),
  })
  const loginLimiters = [
    app.createRateLimit({ max: options.loginMax, timeWindow: options.windowMs, keyGenerator: (request) => `login-ip:${request.ip}` }),
    app.createRateLimit({
      max: options.loginMax,
      timeWindow: options.windowMs,
      keyGenerator: (request) => `login-user:${userNameOf(request.body)}`,
    }),
  ]
  async function loginLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const results = await Promise.all(loginLimiters.map((limiter) => limiter(request)))
    const exceeded = results.flatMap((result) => (!result.isAllowed && result.isExceeded ? [result] : []))
    if (exceeded.length > 0) {
      const retryAfter = Math.max(...exceeded.map((result) => result.ttlInSeconds))
      reply.header('retry-after', String(retryAfter))
      throw new BusinessError(Code.rateLimited, `too many logins: retry in ${retryAfter} s`)
    }
  }
}

function userNameOf(body: unknown): string {
  const userName = typeof body === 'object' && body !== null && 'userName' in body ? body.userName : undefined
  return String(userName ?? '')
}

export default fp(rateLimits, {
  name: 'rate-limits',
  fastify: '5.x',
  // Keys by the caller authentication found (onRequest runs before preParsing). The docs' pages are
  // registered first: the limiter's global hook reaches only the routes registered after it.
  dependencies: ['authentication', 'docs'],
})
