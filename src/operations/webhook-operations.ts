// The webhook endpoints' administration (docs/events.md): add, update, delete, list, rotateSecret,
// test, deliveries, redeliver. Secrets are answered once and kept sealed (webhook-secrets.ts);
// addresses are checked as webhook-address.ts says.
import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { BusinessError, Code } from '../errors.ts'
import { inTransaction } from '../store/database.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import type { EndpointRow, WebhookStore } from '../store/webhook-store.ts'
import { checkWebhookUrl } from './webhook-address.ts'
import type { DeliveryThread } from './webhook-delivery-thread.ts'
import { WebhookSecrets } from './webhook-secrets.ts'
import { message } from '../messages/message.ts'

/** How long a rotated-out secret keeps signing beside the new one. */
const ROTATION_GRACE_HOURS = 24

export interface EndpointView {
  id: string
  url: string
  types: string[]
  description: string | null
  enabled: boolean
  disabledReason: string | null
  /** Until when the previous secret still signs beside the current one (null: no rotation under way). */
  previousSecretUntil: string | null
  createTime: string
  updateTime: string
}

export class WebhookOperations {
  private readonly pool: pg.Pool
  private readonly store: WebhookStore
  private readonly secrets: WebhookSecrets
  private readonly delivery: Pick<DeliveryThread, 'queue'>
  private readonly format: InstantFormatter
  private readonly allowPrivate: boolean
  private readonly companyCode: string
  /** Runs a change of the webhooks after every event committed before it was numbered (store/event-store.ts). */
  private readonly afterNumbering: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>

  constructor(options: {
    pool: pg.Pool
    store: WebhookStore
    secrets: WebhookSecrets
    delivery: Pick<DeliveryThread, 'queue'>
    format: InstantFormatter
    allowPrivate: boolean
    companyCode: string
    afterNumbering: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>
  }) {
    this.pool = options.pool
    this.store = options.store
    this.secrets = options.secrets
    this.delivery = options.delivery
    this.format = options.format
    this.allowPrivate = options.allowPrivate
    this.companyCode = options.companyCode
    this.afterNumbering = options.afterNumbering
  }

  async add(body: { id: string; url: string; types: string[]; description?: string }): Promise<EndpointView & { secret: string }> {
    await checkWebhookUrl(body.url, this.allowPrivate)
    const secret = WebhookSecrets.generate()
    const sealed = await this.secrets.seal(secret, body.id)
    // Delivered the events committed from now on: not those committed before it was added.
    await this.afterNumbering((client) => this.store.add(client, { ...body, secret: sealed }))
    return { ...this.view(await this.store.get(body.id)), secret }
  }

  async update(body: { id: string; url?: string; types?: string[]; description?: string; enabled?: boolean }): Promise<EndpointView> {
    await this.store.get(body.id)
    if (body.url !== undefined) await checkWebhookUrl(body.url, this.allowPrivate)
    // Enabled or disabled from now on: the events committed before go (or not) as it was.
    await this.afterNumbering((client) => this.store.update(client, body.id, body))
    return this.view(await this.store.get(body.id))
  }

  async delete(id: string): Promise<void> {
    await this.store.delete(id)
  }

  async list(): Promise<{ list: EndpointView[] }> {
    return { list: (await this.store.list()).map((endpoint) => this.view(endpoint)) }
  }

  async rotateSecret(id: string): Promise<{ secret: string }> {
    const secret = WebhookSecrets.generate()
    await this.store.rotate(id, await this.secrets.seal(secret, id), ROTATION_GRACE_HOURS)
    return { secret }
  }

  /** A `ping` to the endpoint, signed, with an id of its own and no seq (not in the feed); a disabled endpoint gets none. */
  async test(id: string): Promise<{ eventId: string }> {
    const endpoint = await this.store.get(id)
    if (!endpoint.enabled) throw new BusinessError(Code.badParameter, message('webhookDisabled', { id }))
    const eventId = randomUUID()
    const body = { id: eventId, type: 'ping', time: this.format(new Date()), companyCode: this.companyCode, data: { webhook: id } }
    await inTransaction(this.pool, async (client) => {
      await this.delivery.queue(client, [await this.store.addDelivery(client, { endpoint: id, eventId, type: 'ping', seq: null, body })])
    })
    return { eventId }
  }

  /** One more delivery of an event now (same webhook-id), outside the order of its record's events. */
  async redeliver(id: string, sent: string): Promise<{ eventId: string }> {
    // As the delivery's webhook-id says it: a uuid's canonical (lower-case) form, whatever the case sent.
    const eventId = sent.toLowerCase()
    const endpoint = await this.store.get(id)
    if (!endpoint.enabled) throw new BusinessError(Code.badParameter, message('webhookDisabled', { id }))
    const event = await this.store.eventSeq(eventId)
    if (!event) throw new BusinessError(Code.notFound, message('eventNotFound', { id: eventId }))
    const body = event.type === 'ping' ? await this.store.pingBody(eventId) : null
    await inTransaction(this.pool, async (client) => {
      const queued = await this.store.addDelivery(client, {
        endpoint: id,
        eventId,
        type: event.type,
        seq: event.type === 'ping' ? null : event.seq,
        body: body ?? null,
      })
      await this.delivery.queue(client, [queued])
    })
    return { eventId }
  }

  async deliveries(body: { id: string; pageNum?: number; pageSize?: number }) {
    await this.store.get(body.id)
    const pageNum = body.pageNum ?? 1
    const pageSize = body.pageSize ?? 20
    const { list, total } = await this.store.attempts(body.id, pageNum, pageSize)
    return { list: list.map((attempt) => ({ ...attempt, time: this.format(attempt.time) })), total, pageNum, pageSize }
  }

  private view(endpoint: EndpointRow): EndpointView {
    const rotating = endpoint.previousUntil && endpoint.previousUntil.getTime() > Date.now() ? endpoint.previousUntil : null
    return {
      id: endpoint.id,
      url: endpoint.url,
      types: endpoint.types,
      description: endpoint.description,
      enabled: endpoint.enabled,
      disabledReason: endpoint.enabled ? null : endpoint.disabledReason,
      previousSecretUntil: rotating ? this.format(rotating) : null,
      createTime: this.format(endpoint.createTime),
      updateTime: this.format(endpoint.updateTime),
    }
  }
}
