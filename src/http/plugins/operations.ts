// The document's operations as routes (fastify-openapi-glue): each operationId to its handler,
// each request validated by the one Ajv (no coercion, no stripping) against the document's schema.
import type { FastifyInstance } from 'fastify'
import openapiGlue from 'fastify-openapi-glue'
import fp from 'fastify-plugin'
import { listOperations, type OpenApiDocument } from '../../contract/openapi-document.ts'
import type { createAjv } from '../../contract/validation.ts'
import type { Handler } from '../handlers.ts'

export interface OperationsOptions {
  document: OpenApiDocument
  ajv: ReturnType<typeof createAjv>
  handlers: Map<string, Handler>
  /** Body limits of the operations with this `x-action` (attachment/add carries files), above the global one. */
  bodyLimits?: Record<string, number>
}

async function operations(app: FastifyInstance, options: OperationsOptions): Promise<void> {
  const { ajv, handlers } = options
  const actions = new Map(listOperations(options.document).map(({ operationId, spec }) => [operationId, spec['x-action'] as string]))
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema))
  await app.register(openapiGlue, {
    specification: runtimeSpecification(options.document),
    // glue's typings want full route options; at run time it takes any subset (handler, hooks, config).
    operationResolver: ((operationId: string) => {
      const handler = handlers.get(operationId)
      if (!handler) throw new Error(`no handler for operation ${operationId}`)
      if (operationId === 'systemLogin') return { handler, config: { rateLimit: false }, preValidation: app.loginLimit }
      const bodyLimit = options.bodyLimits?.[actions.get(operationId) ?? '']
      return bodyLimit ? { handler, bodyLimit } : { handler }
    }) as never,
  })
}

/**
 * The document as the router uses it: batch items are validated one by one by the handler (a bad
 * item fails alone, with its own code), so the request schema accepts any item; header parameters
 * are named as Node presents them, in lower case, so their schemas apply.
 */
function runtimeSpecification(document: OpenApiDocument): OpenApiDocument {
  const specification = structuredClone(document)
  for (const parameter of Object.values<Record<string, any>>(specification.components.parameters ?? {})) {
    if (parameter.in === 'header') parameter.name = parameter.name.toLowerCase()
  }
  for (const schema of Object.values<Record<string, any>>(specification.components.schemas)) {
    for (const property of Object.values<Record<string, any>>(schema.properties ?? {})) {
      if (property['x-batch-items']) property.items = {}
    }
  }
  return specification
}

export default fp(operations, {
  name: 'operations',
  fastify: '5.x',
  // Authenticated, limited and parsed by these, refused through the envelope.
  dependencies: ['envelope', 'authentication', 'rate-limits', 'json-body'],
})
