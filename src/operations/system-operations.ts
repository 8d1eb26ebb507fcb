// Login, tokens, user administration and push administration (the `system` module).
import type { AuthService, Caller, Role } from '../auth/auth-service.ts'
import { BusinessError, Code, type Envelope, success } from '../errors.ts'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import { withAttachments } from '../store/attachment-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import { pushedTables } from '../store/pushed-facts.ts'
import type { SyncStore } from '../store/sync-store.ts'
import { message } from '../messages/message.ts'

/** The most failed records and attachments `/system/sync/status` lists (`failures`). */
export const FAILURES_LISTED = 100

/** A reconciliation's outcome as kept and answered (park/reconcile.ts computes it). */
export interface ReconcileOutcome {
  /** ISO 8601 instant of the run. */
  time: string
  differences: number
  repushed: number
  error: string | null
  resources: unknown[]
  attachments: unknown[]
}

/** Reconciliation with the park (enterprise edition with a park configured): park/reconcile.ts. */
export interface ReconcileRunner {
  run(limit?: number): Promise<ReconcileOutcome>
  last(): Promise<ReconcileOutcome | null>
}

export class SystemOperations {
  private readonly auth: AuthService
  private readonly sync: SyncStore
  private readonly registry: ResourceRegistry
  private readonly format: InstantFormatter
  /** Drains now what an operator queued again (park/park-push.ts retryNow); nothing without a push. */
  private readonly retryPush: () => void
  /** The roles an admin may grant here (the `enterprise` role only where enterprises push to). */
  private readonly grantableRoles: ReadonlySet<Role>
  /** Reconciliation with the park, where a push is configured. */
  private readonly reconciler: ReconcileRunner | undefined
  /** Why the park fails the push's calls now (park/park-push.ts callFailure), where a push is configured. */
  private readonly pushFailure: () => { reason: string; accountRefused: boolean } | undefined
  private readonly failedRequeueRounds: number

  constructor(options: {
    auth: AuthService
    sync: SyncStore
    registry: ResourceRegistry
    format: InstantFormatter
    retryPush?: () => void
    grantableRoles: ReadonlySet<Role>
    reconciler?: ReconcileRunner
    pushFailure?: () => { reason: string; accountRefused: boolean } | undefined
    failedRequeueRounds: number
  }) {
    this.pushFailure = options.pushFailure ?? (() => undefined)
    this.grantableRoles = options.grantableRoles
    this.reconciler = options.reconciler
    this.failedRequeueRounds = options.failedRequeueRounds
    this.auth = options.auth
    this.sync = options.sync
    this.registry = options.registry
    this.format = options.format
    this.retryPush = options.retryPush ?? (() => undefined)
  }

  async login(body: { userName: string; password: string }): Promise<Envelope> {
    return success(await this.auth.login(body.userName, body.password))
  }

  refresh(caller: Caller): Envelope {
    return success(this.auth.refresh(caller))
  }

  async logout(caller: Caller): Promise<Envelope> {
    await this.auth.logout(caller)
    return success()
  }

  async userAdd(body: { userName: string; password: string; role: Role; companyCode?: string; enabled?: boolean }): Promise<Envelope> {
    this.checkRole(body.role)
    await this.auth.addUser(body)
    return success()
  }

  async userUpdate(body: { userName: string; password?: string; role?: Role; companyCode?: string; enabled?: boolean }): Promise<Envelope> {
    if (body.role !== undefined) this.checkRole(body.role)
    await this.auth.updateUser(body)
    return success()
  }

  async userDelete(body: { userName: string }): Promise<Envelope> {
    await this.auth.deleteUser(body.userName)
    return success()
  }

  async userList(body: { pageNum?: number; pageSize?: number } | undefined): Promise<Envelope> {
    const pageNum = body?.pageNum ?? 1
    const pageSize = body?.pageSize ?? 20
    const { list, total } = await this.auth.listUsers(pageNum, pageSize)
    return success({
      list: list.map((user) => ({ ...user, createTime: this.format(user.createTime), updateTime: this.format(user.updateTime) })),
      total,
      pageNum,
      pageSize,
    })
  }

  async syncStatus(): Promise<Envelope> {
    const targets = pushedTables(this.registry.pushed)
    const [resources, exhausted, failures, reconcile] = await Promise.all([
      this.sync.counts(targets),
      this.sync.exhausted(targets, this.failedRequeueRounds),
      this.sync.failures(targets, FAILURES_LISTED),
      this.reconciler?.last() ?? null,
    ])
    const ages = resources.map((counts) => counts.oldestPendingSeconds).filter((age): age is number => age !== null)
    return success({
      resources,
      oldestPendingSeconds: ages.length > 0 ? Math.max(...ages) : null,
      failedExhausted: exhausted,
      failures: failures.map((item) => ({ ...item, sync_time: item.sync_time && this.format(item.sync_time) })),
      reconcile: reconcile && { ...reconcile, time: this.format(new Date(reconcile.time)) },
      pushFailure: this.pushFailure() ?? null,
    })
  }

  /** Compares with the park, answers the differences and pushes them again. */
  async syncReconcile(body: { limit?: number } | undefined): Promise<Envelope> {
    if (!this.reconciler) throw new BusinessError(Code.badParameter, message('noParkConfigured'))
    const result = await this.reconciler.run(body?.limit ?? 100)
    return success({ ...result, time: this.format(new Date(result.time)) })
  }

  /** `enterprise` accounts exist on the park edition only, `collector` ones (a gateway's) on the enterprise edition only. */
  private checkRole(role: Role): void {
    if (!this.grantableRoles.has(role)) {
      throw new BusinessError(Code.badParameter, message(role === 'collector' ? 'collectorRoleOnEnterprise' : 'enterpriseRoleOnPark'))
    }
  }

  async syncRetry(body: { resource?: string; ids?: string[] } | undefined): Promise<Envelope> {
    const resources = body?.resource ? withAttachments([this.registry.pushedKind(body.resource)]) : pushedTables(this.registry.pushed)
    const requeued = await this.sync.requeueFailed(resources, body?.ids ? { ids: body.ids } : { all: true })
    if (requeued > 0) this.retryPush()
    return success({ requeued })
  }
}
