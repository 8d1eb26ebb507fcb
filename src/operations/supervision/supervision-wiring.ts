// The supervision parts an edition chooses: the stores, the operations and, where the periods are
// kept (the enterprise writing its records; the park holds the periods its enterprises push), their
// upkeep.
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../../config.ts'
import { zoneNamed } from '../../domain/supervision/zone.ts'
import type { ResourceRegistry } from '../../resources/resource-registry.ts'
import { PushedFactStore, pushedTables } from '../../store/pushed-facts.ts'
import type { Background } from '../../store/background.ts'
import type { Database } from '../../store/database.ts'
import { IndicatorStore } from '../../store/indicator-store.ts'
import { OWN_RECORDS, PUSHED_RECORDS, type RecordScope } from '../../store/record-scope.ts'
import { InspectionStore } from '../../store/inspection-store.ts'
import type { InstantFormatter } from '../../store/instant-format.ts'
import { MissedPeriodStore } from '../../store/missed-period-store.ts'
import { OverdueStore } from '../../store/overdue-store.ts'
import { MissedPeriodEvents } from './missed-period-events.ts'
import { OverdueEvents } from './overdue-events.ts'
import { PeriodUpkeep } from './period-upkeep.ts'
import { OwnEnterprise, PushingEnterprises } from './supervised-enterprises.ts'
import { SupervisionOperations } from './supervision-operations.ts'

export interface SupervisionParts {
  operations: SupervisionOperations
  start(): Promise<void>
  stop(): Promise<void>
}

type SharedForSupervision = {
  config: Config
  pool: Database['pool']
  background: Background
  registry: ResourceRegistry
  format: InstantFormatter
  log: FastifyBaseLogger
}

/**
 * The supervision of the enterprise writing its records: its periods are written here as they start
 * (`periodsWritten` is told when they were), read in its configured zone, and its indicators tell
 * what waits to be pushed.
 */
export function ownSupervision(shared: SharedForSupervision, options: { periodsWritten?: () => void } = {}): SupervisionParts {
  const { config, pool, background, format, log } = shared
  const zone = zoneNamed(config.timeZone)
  const inspections = new InspectionStore({ pool })
  // Where the periods are kept, so is the zone they are read in (pushed with them), by the upkeep's
  // first run: a start does not wait for it. The upkeep's job is also the timer of the missed
  // periods' and overdue records' events.
  const facts = new PushedFactStore({ pool })
  const upkeep = new PeriodUpkeep({
    store: inspections,
    background,
    zone,
    log,
    written: options.periodsWritten,
    beforeFirstRun: () => facts.noteZone(config.companyCode, config.timeZone),
    missed: new MissedPeriodEvents({ store: new MissedPeriodStore({ pool }), format, eventRetentionDays: config.eventRetentionDays }),
    overdue: new OverdueEvents({ pool, store: new OverdueStore(), timeZone: config.timeZone }),
  })
  const indicators = indicatorStore(shared, OWN_RECORDS)
  const enterprises = new OwnEnterprise({ companyCode: config.companyCode, zone, indicators })
  const operations = new SupervisionOperations({ inspections, indicators, upkeep, format, enterprises, companyCode: config.companyCode })
  return { operations, start: async () => upkeep.start(), stop: async () => upkeep.stop() }
}

/**
 * The park's supervision of the enterprises pushing to it: the periods and records they pushed, read
 * by companyCode, each in the zone it pushed.
 */
export function parkSupervision(shared: SharedForSupervision): SupervisionParts {
  const { config, pool, format } = shared
  const indicators = indicatorStore(shared, PUSHED_RECORDS)
  const enterprises = new PushingEnterprises({ zone: zoneNamed(config.timeZone), indicators, format })
  const operations = new SupervisionOperations({
    inspections: new InspectionStore({ pool }),
    indicators,
    upkeep: undefined,
    format,
    enterprises,
    companyCode: config.companyCode,
  })
  return { operations, start: async () => undefined, stop: async () => undefined }
}

function indicatorStore(shared: SharedForSupervision, scope: RecordScope): IndicatorStore {
  const { config, pool, registry } = shared
  return new IndicatorStore({ pool, timeZone: config.timeZone, scope, pushed: pushedTables(registry.all) })
}
