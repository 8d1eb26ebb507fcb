// Who may do what on the park edition, beyond the roles the document lists (x-roles):
// - the park is not an author: every business write (`add`, `update`, `delete`, `add-batch`,
//   `attachment/add`, `attachment/delete`) is refused for every role; the park holds what its
//   enterprises push through the push's own operations (`/system/push/*`);
// - those pushes are not counted by the rate limit: an enterprise draining a backlog makes
//   thousands of them a minute by design.
import { BusinessError, Code } from '../errors.ts'
import { message } from '../messages/message.ts'

/** The business writes of a resource, by the document's x-action. */
const BUSINESS_WRITES = new Set(['add', 'update', 'delete', 'addBatch', 'attachmentAdd', 'attachmentDelete'])

/** The push's own operations: an `admin` for any enterprise, an `enterprise` account for its own (x-roles). */
export const PUSH_OPERATIONS: ReadonlySet<string> = new Set(['systemPushRecords', 'systemPushAttachment', 'systemPushReadings'])

/** The park's refusal of an operation, by its x-action; undefined when the roles decide alone. */
export function parkRefusal(action: string | undefined): BusinessError | undefined {
  if (action === undefined || !BUSINESS_WRITES.has(action)) return undefined
  return new BusinessError(Code.forbidden, message('parkNotAuthor'))
}
