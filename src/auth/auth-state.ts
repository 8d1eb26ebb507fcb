// Who may call, answered from memory on every request: each user's role, whether it is enabled and
// its token generation, and the revoked login sessions. Every change commits a NOTIFY on
// `auth_changed` in its own transaction; each instance LISTENs and reloads, and reloads at once
// after a change of its own, so a logout or a disabled user takes effect before the answer is sent.
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import type { Prisma } from '../store/database.ts'

export const AUTH_CHANNEL = 'auth_changed'

/** `enterprise`: the park edition's account of one enterprise; `collector`: a gateway sending readings (enterprise edition). */
export const ROLES = ['admin', 'operator', 'viewer', 'enterprise', 'collector'] as const

export interface UserState {
  /** The user's identifier, never reused: tokens name their user by it (`sub`). */
  id: string
  userName: string
  role: (typeof ROLES)[number]
  /** The enterprise an `enterprise` account (park edition) acts for; null for other roles. */
  companyCode: string | null
  enabled: boolean
  tokenGeneration: number
}

export class AuthState {
  /** Sent as the payload of this instance's notifications, which it has already applied itself. */
  readonly instanceId = randomUUID()
  /** By user name, and by id (what tokens carry). */
  private users = new Map<string, UserState>()
  private usersById = new Map<string, UserState>()
  private revoked = new Set<string>()
  private readonly prisma: Prisma
  private readonly databaseUrl: string
  private listener: pg.Client | undefined
  private refreshTimer: NodeJS.Timeout | undefined
  private closed = false
  private loading: Promise<void> | undefined
  private reloadAgain = false

  constructor(prisma: Prisma, databaseUrl: string) {
    this.prisma = prisma
    this.databaseUrl = databaseUrl
  }

  async start(): Promise<void> {
    // Listening first: a change committed while the users load is then heard and loaded again,
    // not missed until the next refresh.
    await this.listen()
    await this.reload()
    // A safety net for notifications missed while the listening connection was down.
    this.refreshTimer = setInterval(() => void this.reload().catch(() => {}), 30_000)
    this.refreshTimer.unref()
  }

  user(userName: string): UserState | undefined {
    return this.users.get(userName)
  }

  /** The user a token's `sub` names; a deleted user's id names no one, ever. */
  userById(id: string): UserState | undefined {
    return this.usersById.get(id)
  }

  isRevoked(sid: string): boolean {
    return this.revoked.has(sid)
  }

  /** Reloads from the database; concurrent calls share one load, and a call during a load queues one more. */
  reload(): Promise<void> {
    if (this.loading) {
      this.reloadAgain = true
      return this.loading
    }
    this.loading = (async () => {
      try {
        do {
          this.reloadAgain = false
          const [users, sessions] = await Promise.all([
            this.prisma.appUser.findMany({
              select: { id: true, userName: true, role: true, companyCode: true, enabled: true, tokenGeneration: true },
            }),
            this.prisma.revokedSession.findMany({ where: { expiresAt: { gt: new Date() } }, select: { sid: true } }),
          ])
          const states = users.map((user) => ({ ...user, role: roleOf(user.role) }))
          this.users = new Map(states.map((user) => [user.userName, user]))
          this.usersById = new Map(states.map((user) => [user.id, user]))
          this.revoked = new Set(sessions.map((session) => session.sid))
        } while (this.reloadAgain)
      } finally {
        this.loading = undefined
      }
    })()
    return this.loading
  }

  private async listen(): Promise<void> {
    if (this.closed) return
    const client = new pg.Client({ connectionString: this.databaseUrl })
    client.on('notification', (message) => {
      if (message.payload !== this.instanceId) void this.reload().catch(() => {})
    })
    client.on('error', () => {
      // Connection lost: reconnect, and reload what may have been missed meanwhile.
      if (this.listener === client) this.listener = undefined
      client.end().catch(() => {})
      if (!this.closed)
        setTimeout(
          () =>
            void this.listen()
              .then(() => this.reload())
              .catch(() => {}),
          1000,
        ).unref()
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${AUTH_CHANNEL}`)
      this.listener = client
    } catch {
      client.end().catch(() => {})
      if (!this.closed)
        setTimeout(
          () =>
            void this.listen()
              .then(() => this.reload())
              .catch(() => {}),
          1000,
        ).unref()
    }
  }

  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.refreshTimer)
    await this.listener?.end().catch(() => {})
  }
}

/** A role as stored (the column is text; the migrations check it is one of ROLES). */
export function roleOf(stored: string): UserState['role'] {
  const role = ROLES.find((candidate) => candidate === stored)
  if (!role) throw new Error(`unknown role ${stored} in app_user`)
  return role
}
