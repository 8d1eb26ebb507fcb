// What only the park edition does: apply what its enterprises push (pages of records, attachments),
// answer the digests an enterprise reconciles against, and give the overview of its enterprises.
import { createHash } from 'node:crypto'
import type { CompileOnFirstUse } from '../contract/compile-on-first-use.ts'
import type { OpenApiDocument } from '../contract/openapi-document.ts'
import { pushItemSchema } from '../contract/push-item-schema.ts'
import { describeErrors, type Validator } from '../contract/validation.ts'
import { decodeAttachment, decodeBase64 } from '../domain/attachment-content.ts'
import { zoneNamed } from '../domain/supervision/zone.ts'
import { BusinessError, Code, type Envelope, success } from '../errors.ts'
import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import { type AttachmentStore, attachmentTarget } from '../store/attachment-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import type { MonitoringOverview } from '../store/park-monitoring-store.ts'
import { DIGEST_RECORDS_LIMIT, type ParkStore } from '../store/park-store.ts'
import type { PushedFact, PushedFactKind, PushedFactStore } from '../store/pushed-facts.ts'
import type { ApiRecord } from '../store/resource-store.ts'
import type { SyncTable } from '../store/sync-store.ts'
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
  /** The facts pushed beside the records, by key, each with the validator of its items. */
  private readonly facts: Map<string, { kind: PushedFactKind; validate: Validator }>
  private readonly factStore: PushedFactStore

  constructor(options: {
    park: ParkStore
    attachments: AttachmentStore
    registry: ResourceRegistry
    format: InstantFormatter
    compiles: CompileOnFirstUse
    document: OpenApiDocument
    attachmentMaxBytes: number
    monitoring?: { overview(): Promise<Map<string, MonitoringOverview>> }
    facts: { store: PushedFactStore; kinds: readonly PushedFactKind[] }
  }) {
    this.monitoring = options.monitoring
    const { compiles, document, registry } = options
    this.factStore = options.facts.store
    this.facts = new Map(
      options.facts.kinds.map((kind) => [kind.key, { kind, validate: compiles.validator(factSchema(document, kind.key)) }]),
    )
    this.park = options.park
    this.attachments = options.attachments
    this.registry = registry
    this.format = options.format
    this.attachmentMaxBytes = options.attachmentMaxBytes
    this.pushItemValidators = new Map(
      registry.pushed.map((resource) => [
        resource.key,
        compiles.validator(pushItemSchema(document, resource.schemaName, { deletable: registry.all.includes(resource) })),
      ]),
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
    const { result, accepted } = judgeItems(list, validatorOf(this.pushItemValidators, resource), companyCode)
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

  /** Whether `key` names a kind of fact pushed through the records' push. */
  takesFacts(key: string): boolean {
    return this.facts.has(key)
  }

  /**
   * Facts pushed by an enterprise (its zone, calendar years, inspection periods), applied like
   * records by (companyCode, key) and version, and answered like them.
   */
  async pushFacts(key: string, list: unknown[], companyCode: string | undefined): Promise<PushResult> {
    const { kind, validate } = this.facts.get(key)!
    const { result, accepted } = judgeItems(list, validate, companyCode, factRefusal)
    if (accepted.length === 0) return result
    const held = await this.factStore.apply(
      kind,
      accepted.map(({ item }) => item as PushedFact),
    )
    for (const [i, { index, id }] of accepted.entries()) {
      result.succeeded.push(id)
      result.held.push({ id, index, version: held[i] })
    }
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
   * Digests of one enterprise's records, alarms or supervision facts (or with `attachments`, of the resource's attachments) in
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
    const resource = this.digestTable(body.resource, body.attachments ?? false)
    if (!body.records) return success({ buckets: await this.park.digests(resource, companyCode, body.prefixes) })
    const held = await this.park.held(resource, companyCode, body.prefixes)
    if (held.length > DIGEST_RECORDS_LIMIT) {
      throw new BusinessError(Code.badParameter, message('prefixesTooMany', { limit: DIGEST_RECORDS_LIMIT }))
    }
    return success({ records: held })
  }

  /** The park's table reconciliation reads for a pushed kind: a resource's or the alarms' records or attachments, or a fact's. */
  private digestTable(key: string, attachments: boolean): SyncTable {
    const fact = this.facts.get(key)?.kind
    if (fact === undefined) {
      const records = this.registry.pushedKind(key)
      return attachments ? attachmentTarget(records) : records
    }
    if (attachments) throw new BusinessError(Code.badParameter, message('factsHaveNoAttachments', { resource: key }))
    return { key: fact.key, table: fact.parkTable, path: fact.path }
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

/**
 * Each pushed item judged on its own: valid (1002 naming the field), of the pushing account's
 * enterprise (2003), and by `refusal` (1002 with its reason); the others accepted, in list order.
 */
function judgeItems(
  list: unknown[],
  validate: Validator,
  companyCode: string | undefined,
  refusal: (item: ApiRecord) => string | undefined = () => undefined,
): { result: PushResult; accepted: { index: number; id: string; item: ApiRecord }[] } {
  checkBatchSize(list)
  const result: PushResult = { succeeded: [], failed: [], held: [] }
  const accepted: { index: number; id: string; item: ApiRecord }[] = []
  for (const [index, item] of list.entries()) {
    const id = isRecord(item) && typeof item.id === 'string' ? item.id : null
    if (!validate(item)) {
      result.failed.push({ id, index, code: Code.badParameter, reason: describeErrors(validate.errors, '', 'item') })
    } else if (!isRecord(item) || id === null) {
      throw new Error('a valid pushed item without an id')
    } else if (companyCode !== undefined && item.companyCode !== companyCode) {
      const reason = `permission denied: this account pushes for companyCode ${companyCode}, not ${String(item.companyCode)}`
      result.failed.push({ id, index, code: Code.forbidden, reason })
    } else {
      const refused = refusal(item)
      if (refused === undefined) accepted.push({ index, id, item })
      else result.failed.push({ id, index, code: Code.badParameter, reason: refused })
    }
  }
  return { result, accepted }
}

/** The schema of a pushed fact of a kind, by the document's name for it (`inspectionPeriod`: PushedInspectionPeriod). */
function factSchema(document: OpenApiDocument, key: string): Record<string, unknown> {
  const name = `Pushed${key[0]!.toUpperCase()}${key.slice(1)}`
  const schema = document.components.schemas[name]
  if (!schema) throw new Error(`the document has no schema ${name}`)
  return { ...schema, components: document.components }
}

/** What a valid fact may still be refused for: its id not its key, a zone the park cannot read. */
function factRefusal(item: ApiRecord): string | undefined {
  if ('year' in item && item.id !== String(item.year)) return `id: must be the year as text (${String(item.year)})`
  if ('timeZone' in item) {
    if (item.id !== item.companyCode) return 'id: must be the companyCode'
    try {
      zoneNamed(String(item.timeZone))
    } catch {
      return `timeZone: not a zone (an offset such as +08:00, or an IANA name): ${String(item.timeZone)}`
    }
  }
  return undefined
}
