// The parts of events out (docs/events.md) as the service composes them: the feed, the sequencer
// that plans the webhooks' deliveries as it numbers events, the delivery worker and the webhooks'
// administration, over the process's background jobs.
import type { FastifyBaseLogger } from 'fastify'
import type pg from 'pg'
import type { Config } from '../config.ts'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import type { Background } from '../store/background.ts'
import { EventStore } from '../store/event-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import { WebhookStore } from '../store/webhook-store.ts'
import { EventOperations } from './event-operations.ts'
import { WebhookDelivery } from './webhook-delivery.ts'
import { WebhookOperations } from './webhook-operations.ts'
import { WebhookSecrets } from './webhook-secrets.ts'

export interface EventParts {
  events: EventOperations
  webhooks: WebhookOperations
  /** Numbers the events committed by a write soon. */
  wake(): void
  start(): Promise<void>
  stop(): Promise<void>
}

export function eventParts(options: {
  config: Config
  pool: pg.Pool
  registry: ResourceRegistry
  format: InstantFormatter
  background: Background
  log: FastifyBaseLogger
  /** The deployment's JWT secret (auth/jwt-secret.ts): the webhook secrets' key derives from it. */
  deploymentSecret: () => Promise<string>
  clock?: () => number
}): EventParts {
  const { config, pool, registry, format, background, log, clock } = options
  const webhookStore = new WebhookStore({ pool })
  const secrets = new WebhookSecrets(options.deploymentSecret)
  // The sequencer plans the deliveries of the events it numbers, and queues their jobs, in its transaction.
  const later: { delivery?: WebhookDelivery } = {}
  const store = new EventStore({
    pool,
    afterSequence: async (client, first, last) => later.delivery?.queue(client, await webhookStore.planDeliveries(client, first, last)),
  })
  const events = new EventOperations({ store, registry, format, background, retentionDays: config.eventRetentionDays, log })
  const delivery = new WebhookDelivery({
    pool,
    store: webhookStore,
    secrets,
    background,
    eventBody: async (seq) => {
      const event = await store.bySeq(seq)
      return event && { ...events.toWire(event) }
    },
    allowPrivate: config.webhookAllowPrivate,
    log,
    clock,
  })
  const webhooks = new WebhookOperations({
    pool,
    store: webhookStore,
    secrets,
    delivery,
    format,
    allowPrivate: config.webhookAllowPrivate,
    companyCode: config.companyCode,
    afterNumbering: (work) => store.afterNumbering(work),
  })
  later.delivery = delivery
  const worker = delivery
  return {
    events,
    webhooks,
    wake: () => events.wake(),
    start: async () => {
      await Promise.all([events.start(), worker.start()])
    },
    stop: async () => {
      await events.stop()
      await worker.stop()
    },
  }
}
