// Who may do what on the park edition (CONTRACT §10), checked with the roles before any parsing:
// - the park is not an author: business writes (`add`, `update`, `delete`, and `add-batch`
//   without `X-Sync-Push: 1`, attachment/add without it, attachment/delete) are refused for every role; only pushes write, from an `admin` (any
//   enterprise) or an `enterprise` account (its own, checked per item);
// - an `enterprise` account reads its own enterprise's records and pushes them, nothing else (the
//   document's x-roles list where it may call at all).
import { BusinessError, Code } from '../errors.ts'
import { message } from '../messages/message.ts'

export interface ParkRequest {
  /** The operation's x-action (resource operations), undefined for system operations. */
  action: string | undefined
  role: string
  pushHeader: unknown
}

/** The refusal of a request on the park edition, or undefined when the roles decide alone. */
export function parkRefusal(request: ParkRequest): BusinessError | undefined {
  const { action, role } = request
  const pushable = action === 'addBatch' || action === 'attachmentAdd'
  const push = pushable && request.pushHeader === '1'
  if (action === 'add' || action === 'update' || action === 'delete' || action === 'attachmentDelete' || (pushable && !push)) {
    return new BusinessError(Code.forbidden, message('parkNotAuthor'))
  }
  if (push && role !== 'admin' && role !== 'enterprise') {
    return new BusinessError(Code.forbidden, message('pushRole', { role }))
  }
  return undefined
}

/**
 * A push the park takes (add-batch or attachment/add with X-Sync-Push: 1, by an admin or an
 * enterprise account): not counted against the API's rate limit, since an enterprise draining a
 * backlog makes thousands of them a minute by design.
 */
export function isPush(request: ParkRequest): boolean {
  const pushable = request.action === 'addBatch' || request.action === 'attachmentAdd'
  return pushable && request.pushHeader === '1' && (request.role === 'admin' || request.role === 'enterprise')
}
