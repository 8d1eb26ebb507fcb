// The supervision parts of an edition, built from its configuration: the stores, the upkeep of the
// periods (enterprise edition: the park holds the periods its enterprises push) and the operations.
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../../config.ts'
import { zoneNamed } from '../../domain/supervision/zone.ts'
import type { ResourceRegistry } from '../../resources/resource-registry.ts'
import { withAttachments } from '../../store/attachment-store.ts'
import type { Background } from '../../store/background.ts'
import type { Database } from '../../store/database.ts'
import { IndicatorStore } from '../../store/indicator-store.ts'
import { InspectionStore } from '../../store/inspection-store.ts'
import type { InstantFormatter } from '../../store/instant-format.ts'
import { PeriodUpkeep } from './period-upkeep.ts'
import { SupervisionOperations } from './supervision-operations.ts'

export function supervisionParts(options: {
  config: Config
  pool: Database['pool']
  background: Background
  registry: ResourceRegistry
  format: InstantFormatter
  log: FastifyBaseLogger
}): { operations: SupervisionOperations; start(): Promise<void>; stop(): Promise<void> } {
  const { config, pool, background, registry, format, log } = options
  const park = config.edition === 'park'
  const zone = zoneNamed(config.timeZone)
  const inspections = new InspectionStore({ pool })
  const upkeep = park ? undefined : new PeriodUpkeep({ store: inspections, background, zone, log })
  const indicators = new IndicatorStore({ pool, timeZone: config.timeZone, park, pushed: withAttachments(registry.all) })
  const operations = new SupervisionOperations({
    inspections,
    indicators,
    upkeep,
    zone,
    format,
    edition: config.edition,
    companyCode: config.companyCode,
  })
  return { operations, start: async () => upkeep?.start(), stop: async () => upkeep?.stop() }
}
