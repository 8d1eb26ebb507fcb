// The seven generic operations of every resource. Handlers stay thin: domain rules, then the store.
import { describeErrors, type Validator } from '../contract/validation.ts'
import type { FastifyBaseLogger } from 'fastify'
import { BusinessError, Code, GENERIC_BUSY_MESSAGE } from '../http/business-error.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
import { classifyDatabaseError } from '../store/database-errors.ts'
import {
  type ApiRecord,
  type Page,
  type ResourceStore,
  type SearchQuery,
  VersionConflict,
  type WriteContext,
} from '../store/resource-store.ts'

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
  /** Validates one pushed record of each resource (park edition, X-Sync-Push). */
  private readonly pushItemValidators: Map<string, Validator>

  /** Where an unexpected failure of one batch item is logged (the item answers -1, the batch goes on). */
  private readonly log: Pick<FastifyBaseLogger, 'error'> | undefined

  constructor(options: {
    store: ResourceStore
    itemValidators: Map<string, Validator>
    pushItemValidators: Map<string, Validator>
    log?: Pick<FastifyBaseLogger, 'error'>
  }) {
    this.store = options.store
    this.itemValidators = options.itemValidators
    this.pushItemValidators = options.pushItemValidators
    this.log = options.log
  }

  async add(resource: ResourceDef, record: ApiRecord, context: WriteContext): Promise<void> {
    checkRules(resource, record)
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
      if (!current) throw new BusinessError(Code.notFound, `record not found: ${id}`)
      checkRules(resource, { ...current.record, ...patch })
      checkTransition(resource, current.record, patch)
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

  async getById(resource: ResourceDef, id: string): Promise<ApiRecord> {
    const found = await this.store.get(resource, id)
    if (!found) throw new BusinessError(Code.notFound, `record not found: ${id}`)
    return found.record
  }

  async page(resource: ResourceDef, query: Partial<SearchQuery>): Promise<Page> {
    return this.store.page(resource, {
      pageNum: query.pageNum ?? 1,
      pageSize: query.pageSize ?? 20,
      conditions: query.conditions ?? [],
      orderBy: query.orderBy ?? [],
      after: query.after,
    })
  }

  /** Each item is validated and stored on its own, in order; later items may name earlier ones. */
  async addBatch(resource: ResourceDef, list: unknown[], context: WriteContext): Promise<BatchResult> {
    return this.eachItem(list, this.itemValidators.get(resource.key)!, (item) => this.add(resource, item, context))
  }

  /**
   * Park edition: records pushed by the enterprise, applied by id and version (a repeated or late
   * push changes nothing). Rules were the enterprise's to check; references are the database's.
   */
  async applyPushed(resource: ResourceDef, list: unknown[], context: WriteContext): Promise<BatchResult> {
    return this.eachItem(list, this.pushItemValidators.get(resource.key)!, (item) => this.store.applyPushed(resource, item, context.db))
  }

  private async eachItem(list: unknown[], validate: Validator, apply: (item: ApiRecord) => Promise<void>): Promise<BatchResult> {
    if (list.length === 0 || list.length > BATCH_LIMIT) {
      throw new BusinessError(Code.batchSize, `list must hold 1 to ${BATCH_LIMIT} items, got ${list.length}`)
    }
    const result: BatchResult = { succeeded: [], failed: [] }
    let unavailable: { code: number; reason: string } | undefined
    for (const [index, item] of list.entries()) {
      const id = typeof (item as ApiRecord)?.id === 'string' ? ((item as ApiRecord).id as string) : null
      // The database out of reach: the items after it are not tried, and fail with the same 4001.
      if (unavailable) {
        result.failed.push({ id, index, ...unavailable })
        continue
      }
      try {
        if (!validate(item)) throw new BusinessError(Code.badParameter, describeErrors(validate.errors))
        await apply(item as ApiRecord)
        result.succeeded.push(id!)
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
    if (refusal) return { code: refusal.code, reason: refusal.message }
    this.log?.error({ err: error }, 'batch item failed unexpectedly')
    return { code: Code.unexpected, reason: GENERIC_BUSY_MESSAGE }
  }
}

function needsMergedCheck(resource: ResourceDef, patch: ApiRecord): boolean {
  if (resource.stateMachine && resource.stateMachine.field in patch) return true
  return resource.rules.some((rule) => rule.fields.some((field) => field in patch))
}

function checkRules(resource: ResourceDef, record: ApiRecord): void {
  for (const rule of resource.rules) {
    const message = rule.check(record)
    if (message) throw new BusinessError(Code.badParameter, message)
  }
}

/** The same state again is not a move; any other move must be listed in the state machine. */
function checkTransition(resource: ResourceDef, current: ApiRecord, patch: ApiRecord): void {
  const machine = resource.stateMachine
  if (!machine || !(machine.field in patch)) return
  const from = String(current[machine.field])
  const to = String(patch[machine.field])
  if (from === to) return
  if (!(machine.transitions[from] ?? []).includes(to)) {
    throw new BusinessError(Code.illegalTransition, `${machine.field}: illegal transition ${from} -> ${to}`)
  }
}
