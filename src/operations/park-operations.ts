// What only the park edition does: apply what its enterprises push (pages of records, attachments),
// answer the digests an enterprise reconciles against, and give the overview of its enterprises.
import { createHash } from 'node:crypto'
import type { CompileOnFirstUse } from '../contract/compile-on-first-use.ts'
import type { OpenApiDocument } from '../contract/openapi-document.ts'
import { pushItemSchema } from '../contract/push-item-schema.ts'
import { describeErrors, type Validator } from '../contract/validation.ts'
import { decodeAttachment, decodeBase64 } from '../domain/attachment-content.ts'
import { BusinessError, Code, type Envelope, success } from '../errors.ts'
import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import { type AttachmentStore, attachmentTarget } from '../store/attachment-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import type { MonitoringOverview } from '../store/park-monitoring-store.ts'
import { DIGEST_RECORDS_LIMIT, type ParkStore } from '../store/park-store.ts'
import type { ApiRecord } from '../store/resource-store.ts'
import { type AttachmentAddBody, PUSH_ONLY_FIELDS } from './attachment-operations.ts'
import { type BatchResult, checkBatchSize, isRecord, validatorOf } from './resource-operations.ts'
import { message } from '../messages/message.ts'

/** The answer to a pushed page: per item its outcome, and per applied item the version the park holds now. */
export interface PushResult extends BatchResult {
  held: { id: string; index: number; version: number | null }[]
}

/** The refusals that are a pushed attachment's own: bytes not what it says, another enterprise's. */
const ATTACHMENT_REFUSALS = new Set<number>([Code.badParameter, Code.forbidden])

export class ParkOperations {
  private readonly park: ParkStore
  private readonly attachments: AttachmentStore
  private readonly registry: ResourceRegistry
  private readonly format: InstantFormatter
  private readonly attachmentMaxBytes: number
  /** Each enterprise's live monitoring at a glance, for its overview. */
  private readonly monitoring: { overview(): Promise<Map<string, MonitoringOverview>> } | undefined
  /** Validates one pushed record of each resource. */
  private readonly pushItemValidators: Map<string, Validator>

  constructor(options: {
    park: ParkStore
    attachments: AttachmentStore
    registry: ResourceRegistry
    format: InstantFormatter
    compiles: CompileOnFirstUse
    document: OpenApiDocument
    attachmentMaxBytes: number
    monitoring?: { overview(): Promise<Map<string, MonitoringOverview>> }
  }) {
    this.monitoring = options.monitoring
    const { compiles, document, registry } = options
    this.park = options.park
    this.attachments = options.attachments
    this.registry = registry
    this.format = options.format
    this.attachmentMaxBytes = options.attachmentMaxBytes
    this.pushItemValidators = new Map(
      registry.pushed.map((resource) => [resource.key, compiles.validator(pushItemSchema(document, resource.schemaName))]),
    )
  }

  /**
   * Records pushed by an enterprise, applied by (companyCode, id) and version in one statement (a
   * repeated or late push changes nothing). Rules, uniqueness and references were the enterprise's
   * to check. An item of another enterprise than the pushing account's (`companyCode` given: an
   * `enterprise` account) fails alone with 2003. `listText`: the list's JSON text as received,
   * when the statement may read the items from it instead of from the items written out again.
   */
  async pushRecords(resource: ResourceDef, list: unknown[], companyCode: string | undefined, listText?: Buffer): Promise<PushResult> {
    checkBatchSize(list)
    const validate = validatorOf(this.pushItemValidators, resource)
    const result: PushResult = { succeeded: [], failed: [], held: [] }
    const accepted: { index: number; id: string; item: ApiRecord }[] = []
    for (const [index, item] of list.entries()) {
      const id = isRecord(item) && typeof item.id === 'string' ? item.id : null
      if (!validate(item)) {
        result.failed.push({ id, index, code: Code.badParameter, reason: describeErrors(validate.errors) })
      } else if (!isRecord(item) || id === null) {
        throw new Error('a valid pushed item without an id')
      } else if (companyCode !== undefined && item.companyCode !== companyCode) {
        const reason = `permission denied: this account pushes for companyCode ${companyCode}, not ${String(item.companyCode)}`
        result.failed.push({ id, index, code: Code.forbidden, reason })
      } else accepted.push({ index, id, item })
    }
    if (accepted.length === 0) return result
    const applied = await this.park.applyPage(
      resource,
      accepted.map(({ item }) => item),
      accepted.length === list.length ? listText : undefined,
    )
    for (const [i, { index, id }] of accepted.entries()) {
      if (applied.errors[i]) {
        result.failed.push({ id, index, code: Code.badParameter, reason: 'a value is out of range (a date or time that does not exist?)' })
      } else {
        result.succeeded.push(id)
        result.held.push({ id, index, version: applied.held[i] })
      }
    }
    result.failed.sort((a, b) => a.index - b.index)
    return result
  }

