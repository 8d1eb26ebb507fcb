// The contract as served: /openapi.yaml and /openapi.json, and Swagger UI at /docs, offline from npm
// packages: @fastify/swagger in static mode holds the document already loaded (nothing is generated
// from the routes), @fastify/swagger-ui serves the UI's assets and the document it renders
// (/docs/json, /docs/yaml). The UI's "Authorize" takes the bearer token of /system/login; "Try it
// out" then calls the operations of the serving edition (the document's server is `/`). Pages,
// not operations: no authentication, no rate limit.
import fastifySwagger, { type StaticDocumentSpec } from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { OUTSIDE_CONTRACT } from '../routing.ts'
import type { OpenApiDocument } from '../../contract/openapi-document.ts'

export const DOCS_PREFIX = '/docs'

/**
 * The Swagger UI's pages: scripts, styles and fonts from this server only (no inline script, no
 * `eval`), calls to this server only, never framed (clickjacking), no plugins, no <base>.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "base-uri 'none'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  // The one <style> element the Swagger UI bundle inserts, by its hash (test/browser fails when a new
  // version of the bundle inserts another); any other <style> element stays refused.
  "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
].join('; ')

async function docs(app: FastifyInstance, options: { document: OpenApiDocument; yaml: () => Promise<string> }): Promise<void> {
  const { document, yaml } = options
  app.get('/openapi.yaml', OUTSIDE_CONTRACT, async (_request, reply) => reply.type('application/yaml; charset=utf-8').send(await yaml()))
  app.get('/openapi.json', OUTSIDE_CONTRACT, async () => document)
  await app.register(async (ui) => {
    await ui.register(fastifySwagger, { mode: 'static', specification: { document: servable(document) } })
    await ui.register(fastifySwaggerUi, {
      routePrefix: DOCS_PREFIX,
      // Replaces the helmet policy of API answers on the UI's pages (set in its own onSend hook).
      staticCSP: DOCS_CSP,
      uiConfig: {
        // The token entered in "Authorize" survives a page reload.
        persistAuthorization: true,
        displayOperationId: true,
        displayRequestDuration: true,
        // Dozens of operations: a filter box (by tag) helps.
        filter: true,
        // Tags start collapsed: the UI renders a tag's operations when it is opened. Rendering all of
        // them at once (some 150) stopped after the first few, with no error shown.
        docExpansion: 'none',
        // No badge fetched from validator.swagger.io: the page stays offline and inside its policy.
        validatorUrl: null,
      },
    })
  })
}

/** The document as @fastify/swagger types an OpenAPI 3 document: its version says it is one. */
function servable(document: OpenApiDocument): StaticDocumentSpec['document'] {
  if (!isOpenApi3(document)) throw new Error(`not an OpenAPI 3 document: openapi ${document.openapi}`)
  return document
}

function isOpenApi3(document: OpenApiDocument): document is OpenApiDocument & Extract<StaticDocumentSpec['document'], { openapi: string }> {
  return document.openapi.startsWith('3.')
}

export default fp(docs, { name: 'docs', fastify: '5.x' })
