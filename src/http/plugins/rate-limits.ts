// Rate limits (@fastify/rate-limit), counted where every instance counts: in Redis when REDIS_URL is
// set, else in PostgreSQL (store/rate-limit-store.ts), so N instances allow the configured rate,
// not N times it. Every route registered after this plugin counts against one limit per caller (the
// user once authenticated, the address otherwise), checked before the body is parsed. Login counts
// against two limits instead, neither of which a stranger elsewhere can exhaust for someone else:
// the client address's (checked in preParsing, before the body is read) and the (user name,
// address) pair's (checked in preValidation, once the small body is parsed). Ten wrong passwords
// from one address do not keep the same user out from another.
import fastifyRateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingAsyncHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import type pg from 'pg'
import { BusinessError, Code } from '../../errors.ts'
import { PgRateLimitStore } from '../../store/rate-limit-store.ts'
import { operationIdOfSchema } from '../routing.ts'
import { message } from '../../messages/message.ts'

export interface RateLimitOptions {
  max: number
  loginMax: number
  windowMs: number
  pool: pg.Pool
  /** Counts in Redis when given, else in the database. */
  redis: Redis | undefined
  /** Prefix of the keys: instances of one deployment share it, others (another database) do not. */
  namespace: string
  /** Requests not counted at all (the park's pushes), once authenticated. */
  unlimited?: (request: FastifyRequest) => boolean
}

type LoginCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

async function rateLimits(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const login: { perAddress?: LoginCheck; perUserAndAddress?: LoginCheck } = {}
  const perAddress: preParsingAsyncHookHandler = async (request, reply, payload) => {
    await login.perAddress!(request, reply)
    return payload
  }
  const perUserAndAddress = (request: FastifyRequest, reply: FastifyReply) => login.perUserAndAddress!(request, reply)
  // Before the limiter's own onRoute hook (added next), which then leaves the login route to these.
  app.addHook('onRoute', (route) => {
    if (operationIdOfSchema(route.schema) !== 'systemLogin') return
    route.config = { ...route.config, rateLimit: false }
    route.preParsing = [...[route.preParsing ?? []].flat(), perAddress]
    route.preValidation = [...[route.preValidation ?? []].flat(), perUserAndAddress]
  })
  await app.register(fastifyRateLimit, {
    global: true,
    hook: 'preParsing',
    max: options.max,
    timeWindow: options.windowMs,
    ...(options.redis
      ? // Redis down: requests go on unlimited (logged) rather than all failing.
        { redis: options.redis, skipOnError: true }
      : // The database down fails the request anyway (503/4001).
        { store: PgRateLimitStore.over(options.pool) }),
    ...(options.unlimited && { allowList: options.unlimited }),
    keyGenerator: (request) => `${options.namespace}${request.caller ? `user:${request.caller.userId}` : `ip:${request.ip}`}`,
    errorResponseBuilder: (_request, context) =>
      new BusinessError(Code.rateLimited, message('rateLimited', { seconds: Math.ceil(context.ttl / 1000) })),
  })
  const loginLimiter = (keyOf: (request: FastifyRequest) => string): LoginCheck => {
    const limiter = app.createRateLimit({
      max: options.loginMax,
      timeWindow: options.windowMs,
      ...(options.unlimited && { allowList: options.unlimited }),
      keyGenerator: (request) => `${options.namespace}${keyOf(request)}`,
    })
    return async (request, reply) => {
      const result = await limiter(request)
      if (!result.isAllowed && result.isExceeded) {
        reply.header('retry-after', String(result.ttlInSeconds))
        throw new BusinessError(Code.rateLimited, message('tooManyLogins', { seconds: result.ttlInSeconds }))
      }
    }
  }
  login.perAddress = loginLimiter((request) => `login-ip:${request.ip}`)
  login.perUserAndAddress = loginLimiter((request) => `login-user:${JSON.stringify([userNameOf(request.body), request.ip])}`)
}

function userNameOf(body: unknown): string {
  const userName = typeof body === 'object' && body !== null && 'userName' in body ? body.userName : undefined
  return typeof userName === 'string' ? userName : ''
}

export default fp(rateLimits, {
  name: 'rate-limits',
  fastify: '5.x',
  // Keys by the caller authentication found (onRequest runs before preParsing). The docs' pages are
  // registered first: the limiter's global hook reaches only the routes registered after it.
  dependencies: ['authentication', 'docs'],
})
