// Password hashes (src/auth/passwords.ts): scrypt with each hash's own cost. The hash an unknown
// user's login is verified against costs what a user's does (today's cost, so the answer takes as
// long either way) and matches no password.
import t from 'tap'
import { hashIsOutdated, hashPassword, UNKNOWN_USER_HASH, verifyPassword } from '../../src/auth/passwords.ts'

t.test('a hash verifies its own password only', async (t) => {
  const stored = await hashPassword('correct horse battery staple')
  t.ok(await verifyPassword('correct horse battery staple', stored))
  t.notOk(await verifyPassword('correct horse battery stapler', stored))
  t.notOk(hashIsOutdated(stored), 'made at today’s cost')
})

t.test('the unknown user’s hash has today’s cost, and matches no password', async (t) => {
  const [scheme, N, r, p, salt, key] = UNKNOWN_USER_HASH.split('$')
  const own = (await hashPassword('x')).split('$').slice(1, 4).join('$')
  t.equal(scheme, 'scrypt')
  t.equal([N, r, p].join('$'), own, 'the cost a stored hash has today: verifying it takes as long')
  t.notOk(hashIsOutdated(UNKNOWN_USER_HASH))
  t.equal(Buffer.from(salt, 'base64').length, 16)
  t.equal(Buffer.from(key, 'base64').length, 32)
  for (const password of ['', 'admin', 'admin-password-for-tests', UNKNOWN_USER_HASH]) {
    t.notOk(await verifyPassword(password, UNKNOWN_USER_HASH), `not ${JSON.stringify(password.slice(0, 20))}`)
  }
})
