// hazard/monitorAlarm reads and handling (acknowledge, dispose), and hazard/monitorEquip/shelve and
// unshelve. Alarms are read as records are: the alarm's schema in the document describes it like a
// resource (describeResource), so the generic page, search and history reads serve it.
import type { OpenApiDocument } from '../contract/openapi-document.ts'
import { instantSeconds } from '../contract/storable.ts'
import { type SearchRequest, validSearch } from '../domain/search.ts'
import { BusinessError, Code, severalEnterprises } from '../errors.ts'
import { describeResource, type ResourceDef, type ResourceRegistry } from '../resources/resource-registry.ts'
import type { AlarmHandling, AlarmStore } from '../store/alarm-store.ts'
import type { HistoryPage, HistoryStore } from '../store/history-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import { shelvePoint } from '../store/reading-store.ts'
import type { RecordScope } from '../store/record-scope.ts'
import { type ApiRecord, type Page, ResourceStore, type WriteContext } from '../store/resource-store.ts'
import type pg from 'pg'
import { inWriteTransaction } from './reading-ingest.ts'
import { message } from '../messages/message.ts'

/** How far ahead a point may be shelved. */
const SHELVE_LIMIT_MS = 7 * 86_400_000

export interface DisposeRequest {
  id: string
  cause: string
  measures: string
  troubleshootInfoId?: string
}

export class AlarmOperations {
  readonly resource: ResourceDef
  private readonly pool: pg.Pool
  private readonly alarms: AlarmStore
  private readonly records: ResourceStore
  private readonly history: HistoryStore
  private readonly format: InstantFormatter
  private readonly clock: () => number
  /** Whose alarms: the enterprise's own, or many enterprises' as pushed, keyed by (companyCode, id). */
  private readonly scope: RecordScope | undefined

  constructor(options: {
    pool: pg.Pool
    document: OpenApiDocument
    alarms: AlarmStore
    history: HistoryStore
    companyCode: string
    format: InstantFormatter
    clock: () => number
    /** OWN_RECORDS unless named. */
    scope?: RecordScope
  }) {
    const { pool, format } = options
    this.scope = options.scope
    this.pool = pool
    this.alarms = options.alarms
    this.history = options.history
    this.format = format
    this.clock = options.clock
    this.resource = alarmResource(options.document)
    this.records = new ResourceStore({
      pool,
      registry: { all: [this.resource] },
      companyCode: options.companyCode,
      format,
      scope: this.scope,
    })
  }

  page(request: SearchRequest): Promise<Page> {
    return this.records.page(this.resource, validSearch(this.resource, request, this.scope))
  }

  /** On the park several enterprises may hold one id: `companyCode` names which (without it, 1002 when several do). */
  async getById(id: string, companyCode?: string): Promise<ApiRecord> {
    const found = await this.records.find(this.resource, id, companyCode)
    if (found.length === 0) throw new BusinessError(Code.notFound, message('recordNotFound', { id }))
    if (found.length > 1) throw severalEnterprises(`monitorAlarm ${id}`)
    return found[0]
  }

  historyOf(query: { id: string; companyCode?: string; pageNum?: number; pageSize?: number }): Promise<HistoryPage> {
    return this.history.page(this.resource, {
      id: query.id,
      companyCode: query.companyCode,
      pageNum: query.pageNum ?? 1,
      pageSize: query.pageSize ?? 20,
    })
  }

  /** raised → acknowledged; again changes nothing; a disposed alarm cannot be (1011). */
  async acknowledge(id: string, context: WriteContext): Promise<void> {
    await inWriteTransaction(this.pool, context, async (db) => {
      const before = await this.alarms.lockHandling(db, id)
      if (before.handling === 'acknowledged') return
      if (before.handling === 'disposed') throw illegal(before.handling, 'acknowledged')
      const now = new Date(this.clock())
      const next: AlarmHandling = { ...before, handling: 'acknowledged', acknowledgedBy: context.userName, acknowledgedTime: now }
      await this.alarms.handle(db, id, next, context.userName, {
        handling: [before.handling, next.handling],
        acknowledgedBy: [null, context.userName],
        acknowledgedTime: [null, now.toISOString()],
      })
    })
  }

  /** raised or acknowledged → disposed, once (1011 after); the hidden danger named must be live (1006). */
  async dispose(request: DisposeRequest, context: WriteContext): Promise<void> {
    await inWriteTransaction(this.pool, context, async (db) => {
      const before = await this.alarms.lockHandling(db, request.id)
      if (before.handling === 'disposed') throw illegal(before.handling, 'disposed')
      const infoId = request.troubleshootInfoId ?? null
      if (infoId !== null && !(await this.alarms.liveTroubleshootInfo(db, infoId))) {
        throw new BusinessError(Code.missingReference, message('alarmDangerMissing', { id: infoId }))
      }
      const disposal = {
        cause: request.cause,
        measures: request.measures,
        disposedBy: context.userName,
        disposedTime: this.format(new Date(this.clock())),
        troubleshootInfoId: infoId,
      }
      await this.alarms.handle(db, request.id, { ...before, handling: 'disposed', disposal }, context.userName, {
        handling: [before.handling, 'disposed'],
        disposal: [null, disposal],
      })
    })
  }

  /** Shelves a live point until `until` (in the future, at most 7 days ahead). */
  async shelve(request: { id: string; until: string; reason: string }, context: WriteContext): Promise<void> {
    const until = (instantSeconds(request.until) ?? Number.NaN) * 1000
    const now = this.clock()
    if (!(until > now && until <= now + SHELVE_LIMIT_MS)) {
      throw new BusinessError(Code.badParameter, message('shelveUntil'))
    }
    const shelved = await inWriteTransaction(this.pool, context, (db) => shelvePoint(db, request.id, new Date(until), request.reason))
    if (!shelved) throw new BusinessError(Code.notFound, message('recordNotFound', { id: request.id }))
  }

  /** Ends a point's shelving (a point not shelved: nothing to do). */
  async unshelve(id: string, context: WriteContext): Promise<void> {
    const found = await inWriteTransaction(this.pool, context, (db) => shelvePoint(db, id, null, null))
    if (!found) throw new BusinessError(Code.notFound, message('recordNotFound', { id }))
  }
}

/** The alarm as a resource of the document (its reads, its history entries, its record events). */
export function alarmResource(document: OpenApiDocument): ResourceDef {
  return describeResource(document, { key: 'monitorAlarm', module: 'hazard', table: 'monitor_alarm' })
}

/** The resources of record events: the registry's, and the alarms (records of their own, outside it). */
export function withAlarms(registry: Pick<ResourceRegistry, 'all'>, document: OpenApiDocument): Pick<ResourceRegistry, 'all'> {
  return { all: [...registry.all, alarmResource(document)] }
}

function illegal(from: string, to: string): BusinessError {
  return new BusinessError(Code.illegalTransition, message('handlingTransition', { from, to }))
}
