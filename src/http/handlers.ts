// One handler per operationId of the document, generic over the resource registry: resource
// operations dispatch on the document's x-resource and x-action, writes go through Idempotency-Key
// and wake the park push, and the park edition takes pushed records on add-batch (X-Sync-Push).
// Bodies are read as the generated types of the document (generated/openapi.ts) describe them:
// the route has validated each against the same schema before its handler runs.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { components, operations } from '../../generated/openapi.ts'
import type { Caller } from '../auth/auth-service.ts'
import type { Config } from '../config.ts'
import { listOperations, type OpenApiDocument } from '../contract/openapi-document.ts'
import { BusinessError, Code, type Envelope, statusOf, success } from '../errors.ts'
import type { AttachmentOperations } from '../operations/attachment-operations.ts'
import type { EventParts } from '../operations/event-wiring.ts'
import type { Idempotency } from '../operations/idempotency.ts'
import type { SearchRequest } from '../domain/search.ts'
import type { ResourceOperations } from '../operations/resource-operations.ts'
import type { SystemOperations } from '../operations/system-operations.ts'
import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import type { WriteContext } from '../store/resource-store.ts'
import { eventHandlers } from './event-handlers.ts'

export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<Envelope> | Envelope

type Schemas = components['schemas']
type Resource = Capitalize<Schemas['ResourceKey']>
/** The bodies of the seven generic operations, over every resource. */
interface ResourceBodies {
  add: Schemas[Resource]
  update: Schemas[`${Resource}Patch`]
  id: Schemas['IdRequest']
  getById: Schemas['GetByIdRequest']
  addBatch: Schemas[`${Resource}Batch`]
  search: Schemas[`${Resource}Search`] | Schemas['ListRequest'] | undefined
}

/** The JSON body of operation `Id` as generated from the document (undefined when the operation takes none and none came). */
type BodyOf<Id extends keyof operations> = operations[Id] extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : operations[Id] extends { requestBody?: { content: { 'application/json': infer Body } } }
    ? Body | undefined
    : undefined

/** A request's body, validated by its route against the schema its generated type describes. */
function bodyOf<Body>(request: FastifyRequest): Body {
  return request.body as Body
}

/** The caller authentication found: every operation with a handler below that needs one is secured. */
function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new BusinessError(Code.notLoggedIn, 'not logged in')
  return request.caller
}

type Write = (request: FastifyRequest, context: WriteContext) => Promise<Envelope>

export interface HandlerOptions {
  document: OpenApiDocument
  registry: ResourceRegistry
  resources: ResourceOperations
  attachments: AttachmentOperations
  system: SystemOperations
  idempotency: Idempotency
  edition: Config['edition']
  wakePush: () => void
  events: EventParts
}

export function operationHandlers(options: HandlerOptions): Map<string, Handler> {
  const { system } = options
  const handlers = new Map<string, Handler>([
    ['systemLogin', (request) => system.login(bodyOf<BodyOf<'systemLogin'>>(request))],
    ['systemRefresh', (request) => system.refresh(callerOf(request))],
    ['systemLogout', (request) => system.logout(callerOf(request))],
    ['systemUserAdd', (request) => system.userAdd(bodyOf<BodyOf<'systemUserAdd'>>(request))],
    ['systemUserUpdate', (request) => system.userUpdate(bodyOf<BodyOf<'systemUserUpdate'>>(request))],
    ['systemUserDelete', (request) => system.userDelete(bodyOf<BodyOf<'systemUserDelete'>>(request))],
    ['systemUserList', (request) => system.userList(bodyOf<BodyOf<'systemUserList'>>(request))],
    ['systemSyncStatus', () => system.syncStatus()],
    ['systemSyncRetry', (request) => system.syncRetry(bodyOf<BodyOf<'systemSyncRetry'>>(request))],
    ['systemSyncReconcile', (request) => system.syncReconcile(bodyOf<BodyOf<'systemSyncReconcile'>>(request))],
    ['systemSyncDigest', (request) => system.syncDigest(bodyOf<BodyOf<'systemSyncDigest'>>(request), ownCompany(request))],
    ['systemEnterpriseList', () => system.enterpriseList()],
    ...eventHandlers(options.events),
  ])
  for (const { operationId, spec } of listOperations(options.document)) {
    const key = spec['x-resource']
    if (!key) continue
    handlers.set(operationId, resourceHandler(options, operationId, options.registry.get(key), spec['x-action']))
  }
  return handlers
}

function resourceHandler(options: HandlerOptions, operationId: string, resource: ResourceDef, action: string | undefined): Handler {
  const { resources } = options
  const write = (run: Write) => idempotentWrite(options, operationId, run)
  switch (action) {
    case 'add':
      return write(async (request, context) => {
        await resources.add(resource, bodyOf<ResourceBodies['add']>(request), context)
        return success()
      })
    case 'update':
      return write(async (request, context) => {
        await resources.update(resource, bodyOf<ResourceBodies['update']>(request), context)
        return success()
      })
    case 'delete':
      return write(async (request, context) => {
        await resources.delete(resource, bodyOf<ResourceBodies['id']>(request).id, context)
        return success()
      })
    case 'addBatch':
      return write(addBatch(options, resource))
    case 'getById':
      return async (request) => {
        const { id, companyCode } = bodyOf<ResourceBodies['getById']>(request)
        return success(await resources.getById(resource, id, readCompany(request, companyCode)))
      }
    case 'list':
    case 'search':
      return async (request) => success(await resources.page(resource, pageQuery(request)))
    case 'history':
      return async (request) => {
        const query = bodyOf<Schemas['HistoryRequest']>(request)
        return success(await resources.history(resource, { ...query, companyCode: readCompany(request, query.companyCode) }))
      }
    default:
      return attachmentHandler(options, operationId, resource, action)
  }
}

