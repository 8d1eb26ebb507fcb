// The handlers of the operations both editions serve, one per operationId: the system's (login,
// users, sync administration) and the resources', generic over the registry (dispatched on the
// document's x-resource and x-action); writes go through Idempotency-Key and wake the push. An
// edition adds its own (park-handlers.ts) in its composition (src/editions/).
// Bodies are read as the generated types of the document (generated/openapi.ts) describe them:
// the route has validated each against the same schema before its handler runs.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { components, operations } from '../../generated/openapi.ts'
import type { Caller } from '../auth/auth-service.ts'
import { listOperations, type OpenApiDocument } from '../contract/openapi-document.ts'
import { BusinessError, Code, type Envelope, statusOf, success } from '../errors.ts'
import type { AttachmentOperations } from '../operations/attachment-operations.ts'
import type { Idempotency } from '../operations/idempotency.ts'
import type { SearchRequest } from '../domain/search.ts'
import type { ResourceOperations } from '../operations/resource-operations.ts'
import type { SystemOperations } from '../operations/system-operations.ts'
import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import type { WriteContext } from '../store/resource-store.ts'
import { message } from '../messages/message.ts'

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
export type BodyOf<Id extends keyof operations> = operations[Id] extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : operations[Id] extends { requestBody?: { content: { 'application/json': infer Body } } }
    ? Body | undefined
    : undefined

/** A request's body, validated by its route against the schema its generated type describes. */
export function bodyOf<Body>(request: FastifyRequest): Body {
  return request.body as Body
}

/** The caller authentication found: every operation with a handler below that needs one is secured. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new BusinessError(Code.notLoggedIn, message('notLoggedIn'))
  return request.caller
}

export type Write = (request: FastifyRequest, context: WriteContext) => Promise<Envelope>

/** What a write needs besides its operation: its Idempotency-Key, and the push to wake once it is stored. */
export interface WriteOptions {
  idempotency: Idempotency
  wakePush: () => void
}

export interface ResourceHandlerOptions extends WriteOptions {
  document: OpenApiDocument
  registry: ResourceRegistry
  resources: ResourceOperations
  attachments: AttachmentOperations
}

/** The system's operations: log-in and tokens, users, and the push's administration. */
export function systemHandlers(system: SystemOperations): [string, Handler][] {
  return [
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
  ]
}

/** The operations of every resource of the document. */
export function resourceHandlers(options: ResourceHandlerOptions): [string, Handler][] {
  return listOperations(options.document).flatMap(({ operationId, spec }): [string, Handler][] => {
    const key = spec['x-resource']
    return key ? [[operationId, resourceHandler(options, operationId, options.registry.get(key), spec['x-action'])]] : []
  })
}

function resourceHandler(options: ResourceHandlerOptions, operationId: string, resource: ResourceDef, action: string | undefined): Handler {
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

/** The four attachment operations of a resource. */
function attachmentHandler(
  options: ResourceHandlerOptions,
  operationId: string,
  resource: ResourceDef,
  action: string | undefined,
): Handler {
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

/** attachment/add: a new file. */
function attachmentAdd(options: ResourceHandlerOptions, resource: ResourceDef): Write {
  return async (request, context) => {
    await options.attachments.add(resource, bodyOf<Schemas['AttachmentAddRequest']>(request), context)
    return success()
  }
}

/** A write runs once per Idempotency-Key when the caller sends one; a stored write wakes the push. */
export function idempotentWrite(options: WriteOptions, operationId: string, run: Write): Handler {
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

/** add-batch: new records, each judged alone. */
function addBatch(options: ResourceHandlerOptions, resource: ResourceDef): Write {
  return async (request, context) => {
    return success(await options.resources.addBatch(resource, bodyOf<ResourceBodies['addBatch']>(request).list, context))
  }
}

/** The enterprise an `enterprise` account is bound to; undefined for other roles (they see every enterprise). */
export function ownCompany(request: FastifyRequest): string | undefined {
  return request.caller?.role === 'enterprise' ? (request.caller.companyCode ?? undefined) : undefined
}

/** The companyCode a read names, checked against the caller's own. */
export function readCompany(request: FastifyRequest, named: string | undefined): string | undefined {
  const own = ownCompany(request)
  if (own !== undefined && named !== undefined && named !== own) {
    throw new BusinessError(Code.forbidden, message('readsOwnCompany', { companyCode: own }))
  }
  return own ?? named
}

/** list and search: an enterprise account sees its own enterprise only (a condition added to the caller's). */
export function pageQuery(request: FastifyRequest): SearchRequest {
  const query: SearchRequest = bodyOf<ResourceBodies['search']>(request) ?? {}
  const own = ownCompany(request)
  if (own === undefined) return query
  return { ...query, conditions: [...(query.conditions ?? []), { field: 'companyCode', op: 'eq', value: own }] }
}
