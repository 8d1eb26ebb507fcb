// One handler per operationId of the document, generic over the resource registry: resource
// operations dispatch on the document's x-resource and x-action, writes go through Idempotency-Key
// and wake the park push, and the park edition takes pushed records on add-batch (X-Sync-Push).
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { listOperations, type OpenApiDocument } from '../contract/openapi-document.ts'
import { type BusinessCode, BusinessError, Code, type Envelope, statusOf, success } from '../errors.ts'
import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import type { WriteContext } from '../store/resource-store.ts'
import type { AttachmentOperations } from '../operations/attachment-operations.ts'
import type { Idempotency } from '../operations/idempotency.ts'
import type { ResourceOperations } from '../operations/resource-operations.ts'
import type { SystemOperations } from '../operations/system-operations.ts'

export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<Envelope> | Envelope

export function operationHandlers(options: {
  document: OpenApiDocument
  registry: ResourceRegistry
  resources: ResourceOperations
  attachments: AttachmentOperations
  system: SystemOperations
  idempotency: Idempotency
  edition: Config['edition']
  wakePush: () => void
}): Map<string, Handler> {
  const { document, registry, resources, attachments, system, idempotency, edition, wakePush } = options
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
  /** add-batch, or on the park edition with X-Sync-Push, the application of pushed records (admin only). */
  const addBatch =
    (resource: ResourceDef): Write =>
    async (request, context) => {
      if (request.headers['x-sync-push'] !== '1') return success(await resources.addBatch(resource, body(request).list, context))
      if (edition !== 'park') throw new BusinessError(Code.badParameter, 'X-Sync-Push: only the park edition takes pushed records')
      if (request.caller!.role !== 'admin')
        throw new BusinessError(Code.forbidden, 'permission denied: pushing records needs the admin role')
      return success(await resources.applyPushed(resource, body(request).list, context))
    }
  /** attachment/add, or on the park edition with X-Sync-Push, the application of a pushed attachment (admin only). */
  const attachmentAdd =
    (resource: ResourceDef): Write =>
    async (request, context) => {
      if (request.headers['x-sync-push'] !== '1') return (await attachments.add(resource, body(request), context), success())
      if (edition !== 'park') throw new BusinessError(Code.badParameter, 'X-Sync-Push: only the park edition takes pushed attachments')
      if (request.caller!.role !== 'admin')
        throw new BusinessError(Code.forbidden, 'permission denied: pushing attachments needs the admin role')
      return (await attachments.applyPushed(resource, body(request), context), success())
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
        return async (request) => success(await resources.getById(resource, body(request).id))
      case 'attachmentAdd':
        return write(operationId, attachmentAdd(resource))
      case 'attachmentDelete':
        return write(operationId, async (request, context) => (await attachments.delete(resource, body(request).id, context), success()))
      case 'attachmentList':
        return async (request) => success(await attachments.list(resource, body(request).recordId))
      case 'attachmentGet':
        return async (request) => success(await attachments.get(resource, body(request).id))
      case 'history':
        return async (request) => success(await resources.history(resource, body(request)))
      case 'list':
      case 'search':
        return async (request) => success(await resources.page(resource, body(request) ?? {}))
      default:
        throw new Error(`unknown x-action ${action} on ${operationId}`)
    }
  }
}
