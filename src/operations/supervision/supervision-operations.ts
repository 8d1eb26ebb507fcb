// Supervision of dual prevention: the inspection periods of tasks, the working-day calendar and the
// indicators (the OpenAPI document's `prevent/troubleshootTask/periods`, `/system/calendar/*` and
// `/system/indicators`; docs/supervision.md). Windows are dates in the enterprise's zone.
import {
  alarmBreakdown,
  breakdown,
  checkedOrder,
  inspectionFigures,
  type OrderKey,
  rate,
  RISK_LEVELS,
  TICKET_STATUSES,
  TICKET_WORK_TYPES,
} from '../../domain/supervision/indicators.ts'
import { checkedCalendarYear } from '../../domain/supervision/working-days.ts'
import type { IndicatorStore, RawIndicators } from '../../store/indicator-store.ts'
import type { InspectionStore } from '../../store/inspection-store.ts'
import type { InstantFormatter } from '../../store/instant-format.ts'
import type { SupervisedEnterprises } from './supervised-enterprises.ts'

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
  private readonly format: InstantFormatter
  /** The enterprises read: the own one alone, or each that pushed to the park. */
  private readonly enterprises: SupervisedEnterprises
  /** The enterprise's own code (its calendar is the one written here). */
  private readonly companyCode: string

  constructor(options: {
    inspections: InspectionStore
    indicators: IndicatorStore
    upkeep: PeriodsCatchUp | undefined
    format: InstantFormatter
    enterprises: SupervisedEnterprises
    companyCode: string
  }) {
    this.inspections = options.inspections
    this.indicatorStore = options.indicators
    this.upkeep = options.upkeep
    this.format = options.format
    this.enterprises = options.enterprises
    this.companyCode = options.companyCode
  }

  /** The periods starting in the window (by task, then start). `own`: the enterprise an `enterprise` account is bound to. */
  async periods(request: PeriodsRequest, own: string | undefined) {
    const windows = (await this.enterprises.windows(request, own)).map(({ lastPushTime: _time, ...window }) => window)
    await this.upkeep?.catchUp()
    const pageNum = request.pageNum ?? 1
    const pageSize = request.pageSize ?? 20
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
        ...this.enterprises.periodOwner(row.companyCode),
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
    const companyCode = this.enterprises.calendarOf(request.companyCode, own)
    const year = await this.inspections.calendarYear(companyCode, request.year)
    return year ? { ...year, default: false } : { year: request.year, holidays: [], workdays: [], default: true }
  }

  async indicators(request: IndicatorsRequest, own: string | undefined) {
    const order = checkedOrder(request.orderBy, this.enterprises.absentFigures)
    const windows = await this.enterprises.windows(request, own)
    await this.upkeep?.catchUp()
    const counts = await this.indicatorStore.counts(windows.map(({ lastPushTime: _time, ...window }) => window))
    const entries = windows.map((window) => ({ entry: this.entry(window.companyCode, counts.get(window.companyCode)), window }))
    return { list: await this.enterprises.indicatorList(entries, order) }
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
}
