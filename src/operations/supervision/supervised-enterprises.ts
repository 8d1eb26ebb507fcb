// Which enterprises a supervision read covers, and how each is told apart in the answer: the
// enterprise's own alone (the service writing its records), or every enterprise that pushed to the
// park, read by companyCode, each in the zone it pushed. An edition's composition chooses one.
import { type OrderKey, orderEntries } from '../../domain/supervision/indicators.ts'
import { DAY, localMidnight, type Zone, zoneNamed } from '../../domain/supervision/zone.ts'
import { BusinessError, Code } from '../../errors.ts'
import type { IndicatorStore } from '../../store/indicator-store.ts'
import type { InstantFormatter } from '../../store/instant-format.ts'
import { message } from '../../messages/message.ts'

/** The dates asked for, and the enterprise named (where several are read). */
export interface WindowRequest {
  from: string
  to: string
  companyCode?: string
}

/** An enterprise read: the instants of its window, and its last push (where it pushes). */
export interface EnterpriseWindow {
  companyCode: string
  from: Date
  until: Date
  lastPushTime: Date | null
}

/** The indicators of one enterprise as this part finishes them: what waits to be pushed (its own), or its last push (the park's). */
type Finished<Entry> = Entry & { sync?: { pending: number; failed: number }; lastPushTime?: string | null }

export interface SupervisedEnterprises {
  /** The orderable figures the entries of this edition do not have (the other edition's). */
  readonly absentFigures: ReadonlySet<string>
  /** The enterprises a read covers (`own`: the enterprise an `enterprise` account is bound to), each with its window. */
  windows(request: WindowRequest, own: string | undefined): Promise<EnterpriseWindow[]>
  /** The enterprise whose calendar a read gives. */
  calendarOf(named: string | undefined, own: string | undefined): string
  /** What tells a period's enterprise in the answer. */
  periodOwner(companyCode: string): { companyCode?: string }
  /** The indicators' list: the entries of `windows` (in their order), finished and ordered. */
  indicatorList<Entry extends { companyCode: string }>(
    entries: { entry: Entry; window: EnterpriseWindow }[],
    order: OrderKey[],
  ): Promise<Finished<Entry>[]>
}

/** The instants of a window of dates (inclusive) in a zone; 1002 when it ends before it starts. */
function windowIn(from: string, to: string, zone: Zone): { from: Date; until: Date } {
  if (to < from) throw new BusinessError(Code.badParameter, message('toBeforeFrom'))
  return {
    from: new Date(zone.toInstant(localMidnight(from))),
    until: new Date(zone.toInstant(localMidnight(to) + DAY) - 1),
  }
}

/** The enterprise's own records and periods, in its configured zone; its indicators tell what waits to be pushed. */
export class OwnEnterprise implements SupervisedEnterprises {
  readonly absentFigures: ReadonlySet<string> = new Set(['lastPushTime'])
  private readonly companyCode: string
  private readonly zone: Zone
  private readonly indicators: Pick<IndicatorStore, 'sync'>

  constructor(options: { companyCode: string; zone: Zone; indicators: Pick<IndicatorStore, 'sync'> }) {
    this.companyCode = options.companyCode
    this.zone = options.zone
    this.indicators = options.indicators
  }

  async windows(request: WindowRequest): Promise<EnterpriseWindow[]> {
    return [{ companyCode: this.companyCode, ...windowIn(request.from, request.to, this.zone), lastPushTime: null }]
  }

  calendarOf(): string {
    return this.companyCode
  }

  periodOwner(): { companyCode?: string } {
    return {}
  }

  async indicatorList<Entry extends { companyCode: string }>(entries: { entry: Entry }[]): Promise<Finished<Entry>[]> {
    const sync = await this.indicators.sync()
    return entries.map(({ entry }) => ({ ...entry, sync }))
  }
}

/**
 * Every enterprise that pushed to the park or has an account on it, read by companyCode, each in
 * the zone it pushed (the park's own where it pushed none), with its last push.
 */
export class PushingEnterprises implements SupervisedEnterprises {
  readonly absentFigures: ReadonlySet<string> = new Set(['sync.pending', 'sync.failed'])
  private readonly zone: Zone
  private readonly indicators: Pick<IndicatorStore, 'enterprises'>
  private readonly format: InstantFormatter

  constructor(options: { zone: Zone; indicators: Pick<IndicatorStore, 'enterprises'>; format: InstantFormatter }) {
    this.zone = options.zone
    this.indicators = options.indicators
    this.format = options.format
  }

  async windows(request: WindowRequest, own: string | undefined): Promise<EnterpriseWindow[]> {
    const window = windowIn(request.from, request.to, this.zone)
    const named = readable(own, request.companyCode)
    const enterprises = (await this.indicators.enterprises()).filter(
      (enterprise) => named === undefined || enterprise.companyCode === named,
    )
    return enterprises.map(({ companyCode, timeZone, lastPushTime }) => ({
      companyCode,
      ...(timeZone ? windowIn(request.from, request.to, zoneNamed(timeZone)) : window),
      lastPushTime,
    }))
  }

  /** The one named, or an `enterprise` account's own: 1002 when neither. */
  calendarOf(named: string | undefined, own: string | undefined): string {
    const companyCode = readable(own, named)
    if (companyCode === undefined) throw new BusinessError(Code.badParameter, message('companyCodeOnPark'))
    return companyCode
  }

  periodOwner(companyCode: string): { companyCode?: string } {
    return { companyCode }
  }

  async indicatorList<Entry extends { companyCode: string }>(
    entries: { entry: Entry; window: EnterpriseWindow }[],
    order: OrderKey[],
  ): Promise<Finished<Entry>[]> {
    const list = entries.map(({ entry, window }) => ({ ...entry, lastPushTime: window.lastPushTime && this.format(window.lastPushTime) }))
    return orderEntries(list, order)
  }
}

/** The enterprise a read covers: an `enterprise` account's own (403 for another), else the one named (undefined: every one). */
function readable(own: string | undefined, named: string | undefined): string | undefined {
  if (own !== undefined && named !== undefined && named !== own) {
    throw new BusinessError(Code.forbidden, message('readsOwnCompany', { companyCode: own }))
  }
  return own ?? named
}
