// The handlers of what only the park edition serves: the pushes of its enterprises, the digests
// they reconcile against, and the overview of its enterprises.
import type { FastifyRequest } from 'fastify'
import type { components } from '../../generated/openapi.ts'
import { listOperations, type OpenApiDocument } from '../contract/openapi-document.ts'
import { batchListBytes } from '../contract/request-bodies.ts'
import { success } from '../errors.ts'
import type { ParkOperations } from '../operations/park-operations.ts'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import { type BodyOf, bodyOf, type Handler, idempotentWrite, ownCompany, type WriteOptions } from './handlers.ts'

type Schemas = components['schemas']

export interface ParkHandlerOptions extends WriteOptions {
  document: OpenApiDocument
  registry: ResourceRegistry
  park: ParkOperations
}

export function parkHandlers(options: ParkHandlerOptions): [string, Handler][] {
  const { park } = options
  const handlers: [string, Handler][] = [
    ['systemSyncDigest', (request) => park.syncDigest(bodyOf<BodyOf<'systemSyncDigest'>>(request), ownCompany(request))],
    ['systemEnterpriseList', () => park.enterpriseList()],
  ]
  for (const { operationId, spec } of listOperations(options.document)) {
    const key = spec['x-resource']
    if (!key) continue
    const resource = options.registry.get(key)
    if (spec['x-action'] === 'addBatch') {
      handlers.push([
        operationId,
        idempotentWrite(options, operationId, async (request) => {
          const { list } = bodyOf<{ list: unknown[] }>(request)
          return success(await park.pushRecords(resource, list, ownCompany(request), listText(request)))
        }),
      ])
    } else if (spec['x-action'] === 'attachmentAdd') {
      handlers.push([
        operationId,
        idempotentWrite(options, operationId, async (request, context) => {
          const body = bodyOf<Schemas['AttachmentAddRequest']>(request)
          // The version held now: the enterprise marks the attachment synced only when it is the pushed one.
          const pushed: Schemas['AttachmentPushResult'] = { held: await park.pushAttachment(resource, body, ownCompany(request), context) }
          return success(pushed)
        }),
      ])
    }
  }
  return handlers
}

/** The pushed list's text as received, when the body is that list alone. */
function listText(request: FastifyRequest): Buffer | undefined {
  return request.bodyBytes && batchListBytes(request.bodyBytes)
}
