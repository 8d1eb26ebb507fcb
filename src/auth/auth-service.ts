// Login, tokens and user administration. Tokens are HS256 JWTs signed by @fastify/jwt:
// `sub` is the user's id (never reused: a user deleted and added again under the same name is
// someone else), `iss` and `aud` name the edition and enterprise that issued it (another edition is
// never its audience, even with the same secret), `typ` tells an access token from a refresh token,
// `sid` names the login session (logout revokes it), `gen` is the user's token generation (a
// password change or a disable ends older tokens).
import { randomBytes, randomUUID } from 'node:crypto'
import type { JWT, VerifyOptions } from '@fastify/jwt'
import { BusinessError, Code } from '../errors.ts'
import type { Prisma } from '../store/database.ts'
import { AUTH_CHANNEL, type AuthState, roleOf, type UserState } from './auth-state.ts'
import { hashIsOutdated, hashPassword, UNKNOWN_USER_HASH, verifyPassword } from './passwords.ts'
import { message } from '../messages/message.ts'

export const LOGIN_TOKEN_SECONDS = 30 * 24 * 3600
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600
export const REFRESHED_ACCESS_SECONDS = 2 * 3600

export type TokenKind = 'access' | 'refresh'

export interface TokenClaims {
  sub: string
  typ: TokenKind
  sid: string
  gen: number
  iat: number
  exp: number
}

export interface Caller {
  /** The user's id (the token's `sub`). */
  userId: string
  userName: string
  role: UserState['role']
  /** The enterprise an `enterprise` account acts for (park edition); null for other roles. */
  companyCode: string | null
  sid: string
  /** Seconds since the epoch at which the presented token expires. */
  exp: number
  /** The token presented: kept for refresh, which answers with the same refresh token. */
  token: string
}

export type Role = UserState['role']

export interface UserView {
  userName: string
  role: Role
  companyCode: string | null
  enabled: boolean
  createTime: Date
  updateTime: Date
}

export class AuthService {
  private readonly prisma: Prisma
  private readonly state: AuthState
  private readonly jwt: JWT
  private readonly clock: () => number
  /** Only an injected clock (tests) needs per-call verification options; otherwise the cached verifier serves. */
  private readonly verifyOptions: Partial<VerifyOptions> | undefined

  constructor(options: { prisma: Prisma; state: AuthState; jwt: JWT; clock?: () => number }) {
    this.prisma = options.prisma
    this.state = options.state
    this.jwt = options.jwt
    this.clock = options.clock ?? Date.now
    this.verifyOptions = options.clock ? { algorithms: ['HS256'], clockTimestamp: 0 } : undefined
  }

  /**
   * Verifies a bearer token of the expected kind and returns the caller, or throws 2002 for any
   * token that is malformed, tampered, signed with another secret or algorithm, expired, revoked,
   * of a disabled or removed user, from before a password change, or of the wrong kind.
   */
  authenticate(token: string, kind: TokenKind): Caller {
    let claims: TokenClaims
    try {
      claims = this.verifyOptions
        ? this.jwt.verify<TokenClaims>(token, { ...this.verifyOptions, clockTimestamp: this.clock() })
        : this.jwt.verify<TokenClaims>(token)
    } catch {
      throw new BusinessError(Code.badToken, message('tokenInvalid'))
    }
    if (claims.typ !== kind || typeof claims.sid !== 'string') throw new BusinessError(Code.badToken, message('tokenWrongKind'))
    const user = typeof claims.sub === 'string' ? this.state.userById(claims.sub) : undefined
    if (!user || !user.enabled || user.tokenGeneration !== claims.gen || this.state.isRevoked(claims.sid)) {
      throw new BusinessError(Code.badToken, message('tokenInvalid'))
    }
    return {
      userId: user.id,
      userName: user.userName,
      role: user.role,
      companyCode: user.companyCode,
      sid: claims.sid,
      exp: claims.exp,
      token,
    }
  }

  async login(userName: string, password: string): Promise<{ token: string; refresh_token: string; expires_in: number }> {
    const user = await this.prisma.appUser.findUnique({ where: { userName } })
    const matches = await verifyPassword(password, user?.passwordHash ?? UNKNOWN_USER_HASH)
    if (!user || !matches || !user.enabled) throw new BusinessError(Code.loginFailed, message('loginFailed'))
    if (hashIsOutdated(user.passwordHash)) await this.storeAtTodaysCost(user.id, user.passwordHash, password)
    const sid = randomUUID()
    return {
      token: this.sign(user.id, 'access', sid, user.tokenGeneration, LOGIN_TOKEN_SECONDS),
      refresh_token: this.sign(user.id, 'refresh', sid, user.tokenGeneration, REFRESH_TOKEN_SECONDS),
      expires_in: LOGIN_TOKEN_SECONDS,
    }
  }

