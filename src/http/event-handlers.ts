// The handlers of the event feed and the webhooks (docs/events.md), added to the operation handlers.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { operations } from '../../generated/openapi.ts'
import { type Envelope, success } from '../errors.ts'
import type { EventParts } from '../operations/event-wiring.ts'

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<Envelope> | Envelope

type Body<Id extends keyof operations> = operations[Id] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never

/** The route has validated the body against the schema its generated type describes. */
function bodyOf<Id extends keyof operations>(request: FastifyRequest): Body<Id> {
  return (request.body ?? {}) as Body<Id>
}

export function eventHandlers({ events, webhooks }: EventParts): [string, Handler][] {
  return [
    [
      'systemEventList',
      // An enterprise account (park) reads its own enterprise's events only.
      async (request) =>
        success(
          await events.list(
            bodyOf<'systemEventList'>(request),
            request.caller?.role === 'enterprise' ? (request.caller.companyCode ?? '') : undefined,
          ),
        ),
    ],
    ['systemWebhookAdd', async (request) => success(await webhooks.add(bodyOf<'systemWebhookAdd'>(request)))],
    ['systemWebhookUpdate', async (request) => success(await webhooks.update(bodyOf<'systemWebhookUpdate'>(request)))],
    ['systemWebhookDelete', async (request) => success(await webhooks.delete(bodyOf<'systemWebhookDelete'>(request).id))],
    ['systemWebhookList', async () => success(await webhooks.list())],
    ['systemWebhookRotateSecret', async (request) => success(await webhooks.rotateSecret(bodyOf<'systemWebhookRotateSecret'>(request).id))],
    ['systemWebhookTest', async (request) => success(await webhooks.test(bodyOf<'systemWebhookTest'>(request).id))],
    ['systemWebhookDeliveries', async (request) => success(await webhooks.deliveries(bodyOf<'systemWebhookDeliveries'>(request)))],
    [
      'systemWebhookRedeliver',
      async (request) => {
        const { id, eventId } = bodyOf<'systemWebhookRedeliver'>(request)
        return success(await webhooks.redeliver(id, eventId))
      },
    ],
  ]
}
