// Authentication and roles, in onRequest (so 401 and 403 come before any parsing): an operation the
// document secures needs a bearer token of the right kind (the refresh operation takes the refresh
// token), and the caller's role must be among the operation's x-roles. Tokens are signed and
// verified by @fastify/jwt; then the edition's own refusals (`refuse`: an operation another edition
// serves, the park's business writes). The caller found is `request.caller`, the service `app.auth`.
import fastifyJwt from '@fastify/jwt'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AuthService, type Caller } from '../../auth/auth-service.ts'
import type { AuthState } from '../../auth/auth-state.ts'
import { BusinessError, Code } from '../../errors.ts'
import type { Prisma } from '../../store/database.ts'
import type { OperationPolicy } from '../operation-policy.ts'
import { operationIdOf } from '../routing.ts'
import { message } from '../../messages/message.ts'

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null
  }
  interface FastifyInstance {
    auth: AuthService
  }
}

export interface AuthenticationOptions {
  policies: Map<string, OperationPolicy>
  /** The edition's refusal of an authenticated caller the roles let through (403), if any. */
  refuse: Refusal
  prisma: Prisma
  state: AuthState
  secret: string
  /** Who issues and accepts this service's tokens (`iss` = `aud`): the edition and the enterprise, see tokenAudience. */
  audience: string
  /** Milliseconds since the epoch; tests inject their own to move time. */
  clock?: () => number
}

/** Refuses (answers the error of) a request by an authenticated caller, or lets it through (undefined). */
export type Refusal = (policy: OperationPolicy, request: FastifyRequest & { caller: Caller }) => BusinessError | undefined

/** The `iss` and `aud` of an edition's tokens: which edition, for which enterprise. */
export function tokenAudience(edition: string, companyCode: string): string {
  return `safety-platform/${edition}/${companyCode}`
}

async function authentication(app: FastifyInstance, options: AuthenticationOptions): Promise<void> {
  const { policies } = options
  await app.register(fastifyJwt, {
    secret: options.secret,
    sign: { algorithm: 'HS256', iss: options.audience, aud: options.audience },
    // Verified tokens are cached (until they expire): revocation, disabled users and roles are
    // checked after verification, on every request, from AuthState. A token issued for another
    // edition or enterprise is refused even when it shares the secret.
    verify: {
      algorithms: ['HS256'],
      cache: 10_000,
      allowedIss: options.audience,
      allowedAud: options.audience,
      requiredClaims: ['iss', 'aud', 'sub', 'exp'],
    },
  })
  const auth = new AuthService({ prisma: options.prisma, state: options.state, jwt: app.jwt, clock: options.clock })
  app.decorate('auth', auth)
  app.decorateRequest('caller', null)
  // Callback-style hook: checked synchronously, no promise per request on the hot path.
  app.addHook('onRequest', (request, _reply, done) => {
    const operationId = operationIdOf(request)
    const policy = operationId ? policies.get(operationId) : undefined
    if (!policy?.authenticated) return done()
    const header = request.headers.authorization
    const match = typeof header === 'string' ? /^Bearer ([^\s]+)$/.exec(header) : null
    if (!match) return done(new BusinessError(Code.notLoggedIn, message('notLoggedIn')))
    let caller: Caller
    try {
      caller = auth.authenticate(match[1], policy.tokenKind)
    } catch (error) {
      return done(error instanceof Error ? error : new Error(String(error)))
    }
    request.caller = caller
    if (!policy.roles.includes(caller.role)) {
      return done(new BusinessError(Code.forbidden, message('roleMayNotCall', { role: caller.role, operationId: String(operationId) })))
    }
    done(options.refuse(policy, Object.assign(request, { caller })))
  })
}

// Its refusals (401, 403) are answered by the envelope's error handler.
export default fp(authentication, { name: 'authentication', fastify: '5.x', dependencies: ['envelope'] })