/** The four attachment operations of a resource (CONTRACT §12). */
function attachmentHandler(options: HandlerOptions, operationId: string, resource: ResourceDef, action: string | undefined): Handler {
  const { attachments } = options
  const write = (run: Write) => idempotentWrite(options, operationId, run)
  switch (action) {
    case 'attachmentAdd':
      return write(attachmentAdd(options, resource))
    case 'attachmentDelete':
      return write(async (request, context) => {
        await attachments.delete(resource, bodyOf<Schemas['IdRequest']>(request).id, context)
        return success()
      })
    case 'attachmentList':
      return async (request) => {
        const { recordId, companyCode } = bodyOf<Schemas['AttachmentListRequest']>(request)
        return success(await attachments.list(resource, recordId, readCompany(request, companyCode)))
      }
    case 'attachmentGet':
      return async (request) => {
        const { id, companyCode } = bodyOf<Schemas['AttachmentGetRequest']>(request)
        return success(await attachments.get(resource, id, readCompany(request, companyCode)))
      }
    default:
      throw new Error(`unknown x-action ${action} on ${operationId}`)
  }
}

/**
 * attachment/add, or on the park edition with X-Sync-Push, the application of a pushed attachment
 * (an admin for any enterprise, an enterprise account for its own: park/park-policy.ts refused everyone else).
 */
function attachmentAdd(options: HandlerOptions, resource: ResourceDef): Write {
  return async (request, context) => {
    const body = bodyOf<Schemas['AttachmentAddRequest']>(request)
    if (request.headers['x-sync-push'] !== '1') {
      await options.attachments.add(resource, body, context)
      return success()
    }
    if (options.edition !== 'park')
      throw new BusinessError(Code.badParameter, 'X-Sync-Push: only the park edition takes pushed attachments')
    const { role } = callerOf(request)
    const own = ownCompany(request)
    if (role !== 'admin' && role !== 'enterprise')
      throw new BusinessError(Code.forbidden, `permission denied: pushing attachments needs the admin or enterprise role, not ${role}`)
    if (role === 'enterprise' && body.companyCode !== own)
      throw new BusinessError(Code.forbidden, `permission denied: this account pushes companyCode ${own} only`)
    // The version held now: the enterprise marks the attachment synced only when it is the pushed one.
    const pushed: Schemas['AttachmentPushResult'] = { held: await options.attachments.applyPushed(resource, body, context) }
    return success(pushed)
  }
}

/** A write runs once per Idempotency-Key when the caller sends one; a stored write wakes the push. */
function idempotentWrite(options: HandlerOptions, operationId: string, run: Write): Handler {
  return async (request, reply) => {
    const { userId, userName } = callerOf(request)
    const key = request.headers['idempotency-key']
    const answer =
      typeof key === 'string'
        ? await options.idempotency.run({ userId, key, operationId, body: request.body }, (db) => run(request, { userName, db }))
        : await run(request, { userName })
    if (answer.code === Code.ok) options.wakePush()
    reply.code(statusOf(answer.code))
    return answer
  }
}

/**
 * add-batch, or on the park edition with X-Sync-Push, the application of pushed records (an admin
 * for any enterprise, an enterprise account for its own: park/park-policy.ts refused everyone else).
 */
function addBatch(options: HandlerOptions, resource: ResourceDef): Write {
  return async (request, context) => {
    const { list } = bodyOf<ResourceBodies['addBatch']>(request)
    if (request.headers['x-sync-push'] !== '1') return success(await options.resources.addBatch(resource, list, context))
    if (options.edition !== 'park') throw new BusinessError(Code.badParameter, 'X-Sync-Push: only the park edition takes pushed records')
    return success(await options.resources.applyPushed(resource, list, ownCompany(request), request.bodyBytes))
  }
}

/** The enterprise an `enterprise` account is bound to (CONTRACT §10); undefined for other roles (they see every enterprise). */
function ownCompany(request: FastifyRequest): string | undefined {
  return request.caller?.role === 'enterprise' ? (request.caller.companyCode ?? undefined) : undefined
}

/** The companyCode a read names, checked against the caller's own. */
function readCompany(request: FastifyRequest, named: string | undefined): string | undefined {
  const own = ownCompany(request)
  if (own !== undefined && named !== undefined && named !== own) {
    throw new BusinessError(Code.forbidden, `permission denied: this account reads companyCode ${own} only`)
  }
  return own ?? named
}

/** list and search: an enterprise account sees its own enterprise only (a condition added to the caller's). */
function pageQuery(request: FastifyRequest): SearchRequest {
  const query: SearchRequest = bodyOf<ResourceBodies['search']>(request) ?? {}
  const own = ownCompany(request)
  if (own === undefined) return query
  return { ...query, conditions: [...(query.conditions ?? []), { field: 'companyCode', op: 'eq', value: own }] }
}