  /**
   * An attachment as the enterprise holds it, applied by (companyCode, id) when its version is
   * newer; answered as a page of one: the version held now, or why the park refuses it (the
   * refusals that judge the attachment; any other failure is the whole call's).
   */
  async pushAttachment(resource: ResourceDef, body: AttachmentAddBody, companyCode: string | undefined): Promise<PushResult> {
    try {
      const version = await this.applyAttachment(resource, body, companyCode)
      return { succeeded: [body.id], failed: [], held: [{ id: body.id, index: 0, version }] }
    } catch (error) {
      if (!(error instanceof BusinessError) || !ATTACHMENT_REFUSALS.has(error.code)) throw error
      return { succeeded: [], failed: [{ id: body.id, index: 0, code: error.code, reason: error.message }], held: [] }
    }
  }

  /** A tombstone carries no bytes (`content` ""). */
  private async applyAttachment(resource: ResourceDef, body: AttachmentAddBody, companyCode: string | undefined): Promise<number | null> {
    if (companyCode !== undefined && body.companyCode !== companyCode)
      throw new BusinessError(Code.forbidden, message('pushesOwnCompany', { companyCode }))
    const missing = PUSH_ONLY_FIELDS.find((field) => body[field] === undefined)
    if (missing) throw new BusinessError(Code.badParameter, message('requiredInPush', { field: missing }))
    const decoded = body.deleted
      ? (() => {
          const content = decodeBase64(body.content)
          return { content, sha256: createHash('sha256').update(content).digest('hex') }
        })()
      : decodeAttachment(body, this.attachmentMaxBytes)
    return this.attachments.applyPushed(resource, {
      id: body.id,
      recordId: body.recordId,
      fileName: body.fileName,
      contentType: body.contentType,
      ...decoded,
      companyCode: body.companyCode!,
      createTime: body.createTime!,
      updateTime: body.updateTime!,
      createBy: body.createBy!,
      updateBy: body.updateBy!,
      version: body.version!,
      deleted: body.deleted!,
    })
  }

  /**
   * Digests of one enterprise's records (or with `attachments`, of the resource's attachments) in
   * buckets of ids, or their (id, version, deleted) with `records` (reconciliation). An enterprise
   * account asks for its own enterprise.
   */
  async syncDigest(
    body: { resource: string; companyCode?: string; prefixes: string[]; records?: boolean; attachments?: boolean },
    ownCompany: string | undefined,
  ): Promise<Envelope> {
    if (ownCompany !== undefined && body.companyCode !== undefined && body.companyCode !== ownCompany) {
      throw new BusinessError(Code.forbidden, message('readsOwnCompany', { companyCode: ownCompany }))
    }
    const companyCode = ownCompany ?? body.companyCode
    if (companyCode === undefined) throw new BusinessError(Code.badParameter, message('companyCodeWhich'))
    if (new Set(body.prefixes.map((prefix) => prefix.length)).size > 1) {
      throw new BusinessError(Code.badParameter, message('prefixesSameLength'))
    }
    const records = this.registry.get(body.resource)
    const resource = body.attachments ? attachmentTarget(records) : records
    if (!body.records) return success({ buckets: await this.park.digests(resource, companyCode, body.prefixes) })
    const held = await this.park.held(resource, companyCode, body.prefixes)
    if (held.length > DIGEST_RECORDS_LIMIT) {
      throw new BusinessError(Code.badParameter, message('prefixesTooMany', { limit: DIGEST_RECORDS_LIMIT }))
    }
    return success({ records: held })
  }

  /** Every enterprise with an account or records, its accounts, last push and holdings. */
  async enterpriseList(): Promise<Envelope> {
    const [list, monitoring] = await Promise.all([this.park.enterprises(), this.monitoring?.overview()])
    const quiet: MonitoringOverview = { activeAlarms: 0, activeAlarmsByKind: [], offlinePoints: 0 }
    return success({
      list: list.map((entry) => ({
        ...entry,
        lastPushTime: entry.lastPushTime && this.format(entry.lastPushTime),
        ...(monitoring?.get(entry.companyCode) ?? quiet),
      })),
      total: list.length,
    })
  }
}
