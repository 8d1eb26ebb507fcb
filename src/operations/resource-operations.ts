// The seven generic operations of every resource. Handlers stay thin: domain rules, then the store.
import type { FastifyBaseLogger } from 'fastify'
import type { OpenApiDocument } from '../contract/openapi-document.ts'
import type { CompileOnFirstUse } from '../contract/compile-on-first-use.ts'
import { describeProblems, type Validator } from '../contract/validation.ts'
import { checkRecord, checkUpdate, needsMergedCheck } from '../domain/resource-rules.ts'
import { type SearchRequest, validSearch } from '../domain/search.ts'
import { BusinessError, Code, GENERIC_BUSY_MESSAGE, severalEnterprises } from '../errors.ts'
import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import { classifyDatabaseError } from '../store/database-errors.ts'
import type { HistoryPage, HistoryStore } from '../store/history-store.ts'
import type { RecordScope } from '../store/record-scope.ts'
import { type ApiRecord, type Page, type ResourceStore, VersionConflict, type WriteContext } from '../store/resource-store.ts'
import { english, message } from '../messages/message.ts'

export const BATCH_LIMIT = 500
const UPDATE_ATTEMPTS = 5

export interface BatchResult {
  succeeded: string[]
  failed: { id: string | null; index: number; code: number; reason: string }[]
}

export class ResourceOperations {
  private readonly store: ResourceStore
  /** Validates one `add` body of each resource (batch items are checked one by one). */
  private readonly itemValidators: Map<string, Validator>
  private readonly historyStore: HistoryStore
  /** Where an unexpected failure of one batch item is logged (the item answers -1, the batch goes on). */
  private readonly log: Pick<FastifyBaseLogger, 'error'> | undefined
  private readonly scope: RecordScope | undefined

  constructor(options: {
    store: ResourceStore
    history: HistoryStore
    /** The one Ajv, through which the item validators compile on their first batch. */
    compiles: CompileOnFirstUse
    document: OpenApiDocument
    registry: ResourceRegistry
    log?: Pick<FastifyBaseLogger, 'error'>
    /** Whose records are searched: the store's (OWN_RECORDS unless named). */
    scope?: RecordScope
  }) {
    this.scope = options.scope
    const { compiles, document, registry } = options
    this.store = options.store
    this.historyStore = options.history
    this.log = options.log
    this.itemValidators = new Map(
      registry.all.map((resource) => [
        resource.key,
        compiles.validator({ ...document.components.schemas[resource.schemaName], components: document.components }),
      ]),
    )
  }

  async add(resource: ResourceDef, record: ApiRecord, context: WriteContext): Promise<void> {
    checkRecord(resource, record)
    await this.store.add(resource, record, context)
  }

  /**
   * Partial update. When the change touches a cross-field rule or the state machine, the rule is
   * checked on the stored record merged with the change, and the write applies only to the version
   * that was checked (retried if another write came between).
   */
  async update(resource: ResourceDef, patch: ApiRecord, context: WriteContext): Promise<void> {
    const id = String(patch.id)
    if (!needsMergedCheck(resource, patch)) {
      await this.store.update(resource, id, patch, context)
      return
    }
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const current = await this.store.get(resource, id, context.db)
      if (!current) throw new BusinessError(Code.notFound, message('recordNotFound', { id }))
      checkUpdate(resource, current.record, patch)
      try {
        await this.store.update(resource, id, patch, context, current.version)
        return
      } catch (error) {
        if (!(error instanceof VersionConflict)) throw error
      }
    }
    throw new Error(`update of ${resource.key} ${id} lost ${UPDATE_ATTEMPTS} races in a row`)
  }

  async delete(resource: ResourceDef, id: string, context: WriteContext): Promise<void> {
    await this.store.delete(resource, id, context)
  }

  /**
   * The live record with this id. On the park several enterprises may hold one id: `companyCode`
   * names which (without it, 1002 when several do).
   */
  async getById(resource: ResourceDef, id: string, companyCode?: string): Promise<ApiRecord> {
    const found = await this.store.find(resource, id, companyCode)
    if (found.length === 0) throw new BusinessError(Code.notFound, message('recordNotFound', { id }))
    if (found.length > 1) throw severalEnterprises(`${resource.key} ${id}`)
    return found[0]
  }

  async page(resource: ResourceDef, request: SearchRequest): Promise<Page> {
    return this.store.page(resource, validSearch(resource, request, this.scope))
  }

  /** A record's history, newest first (deleted records keep theirs). */
  async history(
    resource: ResourceDef,
    query: { id: string; companyCode?: string; pageNum?: number; pageSize?: number },
  ): Promise<HistoryPage> {
    return this.historyStore.page(resource, {
      id: query.id,
      companyCode: query.companyCode,
      pageNum: query.pageNum ?? 1,
      pageSize: query.pageSize ?? 20,
    })
  }

  /** Each item is validated and stored on its own, in order; later items may name earlier ones. */
  async addBatch(resource: ResourceDef, list: unknown[], context: WriteContext): Promise<BatchResult> {
    return this.eachItem(list, validatorOf(this.itemValidators, resource), (item) => this.add(resource, item, context))
  }

  private async eachItem(list: unknown[], validate: Validator, apply: (item: ApiRecord) => Promise<void>): Promise<BatchResult> {
    checkBatchSize(list)
    const result: BatchResult = { succeeded: [], failed: [] }
    let unavailable: { code: number; reason: string } | undefined
    for (const [index, item] of list.entries()) {
      const id = isRecord(item) && typeof item.id === 'string' ? item.id : null
      // The database out of reach: the items after it are not tried, and fail with the same 4001.
      if (unavailable) {
        result.failed.push({ id, index, ...unavailable })
        continue
      }
      try {
        if (!validate(item)) throw new BusinessError(Code.badParameter, describeProblems(validate.errors, '', 'item'))
        // Valid items are records with a string id (every item schema requires one).
        if (!isRecord(item) || id === null) throw new Error('a valid item without an id')
        await apply(item)
        result.succeeded.push(id)
      } catch (error) {
        // Whatever went wrong, only this item failed: the items before it are stored, and stay so.
        const failure = this.itemFailure(error)
        result.failed.push({ id, index, ...failure })
        if (failure.code === Code.databaseUnavailable) unavailable = failure
      }
    }
    return result
  }

  private itemFailure(error: unknown): { code: number; reason: string } {
    if (error instanceof BusinessError) return { code: error.code, reason: error.message }
    const refusal = classifyDatabaseError(error)
    if (refusal) return { code: refusal.code, reason: english(refusal.message) }
    this.log?.error({ err: error }, 'batch item failed unexpectedly')
    return { code: Code.unexpected, reason: GENERIC_BUSY_MESSAGE }
  }
}

export function checkBatchSize(list: unknown[]): void {
  if (list.length === 0 || list.length > BATCH_LIMIT) {
    throw new BusinessError(Code.batchSize, message('batchSize', { limit: BATCH_LIMIT, count: list.length }))
  }
}

export function validatorOf(validators: Map<string, Validator>, resource: ResourceDef): Validator {
  const validate = validators.get(resource.key)
  if (!validate) throw new Error(`no validator for resource ${resource.key}`)
  return validate
}

export function isRecord(value: unknown): value is ApiRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
