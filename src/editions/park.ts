// The park edition: many enterprises' records as they push them, read by the park's accounts; the
// park is not an author. Its parts over the shared skeleton (shared.ts); an operation class of its
// own is constructed in `compose` and its handlers listed in `handlers`.
import type { Role } from '../auth/auth-service.ts'
import { parkHandlers } from '../http/park-handlers.ts'
import { parkMonitoringHandlers } from '../http/park-monitoring-handlers.ts'
import { AlarmOperations } from '../operations/alarm-operations.ts'
import { ParkMinuteRetention } from '../operations/park-minute-retention.ts'
import { ParkMonitoring } from '../operations/park-monitoring.ts'
import { idempotentWrite } from '../http/handlers.ts'
import { operationIdOf } from '../http/routing.ts'
import { supervisionHandlers } from '../http/supervision-handlers.ts'
import { parkSupervision } from '../operations/supervision/supervision-wiring.ts'
import { ParkOperations } from '../operations/park-operations.ts'
import { PUSH_OPERATIONS, parkRefusal } from '../park/park-policy.ts'
import { AlarmStore } from '../store/alarm-store.ts'
import { ParkMonitoringStore } from '../store/park-monitoring-store.ts'
import { ParkStore } from '../store/park-store.ts'
import type { HistoryStore } from '../store/history-store.ts'
import { PUSHED_FACTS, PushedFactStore } from '../store/pushed-facts.ts'
import { PUSHED_RECORDS } from '../store/record-scope.ts'
import type { Edition, EditionParts, SharedParts } from './shared.ts'

const GRANTABLE_ROLES: ReadonlySet<Role> = new Set(['admin', 'operator', 'viewer', 'enterprise'])

export const parkEdition: Edition = {
  name: 'park',
  compose(shared: SharedParts): EditionParts {
    const { config, pool, document, registry, format, compiles, attachmentStore, background, clock, log } = shared
    const minutes = new ParkMonitoringStore({ pool, format, timeZone: config.timeZone })
    const monitoring = new ParkMonitoring({ store: minutes, compiles, document })
    // The pushed minutes of readings expire as the enterprises' readings do.
    const retention = new ParkMinuteRetention({ background, store: minutes, days: config.readingsRetentionDays, clock, log })
    const park = new ParkOperations({
      monitoring,
      park: new ParkStore({ pool, registry }),
      attachments: attachmentStore,
      registry,
      format,
      compiles,
      document,
      attachmentMaxBytes: config.attachmentMaxBytes,
      facts: { store: new PushedFactStore({ pool }), kinds: PUSHED_FACTS },
    })
    const supervision = parkSupervision(shared)
    return {
      refuse: (policy) => parkRefusal(policy.action),
      unlimited: (request) => PUSH_OPERATIONS.has(operationIdOf(request) ?? ''),
      services: [retention],
      grantableRoles: GRANTABLE_ROLES,
      records: PUSHED_RECORDS,
      addsHaveEntries: true,
      handlers: ({ writes, history, attachments }) => [
        ...parkHandlers({ registry, park }),
        ...parkMonitoringHandlers({ alarms: parkAlarms(shared, history), attachments, monitoring }),
        ...supervisionHandlers(supervision.operations, (operationId, run) => idempotentWrite(writes, operationId, run)),
      ],
    }
  },
}

/** The alarms the enterprises pushed, read as records of many enterprises (the park writes none). */
function parkAlarms(shared: SharedParts, history: HistoryStore): AlarmOperations {
  const { config, pool, document, format, clock } = shared
  const alarms = new AlarmStore({ companyCode: config.companyCode })
  return new AlarmOperations({ pool, document, alarms, history, companyCode: config.companyCode, format, clock, scope: PUSHED_RECORDS })
}
