// Password hashes: scrypt (node:crypto) with a random salt, stored as
// `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`: each hash carries its own cost, so the cost can be
// raised without a migration (a login with a hash of another cost stores it again at this one).
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

/**
 * N = 2^13, r = 8, p = 10: one of OWASP's equivalent minimum scrypt settings (Password Storage Cheat
 * Sheet; the others are N = 2^17 with p = 1 down to N = 2^14 with p = 5). Each hash holds
 * 128 · N · r = 8 MiB while it runs, on one of libuv's four worker threads: at most 32 MiB for logins
 * running at once, where N = 2^17 would hold 512 MiB, and an edition must stay under 200 MB.
 */
const COST = { N: 2 ** 13, r: 8, p: 10 }
const KEY_LENGTH = 32

function derive(password: string, salt: Buffer, options: { N: number; r: number; p: number }): Promise<Buffer> {
  const scryptOptions: ScryptOptions = { ...options, maxmem: 256 * options.N * options.r }
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, scryptOptions, (error, key) => (error ? reject(error) : resolve(key))),
  )
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, COST)
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$')
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(N), r: Number(r), p: Number(p) })
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

/** Whether a stored hash was made at another cost than today's (it is then stored again at a login). */
export function hashIsOutdated(stored: string): boolean {
  const [scheme, N, r, p] = stored.split('$')
  return scheme !== 'scrypt' || Number(N) !== COST.N || Number(r) !== COST.r || Number(p) !== COST.p
}

/**
 * Verified against when the user does not exist, so the answer takes as long either way: a stored
 * hash of today's cost whose key is random bytes, the hash of no password (derived by no one, it
 * matches none). Made without deriving one: a derivation at every start would hold up
 * the modules that import this one.
 */
export const UNKNOWN_USER_HASH = [
  'scrypt',
  COST.N,
  COST.r,
  COST.p,
  randomBytes(16).toString('base64'),
  randomBytes(KEY_LENGTH).toString('base64'),
].join('$')
