// Idempotency-Key on writes. The key is claimed, the write done and its answer stored
// in one transaction: a repeat with the same key and body replays the stored answer; a different
// body (or operation) under the key is 1007; a concurrent request with the key waits on the
// uncommitted key row and then replays; a write that failed unexpectedly rolls back, key included,
// so its retry runs afresh. Keys are scoped per user, by the user's id that is never reused (a
// user deleted and added again under the same name never sees the old one's answers), and expire
// after IDEMPOTENCY_TTL_HOURS.
import { createHash } from 'node:crypto'
import type pg from 'pg'
import { BusinessError, Code, type Envelope, failure } from '../errors.ts'
import { inTransaction, type Queryable } from '../store/database.ts'
import { canonicalJson } from './canonical-json.ts'
import { message } from '../messages/message.ts'

export interface IdempotentRequest {
  /** The caller's id (the token's `sub`), never its name. */
  userId: string
  key: string
  operationId: string
  body: unknown
}

export class Idempotency {
  private readonly pool: pg.Pool
  private readonly ttlSeconds: number

  constructor(options: { pool: pg.Pool; ttlHours: number }) {
    this.pool = options.pool
    this.ttlSeconds = Math.round(options.ttlHours * 3600)
  }

  async run(request: IdempotentRequest, write: (db: Queryable) => Promise<Envelope>): Promise<Envelope> {
    const bodyHash = createHash('sha256')
      .update(canonicalJson(request.body ?? null))
      .digest('base64url')
    const outcome = await inTransaction(this.pool, async (client): Promise<{ answer: Envelope } | { stored: StoredKey | undefined }> => {
      await client.query('DELETE FROM idempotency_key WHERE "userId" = $1 AND key = $2 AND "expiresAt" < now()', [
        request.userId,
        request.key,
      ])
      // Waits here while another transaction holds the same key, until it commits or rolls back.
      const claimed = await client.query(
        `INSERT INTO idempotency_key ("userId", key, "operationId", "bodyHash", "expiresAt")
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) ON CONFLICT DO NOTHING RETURNING key`,
        [request.userId, request.key, request.operationId, bodyHash, this.ttlSeconds],
      )
      if (claimed.rowCount === 0) {
        const { rows } = await client.query<StoredKey>(
          'SELECT "operationId", "bodyHash", response FROM idempotency_key WHERE "userId" = $1 AND key = $2',
          [request.userId, request.key],
        )
        return { stored: rows[0] }
      }
      let answer: Envelope
      try {
        answer = await write(savepointed(client))
      } catch (error) {
        // A business refusal is an answer like any other: kept and replayed.
        if (!(error instanceof BusinessError)) throw error
        answer = failure(error.code, error.msg)
      }
      await client.query('UPDATE idempotency_key SET response = $3 WHERE "userId" = $1 AND key = $2', [request.userId, request.key, answer])
      return { answer }
    })
    if ('answer' in outcome) return outcome.answer
    const { stored } = outcome
    if (!stored) return this.run(request, write) // expired and removed meanwhile: claim it afresh
    if (stored.operationId !== request.operationId || stored.bodyHash !== bodyHash) {
      throw new BusinessError(Code.idempotencyMismatch, message('idempotencyMismatch'))
    }
    return stored.response
  }
}

/** A key already claimed: by which operation, for which body, and its answer. */
interface StoredKey {
  operationId: string
  bodyHash: string
  response: Envelope
}

/**
 * Each statement in its own savepoint: one the database refuses (a foreign key, a unique field)
 * undoes only itself, and the transaction goes on, as autocommit statements would.
 */
function savepointed(client: pg.PoolClient): Queryable {
  return {
    async query(sql: string, values?: unknown[]) {
      await client.query('SAVEPOINT statement')
      try {
        const result = await client.query(sql, values)
        await client.query('RELEASE SAVEPOINT statement')
        return result
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT statement')
        throw error
      }
    },
  } as Queryable
}
