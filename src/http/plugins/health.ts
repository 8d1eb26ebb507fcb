// Health: /health/live answers while the process serves; /health/ready while the database is
// reachable and migrated, and, with a park push, while its queue (pg-boss) is ready. Outside the
// contract: no authentication, no rate limit.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { OUTSIDE_CONTRACT } from '../routing.ts'
import type pg from 'pg'
import { Code, failure, success } from '../../errors.ts'
import { latestMigrationVersion, type MigrationEdition } from '../../store/migrate.ts'
import { cachedRead, PAGE_READ_TTL_MS } from '../../store/cached-read.ts'
import { message } from '../../messages/message.ts'

async function health(
  app: FastifyInstance,
  options: {
    pool: pg.Pool
    /** The push, when this edition pushes: ready while its queue is. */
    push: { ready(): Promise<boolean> } | undefined
    /** Whose migrations the database must have. */
    schema: MigrationEdition
    clock?: () => number
  },
): Promise<void> {
  const { pool, push, schema } = options
  app.get('/health/live', OUTSIDE_CONTRACT, async () => success({ status: 'live' }))
  // Probes cannot load the database: one check at a time, its answer kept a second.
  const check = cachedRead(
    async () => ({ ...(await latestMigrationVersion(pool, schema)), pushReady: push ? await push.ready() : true }),
    PAGE_READ_TTL_MS,
    options.clock,
  )
  app.get('/health/ready', OUTSIDE_CONTRACT, async (_request, reply) => {
    try {
      const { expected, actual, pushReady } = await check()
      if (actual < expected)
        return reply.code(503).send(failure(Code.databaseUnavailable, message('databaseNotMigrated', { actual, expected })))
      if (!pushReady) return reply.code(503).send(failure(Code.databaseUnavailable, message('pushQueueNotReady')))
      return success({ status: 'ready', migration: actual, push: push ? 'ready' : 'not configured' })
    } catch {
      return reply.code(503).send(failure(Code.databaseUnavailable, message('databaseDown')))
    }
  })
}

export default fp(health, { name: 'health', fastify: '5.x', dependencies: ['envelope'] })
