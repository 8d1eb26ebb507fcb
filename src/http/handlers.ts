// One handler per operationId of the document, generic over the resource registry: resource
// operations dispatch on the document's x-resource and x-action, writes go through Idempotency-Key
// and wake the park push, and the park edition takes pushed records on add-batch (X-Sync-Push).
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { listOperations, type OpenApiDocument } from '../contract/openapi-document.ts'
import { type BusinessCode, BusinessError, Code, type Envelope, statusOf, success } from '../errors.ts'
import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import type { WriteContext } from '../store/resource-store.ts'
import type { Idempotency } from '../operations/idempotency.ts'
import type { ResourceOperations } from '../operations/resource-operations.ts'
import type { SystemOperations } from '../operations/system-operations.ts'

export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<Envelope> | Envelope

export function operationHandlers(options: {
  document: OpenApiDocument
  registry: ResourceRegistry
  resources: ResourceOperations
  system: SystemOperations
  idempotency: Idempotency
  edition: Config['edition']
  wakePush: () => void
}): Map<string, Handler> {
  const { document, registry, resources, system, idempotency, edition, wakePush } = options
  const handlers = new Map<string, Handler>()
  const body = (request: FastifyRequest) => request.body as any
  type Write = (request: FastifyRequest, context: WriteContext) => Promise<Envelope>
  /** A write runs once per Idempotency-Key when the caller sends one; a stored write wakes the push. */
  const write =
    (operationId: string, run: Write): Handler =>
    async (request, reply) => {
      const userName = request.caller!.userName
      const key = request.headers['idempotency-key']
      const answer =
        typeof key === 'string'
          ? await idempotency.run({ userName, key, operationId, body: request.body }, (db) => run(request, { userName, db }))
          : await run(request, { userName })
      if (answer.code === Code.ok) wakePush()
      reply.code(statusOf(answer.code as BusinessCode))
      return answer
    }
  /**
   * add-batch, or on the park edition with X-Sync-Push, the application of pushed records (an admin
   * for any enterprise, an enterprise account for its own: park-policy.ts refused everyone else).
   */
  const addBatch =
    (resource: ResourceDef): Write =>
    async (request, context) => {
      if (request.headers['x-sync-push'] !== '1') return success(await resources.addBatch(resource, body(request).list, context))
      if (edition !== 'park') throw new BusinessError(Code.badParameter, 'X-Sync-Push: only the park edition takes pushed records')
      return success(await resources.applyPushed(resource, body(request).list, ownCompany(request)))
    }
  /** The enterprise an `enterprise` account is bound to; undefined for other roles (they see every enterprise). */
  const ownCompany = (request: FastifyRequest): string | undefined =>
    request.caller?.role === 'enterprise' ? (request.caller.companyCode ?? undefined) : undefined
  /** The companyCode a read names, checked against the caller's own. */
  const readCompany = (request: FastifyRequest, named: string | undefined): string | undefined => {
    const own = ownCompany(request)
    if (own !== undefined && named !== undefined && named !== own) {
      throw new BusinessError(Code.forbidden, `permission denied: this account reads companyCode ${own} only`)
    }
    return own ?? named
  }
  /** list and search: an enterprise account sees its own enterprise only (a condition added to its own). */
  const pageQuery = (request: FastifyRequest) => {
    const query = body(request) ?? {}
    const own = ownCompany(request)
    return own === undefined
      ? query
      : { ...query, conditions: [...(query.conditions ?? []), { field: 'companyCode', op: 'eq', value: own }] }
  }
  handlers.set('systemLogin', (request) => system.login(body(request)))
  handlers.set('systemRefresh', (request) => system.refresh(request.caller!))
  handlers.set('systemLogout', (request) => system.logout(request.caller!))
  handlers.set('systemUserAdd', (request) => system.userAdd(body(request)))
  handlers.set('systemUserUpdate', (request) => system.userUpdate(body(request)))
  handlers.set('systemUserDelete', (request) => system.userDelete(body(request)))
  handlers.set('systemUserList', (request) => system.userList(body(request)))
  handlers.set('systemSyncStatus', () => system.syncStatus())
  handlers.set('systemSyncRetry', (request) => system.syncRetry(body(request)))
  handlers.set('systemSyncReconcile', (request) => system.syncReconcile(body(request)))
  handlers.set('systemSyncDigest', (request) => system.syncDigest(body(request), ownCompany(request)))
  handlers.set('systemEnterpriseList', () => system.enterpriseList())
  for (const { operationId, spec } of listOperations(document)) {
    const key = spec['x-resource']
    if (!key) continue
    const resource = registry.get(key)
    handlers.set(operationId, resourceHandler(operationId, resource, spec['x-action']))
  }
  return handlers

  function resourceHandler(operationId: string, resource: ResourceDef, action: string): Handler {
    switch (action) {
      case 'add':
        return write(operationId, async (request, context) => (await resources.add(resource, body(request), context), success()))
      case 'update':
        return write(operationId, async (request, context) => (await resources.update(resource, body(request), context), success()))
      case 'delete':
        return write(operationId, async (request, context) => (await resources.delete(resource, body(request).id, context), success()))
      case 'addBatch':
        return write(operationId, addBatch(resource))
      case 'getById':
        return async (request) =>
          success(await resources.getById(resource, body(request).id, readCompany(request, body(request).companyCode)))
      case 'list':
      case 'search':
        return async (request) => success(await resources.page(resource, pageQuery(request)))
      default:
        throw new Error(`unknown x-action ${action} on ${operationId}`)
    }
  }
}
