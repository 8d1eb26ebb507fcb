// Supervision of dual prevention: the inspection periods of tasks, the working-day calendar and the
// indicators (the OpenAPI document's `prevent/troubleshootTask/periods`, `/system/calendar/*` and
// `/system/indicators`; docs/supervision.md). Windows are dates in the enterprise's zone.
import {
  alarmBreakdown,
  breakdown,
  checkedOrder,
  inspectionFigures,
  type OrderKey,
  orderEntries,
  rate,
  RISK_LEVELS,
  TICKET_STATUSES,
  TICKET_WORK_TYPES,
} from '../../domain/supervision/indicators.ts'
import { checkedCalendarYear } from '../../domain/supervision/working-days.ts'
import { DAY, localMidnight, type Zone, zoneNamed } from '../../domain/supervision/zone.ts'
import { BusinessError, Code } from '../../errors.ts'
import type { IndicatorStore, RawIndicators } from '../../store/indicator-store.ts'
import type { InspectionStore } from '../../store/inspection-store.ts'
import type { InstantFormatter } from '../../store/instant-format.ts'
import { message } from '../../messages/message.ts'

/** Keeps the periods written up to now before they are read (enterprise edition). */
export interface PeriodsCatchUp {
  catchUp(): Promise<void>
}

export interface PeriodsRequest {
  taskId?: string
  companyCode?: string
  from: string
  to: string
  status?: 'done' | 'missed' | 'open'
  pageNum?: number
  pageSize?: number
}

export interface IndicatorsRequest {
  from: string
  to: string
  companyCode?: string
  orderBy?: OrderKey[]
}

export class SupervisionOperations {
  private readonly inspections: InspectionStore
  private readonly indicatorStore: IndicatorStore
  private readonly upkeep: PeriodsCatchUp | undefined
  private readonly zone: Zone
  private readonly format: InstantFormatter
  /** Many enterprises' periods and records, each read by its companyCode (the park's); else the own enterprise's alone. */
  private readonly byEnterprise: boolean
  /** The enterprise's own code (when not by enterprise). */
  private readonly companyCode: string

  constructor(options: {
    inspections: InspectionStore
    indicators: IndicatorStore
    upkeep: PeriodsCatchUp | undefined
    zone: Zone
    format: InstantFormatter
    byEnterprise: boolean
    companyCode: string
  }) {
    this.inspections = options.inspections
    this.indicatorStore = options.indicators
    this.upkeep = options.upkeep
    this.zone = options.zone
    this.format = options.format
    this.byEnterprise = options.byEnterprise
    this.companyCode = options.companyCode
  }

  /** The periods starting in the window (by task, then start). `own`: the enterprise an `enterprise` account is bound to. */
  async periods(request: PeriodsRequest, own: string | undefined) {
    const windows = (await this.windows(request, own)).map(({ lastPushTime: _time, ...window }) => window)
    await this.upkeep?.catchUp()
    const pageNum = request.pageNum ?? 1
    const pageSize = request.pageSize ?? 20
    const park = this.byEnterprise
    const { list, total } = await this.inspections.periods({
      windows,
      taskId: request.taskId,
      status: request.status,
      pageNum,
      pageSize,
    })
    return {
      list: list.map((row) => ({
        id: row.id,
        ...(park ? { companyCode: row.companyCode } : {}),
        taskId: row.taskId,
        start: this.format(row.start),
        end: this.format(row.end),
        status: row.status,
        doneLate: row.doneLate,
        recordId: row.recordId,
      })),
      total,
      pageNum,
      pageSize,
    }
  }

  /** Replaces a year's lists (enterprise edition). */
  async calendarSet(request: { year: number; holidays: string[]; workdays: string[] }): Promise<void> {
    await this.inspections.setCalendarYear(this.companyCode, checkedCalendarYear(request))
  }

