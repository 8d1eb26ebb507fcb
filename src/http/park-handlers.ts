// The handlers of what only the park edition serves: the pushes of its enterprises, the digests
// they reconcile against, and the overview of its enterprises.
import type { FastifyRequest } from 'fastify'
import type { components } from '../../generated/openapi.ts'
import { pushedListBytes } from '../contract/request-bodies.ts'
import { success } from '../errors.ts'
import type { ParkOperations } from '../operations/park-operations.ts'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import { type BodyOf, bodyOf, type Handler, ownCompany } from './handlers.ts'

type Schemas = components['schemas']

export interface ParkHandlerOptions {
  registry: ResourceRegistry
  park: ParkOperations
}

export function parkHandlers(options: ParkHandlerOptions): [string, Handler][] {
  const { park, registry } = options
  return [
    ['systemSyncDigest', (request) => park.syncDigest(bodyOf<BodyOf<'systemSyncDigest'>>(request), ownCompany(request))],
    ['systemEnterpriseList', () => park.enterpriseList()],
    [
      'systemPushRecords',
      async (request) => {
        const { resource, list } = bodyOf<Schemas['PushRecordsRequest']>(request)
        if (park.takesFacts(resource)) return success(await park.pushFacts(resource, list, ownCompany(request)))
        const result: Schemas['PushResult'] = await park.pushRecords(
          registry.pushedKind(resource),
          list,
          ownCompany(request),
          listText(request, resource),
        )
        return success(result)
      },
    ],
    [
      'systemPushAttachment',
      async (request) => {
        const { resource, ...attachment } = bodyOf<Schemas['PushAttachmentRequest']>(request)
        const result: Schemas['PushResult'] = await park.pushAttachment(registry.pushedKind(resource), attachment, ownCompany(request))
        return success(result)
      },
    ],
  ]
}

/** The pushed list's text as received, when the body is `{resource, list}` alone. */
function listText(request: FastifyRequest, resource: string): Buffer | undefined {
  return request.bodyBytes && pushedListBytes(request.bodyBytes, resource)
}
