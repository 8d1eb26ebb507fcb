// Rate limits (@fastify/rate-limit), counted where every instance counts: in Redis when REDIS_URL is
// set, else in PostgreSQL (store/rate-limit-store.ts), so N instances allow the configured rate,
// not N times it. Every route registered after this plugin counts against one limit per caller (the
// user once authenticated, the address otherwise), checked before the body is parsed. Login counts
// against two limits, neither of which a stranger elsewhere can exhaust for someone else: the
// client address's (checked before the body is read) and the (user name, address) pair's (checked
// once the small body is parsed). Ten wrong passwords from one address do not keep the same user
// out from another. `app.loginLimits` are the login route's options.
import fastifyRateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import type pg from 'pg'
import { BusinessError, Code } from '../../errors.ts'
import { PgRateLimitStore } from '../../store/rate-limit-store.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The login route's options: its own limits instead of the per-caller one. */
    loginLimits: Pick<RouteShorthandOptions, 'config' | 'preParsing' | 'preValidation'>
  }
}

export interface RateLimitOptions {
  max: number
  loginMax: number
  windowMs: number
  pool: pg.Pool
  /** Counts in Redis when given, else in the database. */
  redis: Redis | undefined
  /** Prefix of the keys: instances of one deployment share it, others (another database) do not. */
  namespace: string
}

async function rateLimits(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  await app.register(fastifyRateLimit, {
    global: true,
    hook: 'preParsing',
    max: options.max,
    timeWindow: options.windowMs,
    ...(options.redis
      ? // Redis down: requests go on unlimited (logged) rather than all failing.
        { redis: options.redis, skipOnError: true }
      : // The database down fails the request anyway (503/4001).
        { store: PgRateLimitStore.over(options.pool) as never }),
    keyGenerator: (request) => `${options.namespace}${request.caller ? `user:${request.caller.userId}` : `ip:${request.ip}`}`,
    errorResponseBuilder: (_request, context) =>
      new BusinessError(Code.rateLimited, `rate limit exceeded: retry in ${Math.ceil(context.ttl / 1000)} s`),
  })
  const loginLimiter = (keyOf: (request: FastifyRequest) => string) => {
    const limiter = app.createRateLimit({
      max: options.loginMax,
      timeWindow: options.windowMs,
      keyGenerator: (request) => `${options.namespace}${keyOf(request)}`,
    })
    return async (request: FastifyRequest) => {
      const result = await limiter(request)
      if (!result.isAllowed && result.isExceeded) {
        throw Object.assign(new BusinessError(Code.rateLimited, `too many logins: retry in ${result.ttlInSeconds} s`), {
          retryAfter: result.ttlInSeconds,
        })
      }
    }
  }
  const perAddress = loginLimiter((request) => `login-ip:${request.ip}`)
  const perUserAndAddress = loginLimiter((request) => `login-user:${JSON.stringify([userNameOf(request.body), request.ip])}`)
  app.decorate('loginLimits', {
    config: { rateLimit: false },
    preParsing: async (request, reply, payload) => {
      await withRetryAfter(reply, perAddress(request))
      return payload
    },
    preValidation: async (request, reply) => withRetryAfter(reply, perUserAndAddress(request)),
  } satisfies FastifyInstance['loginLimits'])
}

async function withRetryAfter(reply: { header(name: string, value: string): unknown }, check: Promise<void>): Promise<void> {
  try {
    await check
  } catch (error) {
    const retryAfter = (error as { retryAfter?: number }).retryAfter
    if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter))
    throw error
  }
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
