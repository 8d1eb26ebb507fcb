// Which operation of the document a request is for: read from the route's schema, which
// fastify-openapi-glue copies from the document (operationId included).
import type { FastifyRequest } from 'fastify'

/** Route options of the pages outside the contract (docs, health, metrics): not rate limited. */
export const OUTSIDE_CONTRACT = { config: { rateLimit: false } }

/** The operationId of the document's operation a request is for, if it is for one. */
export function operationIdOf(request: FastifyRequest): string | undefined {
  return operationIdOfSchema(request.routeOptions.schema)
}

/** The operationId a route's schema carries (glue's routes), if any. */
export function operationIdOfSchema(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || !('operationId' in schema)) return undefined
  return typeof schema.operationId === 'string' ? schema.operationId : undefined
}

/** The operation a request is for: its operationId, the route of pages outside the contract, or `unmatched`. */
export function operationOf(request: FastifyRequest): string {
  return operationIdOf(request) ?? (request.routeOptions.url || 'unmatched')
}
