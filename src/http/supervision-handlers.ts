// The handlers of the supervision operations (operations/supervision): inspection periods, the
// working-day calendar, the indicators. Writes go through the caller's Idempotency-Key as every write.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { operations } from '../../generated/openapi.ts'
import { type Envelope, success } from '../errors.ts'
import type { SupervisionOperations } from '../operations/supervision/supervision-operations.ts'

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<Envelope> | Envelope
type Body<Id extends keyof operations> = operations[Id] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never

/** The enterprise an `enterprise` account is bound to; undefined for other roles. */
function ownCompany(request: FastifyRequest): string | undefined {
  return request.caller?.role === 'enterprise' ? (request.caller.companyCode ?? undefined) : undefined
}

function bodyOf<Id extends keyof operations>(request: FastifyRequest): Body<Id> {
  return request.body as Body<Id>
}

/** `write`: wraps a write in the caller's Idempotency-Key (http/handlers.ts). */
export function supervisionHandlers(
  supervision: SupervisionOperations,
  write: (operationId: string, run: (request: FastifyRequest) => Promise<Envelope>) => Handler,
): [string, Handler][] {
  return [
    [
      'preventTroubleshootTaskPeriods',
      async (request) => success(await supervision.periods(bodyOf<'preventTroubleshootTaskPeriods'>(request), ownCompany(request))),
    ],
    [
      'systemCalendarSet',
      write('systemCalendarSet', async (request) => {
        await supervision.calendarSet(bodyOf<'systemCalendarSet'>(request))
        return success()
      }),
    ],
    [
      'systemCalendarGet',
      async (request) => success(await supervision.calendarGet(bodyOf<'systemCalendarGet'>(request), ownCompany(request))),
    ],
    [
      'systemIndicators',
      async (request) => success(await supervision.indicators(bodyOf<'systemIndicators'>(request), ownCompany(request))),
    ],
  ]
}
