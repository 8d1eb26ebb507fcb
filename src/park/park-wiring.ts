// The park push of the enterprise edition, wired: the process's background jobs (one pg-boss,
// store/background.ts), the park's client with the configured account, and the push over them.
// None on the park edition, nor without PARK_URL.
import type { FastifyBaseLogger } from 'fastify'
import type pg from 'pg'
import type { Config } from '../config.ts'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import type { AttachmentStore } from '../store/attachment-store.ts'
import type { Background } from '../store/background.ts'
import type { ParkStore } from '../store/park-store.ts'
import type { SyncStore } from '../store/sync-store.ts'
import { ParkClient } from './park-client.ts'
import { ParkPush } from './park-push.ts'
import { Reconciler } from './reconcile.ts'

export function parkPush(
  config: Config,
  pool: pg.Pool,
  sync: SyncStore,
  attachments: AttachmentStore,
  digests: ParkStore,
  registry: ResourceRegistry,
  background: Background,
  log: FastifyBaseLogger,
): ParkPush | undefined {
  if (config.edition !== 'enterprise' || !config.parkUrl || !config.parkUser || !config.parkPassword) return undefined
  const client = new ParkClient({
    url: config.parkUrl,
    userName: config.parkUser,
    password: config.parkPassword,
    timeoutMs: config.push.parkTimeoutMs,
  })
  const push = new ParkPush({ background, sync, attachments, registry, client, settings: config.push, log })
  // Reconciliation runs on a pg-boss schedule, and on demand (/system/sync/reconcile).
  push.reconciler = new Reconciler({
    pool,
    registry,
    digests,
    sync,
    client,
    companyCode: config.companyCode,
    wake: () => push.retryNow(),
  })
  return push
}
