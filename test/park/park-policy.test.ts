// The park edition's policy, as pure functions: every business write refused for every role (the
// park is not an author), reads left to the roles; the push's own operations uncounted by the rate limit.
import t from 'tap'
import { Code } from '../../src/errors.ts'
import { PUSH_OPERATIONS, parkRefusal } from '../../src/park/park-policy.ts'

for (const action of ['add', 'update', 'delete', 'addBatch', 'attachmentAdd', 'attachmentDelete']) {
  t.equal(parkRefusal(action)?.code, Code.forbidden, `${action}: refused, a business write`)
}
for (const action of ['getById', 'list', 'search', 'history', 'attachmentList', 'attachmentGet', undefined]) {
  t.equal(parkRefusal(action), undefined, `${action ?? 'a system operation'}: left to the roles`)
}

// Pushes are not counted against the API's rate limit (an enterprise draining a backlog makes
// thousands a minute); nothing else is exempt.
t.same([...PUSH_OPERATIONS].sort(), ['systemPushAttachment', 'systemPushReadings', 'systemPushRecords'])
