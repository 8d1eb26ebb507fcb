// Swagger UI at /docs, served offline from npm packages: @fastify/swagger in static mode holds the
// document already loaded (nothing is generated from the routes), @fastify/swagger-ui serves the
// UI's assets and the document it renders (/docs/json, /docs/yaml; /openapi.json and /openapi.yaml
// stay app.ts's). The UI's "Authorize" takes the bearer token of /system/login; "Try it out" then
// calls the operations of the serving edition (the document's server is `/`).
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import type { OpenApiDocument } from '../contract/openapi-document.ts'

export const DOCS_PREFIX = '/docs'

export async function registerSwaggerUi(app: FastifyInstance, document: OpenApiDocument): Promise<void> {
  // Pages, not operations: registered before the rate limiter (buildApp), whose global hook then
  // never reaches these routes; authentication only concerns the document's operations.
  await app.register(async (docs) => {
    await docs.register(fastifySwagger, { mode: 'static', specification: { document: document as never } })
    await docs.register(fastifySwaggerUi, {
      routePrefix: DOCS_PREFIX,
      uiConfig: {
        // The token entered in "Authorize" survives a page reload.
        persistAuthorization: true,
        displayOperationId: true,
        displayRequestDuration: true,
        // 72 operations: a filter box (by tag) helps.
        filter: true,
      },
    })
  })
}
