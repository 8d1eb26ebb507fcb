// Login, tokens, user administration and push administration (the `system` module).
import type { AuthService, Caller, Role } from '../auth/auth-service.ts'
import type { Edition } from '../config.ts'
import { BusinessError, Code, type Envelope, success } from '../errors.ts'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import { attachmentTarget, withAttachments } from '../store/attachment-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import { DIGEST_RECORDS_LIMIT, type ParkStore } from '../store/park-store.ts'
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
  /** Wakes the park push (enterprise edition) after failed records were queued again. */
  /** Drains now what an operator queued again (park/park-push.ts retryNow). */
  private readonly retryPush: () => void

  private readonly edition: Edition
  /** Digests and the park overview (park edition); digests of the enterprise's own records too. */
  private readonly park: ParkStore
  /** Enterprise edition with a park configured. */
  private readonly reconciler: ReconcileRunner | undefined
  private readonly failedRequeueRounds: number

  constructor(options: {
    auth: AuthService
    sync: SyncStore
    registry: ResourceRegistry
    format: InstantFormatter
    retryPush: () => void
    edition: Edition
    park: ParkStore
    reconciler: ReconcileRunner | undefined
    failedRequeueRounds: number
  }) {
    this.edition = options.edition
    this.park = options.park
    this.reconciler = options.reconciler
    this.failedRequeueRounds = options.failedRequeueRounds
    this.auth = options.auth
    this.sync = options.sync
    this.registry = options.registry
    this.format = options.format
    this.retryPush = options.retryPush
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
    const targets = withAttachments(this.registry.all)
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
    })
  }

  /** Enterprise edition: compares with the park, answers the differences and pushes them again. */
  async syncReconcile(body: { limit?: number } | undefined): Promise<Envelope> {
    if (!this.reconciler) throw new BusinessError(Code.badParameter, message('noParkConfigured'))
    const result = await this.reconciler.run(body?.limit ?? 100)
    return success({ ...result, time: this.format(new Date(result.time)) })
  }

  /**
   * Park edition: digests of one enterprise's records (or with `attachments`, of the resource's
   * attachments) in buckets of ids, or their (id, version, deleted) with `records`
   * (reconciliation). An enterprise account asks for its own enterprise.
   */
  async syncDigest(
    body: { resource: string; companyCode?: string; prefixes: string[]; records?: boolean; attachments?: boolean },
    ownCompany: string | undefined,
  ): Promise<Envelope> {
    if (ownCompany !== undefined && body.companyCode !== undefined && body.companyCode !== ownCompany) {
      throw new BusinessError(Code.forbidden, message('readsOwnCompany', { companyCode: ownCompany }))
    }
    const companyCode = ownCompany ?? body.companyCode
    if (companyCode === undefined) throw new BusinessError(Code.badParameter, message('companyCodeWhich'))
    if (new Set(body.prefixes.map((prefix) => prefix.length)).size > 1) {
      throw new BusinessError(Code.badParameter, message('prefixesSameLength'))
    }
    const records = this.registry.get(body.resource)
    const resource = body.attachments ? attachmentTarget(records) : records
    if (!body.records) return success({ buckets: await this.park.digests(resource, companyCode, body.prefixes) })
    const held = await this.park.held(resource, companyCode, body.prefixes)
    if (held.length > DIGEST_RECORDS_LIMIT) {
      throw new BusinessError(Code.badParameter, message('prefixesTooMany', { limit: DIGEST_RECORDS_LIMIT }))
    }
    return success({ records: held })
  }

  /** Park edition: every enterprise with an account or records, its accounts, last push and holdings. */
  async enterpriseList(): Promise<Envelope> {
    const list = await this.park.enterprises()
    return success({
      list: list.map((entry) => ({ ...entry, lastPushTime: entry.lastPushTime && this.format(entry.lastPushTime) })),
      total: list.length,
    })
  }

  /** The `enterprise` role exists on the park edition only. */
  private checkRole(role: Role): void {
    if (role === 'enterprise' && this.edition !== 'park') {
      throw new BusinessError(Code.badParameter, message('enterpriseRoleOnPark'))
    }
  }

  async syncRetry(body: { resource?: string; ids?: string[] } | undefined): Promise<Envelope> {
    const resources = withAttachments(body?.resource ? [this.registry.get(body.resource)] : this.registry.all)
    const requeued = await this.sync.requeueFailed(resources, body?.ids ? { ids: body.ids } : { all: true })
    if (requeued > 0) this.retryPush()
    return success({ requeued })
  }
}