  async calendarGet(request: { year: number; companyCode?: string }, own: string | undefined) {
    let companyCode = this.companyCode
    if (this.byEnterprise) {
      const named = this.readable(own, request.companyCode)
      if (named === undefined) throw new BusinessError(Code.badParameter, message('companyCodeOnPark'))
      companyCode = named
    }
    const year = await this.inspections.calendarYear(companyCode, request.year)
    return year ? { ...year, default: false } : { year: request.year, holidays: [], workdays: [], default: true }
  }

  async indicators(request: IndicatorsRequest, own: string | undefined) {
    const order = checkedOrder(request.orderBy)
    const windows = await this.windows(request, own)
    await this.upkeep?.catchUp()
    const counts = await this.indicatorStore.counts(windows.map(({ lastPushTime: _time, ...window }) => window))
    if (!this.byEnterprise) {
      const sync = await this.indicatorStore.sync()
      return { list: [{ ...this.entry(this.companyCode, counts.get(this.companyCode)), sync }] }
    }
    const entries = windows.map(({ companyCode, lastPushTime }) => ({
      ...this.entry(companyCode, counts.get(companyCode)),
      lastPushTime: lastPushTime && this.format(lastPushTime),
    }))
    return { list: orderEntries(entries, order) }
  }

  private entry(companyCode: string, raw: RawIndicators | undefined) {
    if (!raw) throw new Error(`no counts for ${companyCode}`)
    const { dangers, training } = raw
    return {
      companyCode,
      inspections: inspectionFigures(raw.periods),
      dangers: { ...dangers, rectificationRate: rate(dangers.accepted, dangers.found) },
      riskUnits: breakdown(
        'riskLevel',
        RISK_LEVELS,
        raw.riskUnits.map(({ riskLevel, count }) => ({ code: riskLevel, count })),
      ),
      tickets: {
        byWorkType: breakdown(
          'workType',
          TICKET_WORK_TYPES,
          raw.tickets.map(({ workType, count }) => ({ code: workType, count })),
        ),
        byStatus: breakdown(
          'ticketStatus',
          TICKET_STATUSES,
          raw.tickets.map(({ ticketStatus, count }) => ({ code: ticketStatus, count })),
        ),
        overdue: raw.ticketsOverdue,
      },
      training: {
        sessions: training.sessions,
        hours: training.hours,
        participants: training.participants,
        passRate: training.assessed === null ? null : rate(training.passed ?? 0, training.assessed),
      },
      alarms: { ...raw.alarms, raised: alarmBreakdown(raw.alarms.raised) },
    }
  }

  /**
   * The window of dates of each enterprise read: the own one; on the park, every enterprise the
   * caller may see (or the one named), each in the zone it pushed (the park's own where it pushed
   * none), with its last push.
   */
  private async windows(request: { from: string; to: string; companyCode?: string }, own: string | undefined) {
    const window = this.window(request.from, request.to)
    if (!this.byEnterprise) return [{ companyCode: this.companyCode, ...window, lastPushTime: null }]
    const named = this.readable(own, request.companyCode)
    const enterprises = (await this.indicatorStore.enterprises()).filter(
      (enterprise) => named === undefined || enterprise.companyCode === named,
    )
    return enterprises.map(({ companyCode, timeZone, lastPushTime }) => ({
      companyCode,
      ...(timeZone ? this.window(request.from, request.to, zoneNamed(timeZone)) : window),
      lastPushTime,
    }))
  }

  /** The instants of a window of dates (inclusive) in the enterprise's zone; 1002 when it ends before it starts. */
  private window(from: string, to: string, zone = this.zone): { from: Date; until: Date } {
    if (to < from) throw new BusinessError(Code.badParameter, message('toBeforeFrom'))
    return {
      from: new Date(zone.toInstant(localMidnight(from))),
      until: new Date(zone.toInstant(localMidnight(to) + DAY) - 1),
    }
  }

  /** The enterprise a park read covers: an `enterprise` account's own (403 for another), else the one named (undefined: every one). */
  private readable(own: string | undefined, named: string | undefined): string | undefined {
    if (own !== undefined && named !== undefined && named !== own) {
      throw new BusinessError(Code.forbidden, message('readsOwnCompany', { companyCode: own }))
    }
    return own ?? named
  }
}
