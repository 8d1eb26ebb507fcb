// Login, tokens, user administration and push administration (the `system` module).
import type { AuthService, Caller, Role } from '../auth/auth-service.ts'
import { type Envelope, success } from '../errors.ts'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import { withAttachments } from '../store/attachment-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import type { SyncStore } from '../store/sync-store.ts'

export class SystemOperations {
  private readonly auth: AuthService
  private readonly sync: SyncStore
  private readonly registry: ResourceRegistry
  private readonly format: InstantFormatter
  /** Wakes the park push (enterprise edition) after failed records were queued again. */
  private readonly wakePush: () => void

  constructor(options: { auth: AuthService; sync: SyncStore; registry: ResourceRegistry; format: InstantFormatter; wakePush: () => void }) {
    this.auth = options.auth
    this.sync = options.sync
    this.registry = options.registry
    this.format = options.format
    this.wakePush = options.wakePush
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

  async userAdd(body: { userName: string; password: string; role: Role; enabled?: boolean }): Promise<Envelope> {
    await this.auth.addUser(body)
    return success()
  }

  async userUpdate(body: { userName: string; password?: string; role?: Role; enabled?: boolean }): Promise<Envelope> {
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
    const resources = await this.sync.counts(withAttachments(this.registry.all))
    const ages = resources.map((counts) => counts.oldestPendingSeconds).filter((age): age is number => age !== null)
    return success({ resources, oldestPendingSeconds: ages.length > 0 ? Math.max(...ages) : null })
  }

  async syncRetry(body: { resource?: string; ids?: string[] } | undefined): Promise<Envelope> {
    const resources = withAttachments(body?.resource ? [this.registry.get(body.resource)] : this.registry.all)
    const requeued = await this.sync.requeueFailed(resources, body?.ids)
    if (requeued > 0) this.wakePush()
    return success({ requeued })
  }
}
