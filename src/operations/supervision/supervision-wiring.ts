// The supervision parts of an edition: the stores, the operations and, where the periods are kept
// (the enterprise edition; the park holds the periods its enterprises push), their upkeep.
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../../config.ts'
import { zoneNamed } from '../../domain/supervision/zone.ts'
import type { ResourceRegistry } from '../../resources/resource-registry.ts'
import { PushedFactStore, pushedTables } from '../../store/pushed-facts.ts'
import type { Background } from '../../store/background.ts'
import type { Database } from '../../store/database.ts'
import { IndicatorStore } from '../../store/indicator-store.ts'
import { InspectionStore } from '../../store/inspection-store.ts'
import type { InstantFormatter } from '../../store/instant-format.ts'
import { MissedPeriodStore } from '../../store/missed-period-store.ts'
import { OverdueStore } from '../../store/overdue-store.ts'
import { MissedPeriodEvents } from './missed-period-events.ts'
import { OverdueEvents } from './overdue-events.ts'
import { PeriodUpkeep } from './period-upkeep.ts'
import { SupervisionOperations } from './supervision-operations.ts'

export interface SupervisionParts {
  operations: SupervisionOperations
  start(): Promise<void>
  stop(): Promise<void>
}

export function supervisionParts(
  shared: {
    config: Config
    pool: Database['pool']
    background: Background
    registry: ResourceRegistry
    format: InstantFormatter
    log: FastifyBaseLogger
  },
  options: {
    /** Periods written here as they start (where the tasks are written). */
    keepsPeriods: boolean
    /** Many enterprises' data, read per companyCode (and each enterprise's pushed zone). */
    byEnterprise: boolean
    /** Told when periods were written (where they are kept). */
    periodsWritten?: () => void
  },
): SupervisionParts {
  const { config, pool, background, registry, format, log } = shared
  const zone = zoneNamed(config.timeZone)
  const inspections = new InspectionStore({ pool })
  // Where the periods are kept, so is the zone they are read in (pushed with them), by the upkeep's
  // first run: a start does not wait for it. The upkeep's job is also the timer of the missed
  // periods' and overdue records' events.
  const facts = new PushedFactStore({ pool })
  const upkeep = options.keepsPeriods
    ? new PeriodUpkeep({
        store: inspections,
        background,
        zone,
        log,
        written: options.periodsWritten,
        beforeFirstRun: () => facts.noteZone(config.companyCode, config.timeZone),
        missed: new MissedPeriodEvents({ store: new MissedPeriodStore({ pool }), format }),
        overdue: new OverdueEvents({ pool, store: new OverdueStore(), timeZone: config.timeZone }),
      })
    : undefined
  const indicators = new IndicatorStore({
    pool,
    timeZone: config.timeZone,
    park: options.byEnterprise,
    pushed: pushedTables(registry.all),
  })
  const operations = new SupervisionOperations({
    inspections,
    indicators,
    upkeep,
    zone,
    format,
    byEnterprise: options.byEnterprise,
    companyCode: config.companyCode,
  })
  return { operations, start: async () => upkeep?.start(), stop: async () => upkeep?.stop() }
}
