// The document's operations as routes (fastify-openapi-glue): each operationId to its handler,
// each request validated by the one Ajv (no coercion, no stripping) against the document's schema,
// with the route's validators compiled on its first request.
import type { FastifyInstance } from 'fastify'
import openapiGlue from 'fastify-openapi-glue'
import fp from 'fastify-plugin'
import type { CompileOnFirstUse } from '../../contract/compile-on-first-use.ts'
import { type OpenApiDocument, withoutDocumentation } from '../../contract/openapi-document.ts'
import { withDeclaredBodies } from '../../contract/request-bodies.ts'
import type { Handler } from '../handlers.ts'
import { effectiveBodyLimit, type OperationPolicy } from '../operation-policy.ts'
import { operationIdOfSchema } from '../routing.ts'

export interface OperationsOptions {
  document: OpenApiDocument
  /** The one Ajv, through which each route's validators compile on their first request. */
  compiles: CompileOnFirstUse
  handlers: Map<string, Handler>
  policies: Map<string, OperationPolicy>
  /** BODY_LIMIT: the batches' body limit and the ceiling of every other. */
  bodyLimit: number
  /** attachment/add's body limit: a file of ATTACHMENT_MAX_BYTES as base64 beside its other fields. */
  attachmentBodyLimit: number
}

async function operations(app: FastifyInstance, options: OperationsOptions): Promise<void> {
  const { compiles, handlers } = options
  app.setValidatorCompiler(({ schema }) => compiles.validator(schema))
  // Each operation's body limit: a body over it is 413/1010 before a byte of it is parsed.
  app.addHook('onRoute', (route) => {
    const policy = options.policies.get(operationIdOfSchema(route.schema) ?? '')
    if (policy) route.bodyLimit = effectiveBodyLimit(policy, options.bodyLimit, options.attachmentBodyLimit)
  })
  await app.register(openapiGlue, {
    specification: withDeclaredBodies(runtimeSpecification(options.document)),
    operationResolver: (operationId: string) => {
      const handler = handlers.get(operationId)
      if (!handler) throw new Error(`no handler for operation ${operationId}`)
      return handler
    },
  })
}

/**
 * The document as the router uses it: batch items are validated one by one by the handler (a bad
 * item fails alone, with its own code), so the request schema accepts any item; header parameters
 * are named as Node presents them, in lower case, so their schemas apply; and what only documents
 * is left out (the published document keeps it).
 */
function runtimeSpecification(document: OpenApiDocument): OpenApiDocument {
  const specification = withoutDocumentation(document)
  for (const parameter of Object.values(specification.components.parameters ?? {})) {
    if (parameter.in === 'header') parameter.name = parameter.name.toLowerCase()
  }
  for (const schema of Object.values(specification.components.schemas)) {
    for (const property of Object.values(schema.properties ?? {})) {
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
