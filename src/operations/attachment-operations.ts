// The four attachment operations of every resource (pushed attachments: park-operations.ts).
import { decodeAttachment } from '../domain/attachment-content.ts'
import { BusinessError, Code, severalEnterprises } from '../errors.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
import type { AttachmentInfo, AttachmentStore } from '../store/attachment-store.ts'
import type { WriteContext } from '../store/resource-store.ts'
import { message } from '../messages/message.ts'

export interface AttachmentAddBody {
  id: string
  recordId: string
  fileName: string
  contentType: string
  content: string
  companyCode?: string
  createTime?: string
  updateTime?: string
  createBy?: string
  updateBy?: string
  version?: number
  deleted?: boolean
}

/** Fields of a pushed attachment (/system/push/attachment) beyond those of `add`. */
export const PUSH_ONLY_FIELDS = ['companyCode', 'createTime', 'updateTime', 'createBy', 'updateBy', 'version', 'deleted'] as const

export class AttachmentOperations {
  private readonly store: AttachmentStore
  private readonly maxBytes: number

  constructor(options: { store: AttachmentStore; maxBytes: number }) {
    this.store = options.store
    this.maxBytes = options.maxBytes
  }

  async add(resource: ResourceDef, body: AttachmentAddBody, context: WriteContext): Promise<void> {
    const pushOnly = PUSH_ONLY_FIELDS.find((field) => field in body)
    if (pushOnly) throw new BusinessError(Code.badParameter, message('pushOnlyField', { field: pushOnly }))
    const { content, sha256 } = decodeAttachment(body, this.maxBytes)
    await this.store.add(
      resource,
      {
        id: body.id,
        recordId: body.recordId,
        fileName: body.fileName,
        contentType: body.contentType,
        content,
        sha256,
      },
      context.userName,
      context.db,
    )
  }

  /**
   * The live attachments of the record `recordId`. On the park several enterprises may hold that
   * id: `companyCode` names which (without it, 1002 when several do). An enterprise account's own
   * enterprise is named for it.
   */
  async list(resource: ResourceDef, recordId: string, companyCode?: string): Promise<{ list: AttachmentInfo[]; total: number }> {
    const { list, holders } = await this.store.list(resource, recordId, companyCode)
    if (holders > 1) throw severalEnterprises(`${resource.key} ${recordId}`)
    return { list, total: list.length }
  }

  /** The live attachment with this id, as `list`: `companyCode` names the enterprise when several hold the id. */
  async get(resource: ResourceDef, id: string, companyCode?: string): Promise<AttachmentInfo> {
    const { found, holders } = await this.store.get(resource, id, companyCode)
    if (holders > 1) throw severalEnterprises(message('attachmentOf', { resource: resource.key, id }))
    if (!found) throw new BusinessError(Code.notFound, message('attachmentNotFound', { id }))
    return found
  }

  async delete(resource: ResourceDef, id: string, context: WriteContext): Promise<void> {
    await this.store.delete(resource, id, context.userName, context.db)
  }
}
