// Which operation of the document a request is for: read from the route's schema, which
// fastify-openapi-glue copies from the document (operationId included).
import type { FastifyRequest } from 'fastify'

/** The operationId of the document's operation a request is for, if it is for one. */
export function operationIdOf(request: FastifyRequest): string | undefined {
  return (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId
}

/** The operation a request is for: its operationId, the route of pages outside the contract, or `unmatched`. */
export function operationOf(request: FastifyRequest): string {
  return operationIdOf(request) ?? (request.routeOptions.url || 'unmatched')
}
