// The parts of events out (docs/events.md) as the service composes them: the feed's store and
// operations over the process's background jobs.
import type { FastifyBaseLogger } from 'fastify'
import type pg from 'pg'
import type { Config } from '../config.ts'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import type { Background } from '../store/background.ts'
import { EventStore } from '../store/event-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import { EventOperations } from './event-operations.ts'

export function eventParts(options: {
  config: Config
  pool: pg.Pool
  registry: ResourceRegistry
  format: InstantFormatter
  background: Background
  log: FastifyBaseLogger
}): EventOperations {
  const { config, pool, registry, format, background, log } = options
  const store = new EventStore({ pool })
  return new EventOperations({ store, registry, format, background, retentionDays: config.eventRetentionDays, log })
}
