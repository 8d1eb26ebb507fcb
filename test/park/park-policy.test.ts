// The park edition's policy, as a pure function: business writes refused for every
// role, pushes only from admin and enterprise accounts, reads left to the roles.
import t from 'tap'
import { Code } from '../../src/errors.ts'
import { isPush, parkRefusal } from '../../src/park/park-policy.ts'

for (const role of ['admin', 'operator', 'viewer', 'enterprise']) {
  for (const action of ['add', 'update', 'delete', 'attachmentDelete']) {
    t.equal(parkRefusal({ action, role, pushHeader: undefined })?.code, Code.forbidden, `${role} ${action}: refused`)
    t.equal(parkRefusal({ action, role, pushHeader: '1' })?.code, Code.forbidden, `${role} ${action} with X-Sync-Push: refused`)
  }
  t.equal(parkRefusal({ action: 'addBatch', role, pushHeader: undefined })?.code, Code.forbidden, `${role} add-batch: refused`)
  t.equal(parkRefusal({ action: 'addBatch', role, pushHeader: '0' })?.code, Code.forbidden, `${role} add-batch, X-Sync-Push 0: refused`)
  t.equal(parkRefusal({ action: 'attachmentAdd', role, pushHeader: undefined })?.code, Code.forbidden, `${role} attachment/add: refused`)
  for (const action of ['getById', 'list', 'search', 'history', 'attachmentList', 'attachmentGet', undefined])
    t.equal(parkRefusal({ action, role, pushHeader: undefined }), undefined)
}
t.equal(parkRefusal({ action: 'addBatch', role: 'admin', pushHeader: '1' }), undefined, 'an admin pushes')
t.equal(parkRefusal({ action: 'addBatch', role: 'enterprise', pushHeader: '1' }), undefined, 'an enterprise account pushes')
t.equal(parkRefusal({ action: 'addBatch', role: 'operator', pushHeader: '1' })?.code, Code.forbidden, 'an operator does not')
t.equal(parkRefusal({ action: 'addBatch', role: 'viewer', pushHeader: '1' })?.code, Code.forbidden, 'a viewer does not')
for (const role of ['admin', 'enterprise'])
  t.equal(parkRefusal({ action: 'attachmentAdd', role, pushHeader: '1' }), undefined, `${role} pushes attachments`)
for (const role of ['operator', 'viewer']) {
  t.equal(parkRefusal({ action: 'attachmentAdd', role, pushHeader: '1' })?.code, Code.forbidden, `${role} does not push attachments`)
}

// Pushes are not counted against the API's rate limit (an enterprise draining a backlog makes
// thousands a minute); nothing else is exempt.
t.equal(isPush({ action: 'addBatch', role: 'enterprise', pushHeader: '1' }), true)
t.equal(isPush({ action: 'attachmentAdd', role: 'admin', pushHeader: '1' }), true)
t.equal(isPush({ action: 'addBatch', role: 'operator', pushHeader: '1' }), false, 'not a push account')
t.equal(isPush({ action: 'addBatch', role: 'enterprise', pushHeader: undefined }), false, 'no header')
t.equal(isPush({ action: 'list', role: 'enterprise', pushHeader: '1' }), false, 'the header on a read')
