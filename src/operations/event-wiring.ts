// The parts of events out (docs/events.md) as the service composes them: the feed, the sequencer
// that plans the webhooks' deliveries as it numbers events, the delivery thread and the webhooks'
// administration, over the process's background jobs.
import type { FastifyBaseLogger } from 'fastify'
import type pg from 'pg'
import type { Config } from '../config.ts'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import type { Background } from '../store/background.ts'
import { type DatabaseOptions, openPool } from '../store/database.ts'
import { EventStore } from '../store/event-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import { WebhookStore } from '../store/webhook-store.ts'
import { EventOperations } from './event-operations.ts'
import { wireFields } from './event-wire.ts'
import { DeliveryThread, type ThreadData } from './webhook-delivery-thread.ts'
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
  /** The resources whose record events the feed answers (the alarms' too). */
  registry: Pick<ResourceRegistry, 'all'>
  format: InstantFormatter
  background: Background
  log: FastifyBaseLogger
  /** The deployment's JWT secret (auth/jwt-secret.ts): the webhook secrets' key derives from it. */
  deploymentSecret: () => Promise<string>
}): EventParts {
  const { config, pool, registry, format, background, log } = options
  const backgroundPool = eventsPool(config)
  const webhookStore = new WebhookStore({ pool })
  const deliveryStore = new WebhookStore({ pool: backgroundPool })
  const secrets = new WebhookSecrets(options.deploymentSecret)
  // The sequencer plans the deliveries of the events it numbers, and queues their jobs, in its transaction.
  const later: { delivery?: DeliveryThread } = {}
  const store = new EventStore({
    pool,
    sequencerPool: backgroundPool,
    afterSequence: async (client, first, last) => later.delivery?.queue(client, await deliveryStore.planDeliveries(client, first, last)),
  })
  const { eventRetentionDays: retentionDays } = config
  const events = new EventOperations({ store, registry, format, background, retentionDays, deliveries: deliveryStore, log })
  const delivery = new DeliveryThread({
    background,
    pool: backgroundPool,
    store: deliveryStore,
    log,
    data: async () => threadData(config, registry, await options.deploymentSecret()),
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
  return {
    events,
    webhooks,
    wake: () => events.wake(),
    start: async () => {
      await Promise.all([events.start(), delivery.start()])
    },
    stop: async () => {
      await events.stop()
      await delivery.stop()
      await backgroundPool.end()
    },
  }
}

/**
 * The sequencer works on a small pool of its own, and the delivery thread on another alike: never
 * on a request's connection. Without JIT: the estimates of the inbox, a queue table full of dead rows between
 * vacuums, pass the JIT's cost threshold, and a compile costs far more than these short statements.
 */
function eventsPool(config: Config): pg.Pool {
  return openPool(config.databaseUrl, eventsPoolOptions(config))
}

/** What the delivery thread starts with. */
function threadData(config: Config, registry: Pick<ResourceRegistry, 'all'>, secret: string): ThreadData {
  return {
    databaseUrl: config.databaseUrl,
    pool: eventsPoolOptions(config),
    secret,
    allowPrivate: config.webhookAllowPrivate,
    wireFields: wireFields(registry),
    timeZone: config.timeZone,
  }
}

/** The events' pool's settings (the delivery thread's pool has the same). */
function eventsPoolOptions(config: Config): DatabaseOptions {
  return { max: 4, noJit: true, statementTimeoutMs: config.dbStatementTimeoutMs, connectTimeoutMs: config.dbConnectTimeoutMs }
}
