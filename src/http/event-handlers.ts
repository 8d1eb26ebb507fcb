// The handlers of the event feed and the webhooks (docs/events.md), added to the operation handlers.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { operations } from '../../generated/openapi.ts'
import { type Envelope, success } from '../errors.ts'
import type { EventOperations } from '../operations/event-operations.ts'

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<Envelope> | Envelope

type Body<Id extends keyof operations> = operations[Id] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never

/** The route has validated the body against the schema its generated type describes. */
function bodyOf<Id extends keyof operations>(request: FastifyRequest): Body<Id> {
  return (request.body ?? {}) as Body<Id>
}

export function eventHandlers(events: EventOperations): [string, Handler][] {
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
  ]
}
