// The park push of the enterprise edition, wired: pg-boss on the service's database (schema
// `pgboss`), the park's client with the configured account, and the push over them. None on the
// park edition, nor without PARK_URL.
import type { FastifyBaseLogger } from 'fastify'
import { PgBoss } from 'pg-boss'
import type { Config } from '../config.ts'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import type { AttachmentStore } from '../store/attachment-store.ts'
import type { SyncStore } from '../store/sync-store.ts'
import { ParkClient } from './park-client.ts'
import { ParkPush } from './park-push.ts'

export function parkPush(
  config: Config,
  sync: SyncStore,
  attachments: AttachmentStore,
  registry: ResourceRegistry,
  log: FastifyBaseLogger,
): ParkPush | undefined {
  if (config.edition !== 'enterprise' || !config.parkUrl || !config.parkUser || !config.parkPassword) return undefined
  const boss = new PgBoss({
    connectionString: config.databaseUrl,
    schema: 'pgboss',
    max: 4,
    useListenNotify: true,
    superviseIntervalSeconds: config.push.superviseSeconds,
  })
  boss.on('error', (error) => log.warn({ err: error }, 'pg-boss'))
  const client = new ParkClient({
    url: config.parkUrl,
    userName: config.parkUser,
    password: config.parkPassword,
    timeoutMs: config.push.parkTimeoutMs,
  })
  return new ParkPush({ boss, sync, attachments, registry, client, settings: config.push, log })
}
