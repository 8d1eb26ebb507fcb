// Park edition: live monitoring from what the enterprises push. The push of one-minute aggregates
// (/system/push/readings), and hazard/monitorData/aggregate and latest across the enterprises: a
// point is named by its id and, where several enterprises hold that id, its `companyCode`.
import type { CompileOnFirstUse } from '../contract/compile-on-first-use.ts'
import type { OpenApiDocument } from '../contract/openapi-document.ts'
import { instantSeconds } from '../contract/storable.ts'
import { describeErrors, type Validator } from '../contract/validation.ts'
import { checkWindow } from '../domain/monitoring/reading-window.ts'
import { BusinessError, Code, severalEnterprises } from '../errors.ts'
import {
  type HeldPoint,
  type MonitoringOverview,
  type ParkMonitoringStore,
  type PushedMinute,
  pointKey,
} from '../store/park-monitoring-store.ts'
import type { Bucket } from '../store/reading-queries.ts'
import { message } from '../messages/message.ts'

export const MINUTES_BATCH_LIMIT = 5000

export interface MinutesPushResult {
  applied: number
  failed: { index: number; code: number; reason: string }[]
}

/** A fraction of a second that is not zero (`10:02:00.5`): not a minute's start. */
const FRACTION = /:\d{2}\.\d*[1-9]/
/** The most readings a stored minute counts (a 32-bit integer). */
const MOST_COUNT = 2 ** 31 - 1

/** An instant's Unix second, rounded down to its minute. */
function minuteOf(instant: string): number {
  return Math.floor((instantSeconds(instant) ?? Number.NaN) / 60) * 60
}

export class ParkMonitoring {
  private readonly store: ParkMonitoringStore
  private readonly validate: Validator

  constructor(options: { store: ParkMonitoringStore; compiles: CompileOnFirstUse; document: OpenApiDocument }) {
    this.store = options.store
    const { document } = options
    this.validate = options.compiles.validator({ ...document.components.schemas.PushedMinute, components: document.components })
  }

  /** Pushed minutes, each judged alone (1002 not a pushed minute, 2003 another enterprise's), the others upserted together. */
  async pushReadings(list: unknown[], ownCompany: string | undefined): Promise<MinutesPushResult> {
    if (list.length === 0 || list.length > MINUTES_BATCH_LIMIT) {
      throw new BusinessError(Code.batchSize, message('minutesBatchSize', { limit: MINUTES_BATCH_LIMIT, count: list.length }))
    }
    const failed: MinutesPushResult['failed'] = []
    const accepted: PushedMinute[] = []
    for (const [index, item] of list.entries()) {
      if (!this.validate(item)) {
        failed.push({ index, code: Code.badParameter, reason: describeErrors(this.validate.errors, '', 'item') })
        continue
      }
      const minute = item as PushedMinute
      const seconds = instantSeconds(minute.minute)
      if (seconds === undefined || seconds % 60 !== 0 || FRACTION.test(minute.minute)) {
        failed.push({ index, code: Code.badParameter, reason: 'minute: must be the start of a minute (seconds 0)' })
      } else if (minute.count > MOST_COUNT) {
        failed.push({ index, code: Code.badParameter, reason: `count: must be at most ${MOST_COUNT}` })
      } else if (ownCompany !== undefined && minute.companyCode !== ownCompany) {
        const reason = `permission denied: this account pushes for companyCode ${ownCompany}, not ${minute.companyCode}`
        failed.push({ index, code: Code.forbidden, reason })
      } else accepted.push(minute)
    }
    return { applied: await this.store.apply(accepted), failed }
  }

  /** Per point named, the buckets of the pushed minutes of from <= minute < to (both rounded down to the minute). */
  async aggregate(
    body: { monitorEquipIds: string[]; from: string; to: string; bucket: Bucket; companyCode?: string },
    ownCompany: string | undefined,
  ) {
    checkWindow(body)
    const ids = [...new Set(body.monitorEquipIds)]
    const points = await this.resolve(ids, companyOf(body.companyCode, ownCompany))
    const buckets = await this.store.aggregate([...points.values()], minuteOf(body.from), minuteOf(body.to), body.bucket)
    return {
      list: ids.map((monitorEquipId) => {
        const point = points.get(monitorEquipId)
        if (!point) return { monitorEquipId, buckets: [] }
        return { monitorEquipId, companyCode: point.companyCode, buckets: buckets.get(pointKey(point)) ?? [] }
      }),
    }
  }

  /** The live board across the enterprises (or the one named). */
  async latest(
    body: { monitorEquipIds?: string[]; pageNum?: number; pageSize?: number; companyCode?: string } | undefined,
    ownCompany: string | undefined,
  ) {
    const companyCode = companyOf(body?.companyCode, ownCompany)
    const ids = body?.monitorEquipIds ? [...new Set(body.monitorEquipIds)] : undefined
    const points = ids && [...(await this.resolve(ids, companyCode)).values()]
    return this.store.latest({ points, companyCode, pageNum: body?.pageNum ?? 1, pageSize: body?.pageSize ?? 20 })
  }

  /** Per enterprise, its active alarms and offline points. */
  overview(): Promise<Map<string, MonitoringOverview>> {
    return this.store.overview()
  }

  /**
   * Each id as a point of one enterprise: of the one named, else of the one enterprise holding it
   * (an id none holds is left out); an id several hold refuses the whole call (1002).
   */
  private async resolve(ids: string[], companyCode: string | undefined): Promise<Map<string, HeldPoint>> {
    if (companyCode !== undefined) return new Map(ids.map((id) => [id, { companyCode, monitorEquipId: id }]))
    const holders = await this.store.holders(ids)
    const points = new Map<string, HeldPoint>()
    for (const id of ids) {
      const companies = holders.get(id) ?? []
      if (companies.length > 1) throw severalEnterprises(`monitorEquip ${id}`)
      if (companies.length === 1) points.set(id, { companyCode: companies[0], monitorEquipId: id })
    }
    return points
  }
}

/** The enterprise a read names, checked against the caller's own (an `enterprise` account reads its own only). */
function companyOf(named: string | undefined, own: string | undefined): string | undefined {
  if (own !== undefined && named !== undefined && named !== own) {
    throw new BusinessError(Code.forbidden, message('readsOwnCompany', { companyCode: own }))
  }
  return own ?? named
}