  /**
   * The password just verified, hashed again at today's cost; unless the hash changed meanwhile (a
   * password change wins). The user's tokens stay valid: the password is the same.
   */
  private async storeAtTodaysCost(userId: string, outdated: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password)
    await this.prisma.appUser.updateMany({ where: { id: userId, passwordHash: outdated }, data: { passwordHash } })
  }

  /** A new 2-hour access token for the refresh token's session; the refresh token is reused. */
  refresh(caller: Caller): { access_token: string; refresh_token: string; expires_in: number } {
    const user = this.state.userById(caller.userId)
    // Authentication found the user a moment ago; removed since, the token is of nobody.
    if (!user) throw new BusinessError(Code.badToken, message('tokenInvalid'))
    return {
      access_token: this.sign(caller.userId, 'access', caller.sid, user.tokenGeneration, REFRESHED_ACCESS_SECONDS),
      refresh_token: caller.token,
      expires_in: REFRESHED_ACCESS_SECONDS,
    }
  }

  /** Revokes the caller's login session: its access and refresh tokens stop working. */
  async logout(caller: Caller): Promise<void> {
    const expiresAt = new Date(Math.max(caller.exp * 1000, this.clock() + REFRESH_TOKEN_SECONDS * 1000))
    await this.prisma.$transaction([
      this.prisma.revokedSession.upsert({ where: { sid: caller.sid }, create: { sid: caller.sid, expiresAt }, update: {} }),
      this.prisma.revokedSession.deleteMany({ where: { expiresAt: { lt: new Date(this.clock()) } } }),
      this.notify(),
    ])
    await this.state.reload()
  }

  /** First start with no user: creates `admin`. Returns the generated password when none was configured. */
  async ensureAdmin(configuredPassword: string | undefined): Promise<string | undefined> {
    if ((await this.prisma.appUser.count()) > 0) return undefined
    const password = configuredPassword ?? randomBytes(15).toString('base64url')
    const passwordHash = await hashPassword(password)
    // Several instances may race here: the first insert wins, the others do nothing.
    const created = await this.prisma.appUser.createMany({
      data: [{ userName: 'admin', passwordHash, role: 'admin' }],
      skipDuplicates: true,
    })
    await this.state.reload()
    return created.count === 1 && !configuredPassword ? password : undefined
  }

  async addUser(input: { userName: string; password: string; role: Role; companyCode?: string; enabled?: boolean }): Promise<void> {
    const companyCode = checkCompanyCode(input.role, input.companyCode)
    const passwordHash = await hashPassword(input.password)
    const created = await this.prisma.$transaction([
      this.prisma.appUser.createMany({
        data: [{ userName: input.userName, passwordHash, role: input.role, companyCode, enabled: input.enabled ?? true }],
        skipDuplicates: true,
      }),
      this.notify(),
    ])
    if (created[0].count === 0) throw new BusinessError(Code.duplicateUnique, message('userNameExists', { userName: input.userName }))
    await this.state.reload()
  }

  async updateUser(input: { userName: string; password?: string; role?: Role; companyCode?: string; enabled?: boolean }): Promise<void> {
    const current = this.state.user(input.userName) ?? (await this.prisma.appUser.findUnique({ where: { userName: input.userName } }))
    if (!current) throw new BusinessError(Code.notFound, message('userNotFound', { userName: input.userName }))
    const role = input.role ?? (current.role as Role)
    // An enterprise account keeps its companyCode unless another is given; other roles have none.
    const companyCode = checkCompanyCode(
      role,
      input.companyCode ?? (role === 'enterprise' ? (current.companyCode ?? undefined) : undefined),
    )
    const losesAdmin = current.role === 'admin' && ((input.role !== undefined && input.role !== 'admin') || input.enabled === false)
    if (losesAdmin) await this.keepOneAdmin(input.userName)
    const endsTokens = input.password !== undefined || input.enabled === false
    await this.prisma.$transaction([
      this.prisma.appUser.update({
        where: { userName: input.userName },
        data: {
          ...(input.role !== undefined && { role: input.role }),
          companyCode,
          ...(input.enabled !== undefined && { enabled: input.enabled }),
          ...(input.password !== undefined && { passwordHash: await hashPassword(input.password) }),
          ...(endsTokens && { tokenGeneration: { increment: 1 } }),
          updateTime: new Date(this.clock()),
        },
      }),
      this.notify(),
    ])
    await this.state.reload()
  }

  async deleteUser(userName: string): Promise<void> {
    const current = this.state.user(userName)
    if (!current) throw new BusinessError(Code.notFound, message('userNotFound', { userName }))
    if (current.role === 'admin') await this.keepOneAdmin(userName)
    await this.prisma.$transaction([this.prisma.appUser.deleteMany({ where: { userName } }), this.notify()])
    await this.state.reload()
  }

  async listUsers(pageNum: number, pageSize: number): Promise<{ list: UserView[]; total: number }> {
    const [list, total] = await this.prisma.$transaction([
      this.prisma.appUser.findMany({
        select: { userName: true, role: true, companyCode: true, enabled: true, createTime: true, updateTime: true },
        orderBy: { userName: 'asc' },
        skip: (pageNum - 1) * pageSize,
        take: pageSize,
      }),
      this.prisma.appUser.count(),
    ])
    return { list: list.map((user) => ({ ...user, role: roleOf(user.role) })), total }
  }

  /** Refuses to demote, disable or delete the last enabled admin: nobody could administer users then. */
  private async keepOneAdmin(userName: string): Promise<void> {
    const others = await this.prisma.appUser.count({ where: { role: 'admin', enabled: true, userName: { not: userName } } })
    if (others === 0) throw new BusinessError(Code.badParameter, message('lastAdmin', { userName }))
  }

  private notify() {
    return this.prisma.$executeRawUnsafe(`SELECT pg_notify('${AUTH_CHANNEL}', $1)`, this.state.instanceId)
  }

  /** `iss` and `aud` come from the signer's options (see the authentication plugin). */
  private sign(userId: string, typ: TokenKind, sid: string, gen: number, lifetimeSeconds: number): string {
    return this.jwt.sign({ sub: userId, typ, sid, gen }, { expiresIn: lifetimeSeconds, clockTimestamp: this.clock() })
  }
}

/** An `enterprise` account is bound to one companyCode; no other role has one (1002 naming the field). */
function checkCompanyCode(role: Role, companyCode: string | undefined): string | null {
  if (role === 'enterprise') {
    if (companyCode === undefined) throw new BusinessError(Code.badParameter, message('companyCodeForEnterprise'))
    return companyCode
  }
  if (companyCode !== undefined) throw new BusinessError(Code.badParameter, message('companyCodeNotForRole', { role }))
  return null
}
