// The enterprise edition: the business operations on the enterprise's own records, and the push of
// every write to the park (when PARK_URL names one) with its reconciliation. Its parts over the
// shared skeleton (shared.ts); an operation class of its own is constructed in `compose` and its
// handlers listed in `handlers`.
import type { Role } from '../auth/auth-service.ts'
import { idempotentWrite, type Write } from '../http/handlers.ts'
import { monitoringHandlers } from '../http/monitoring-handlers.ts'
import { supervisionHandlers } from '../http/supervision-handlers.ts'
import { liveMonitoring } from '../operations/monitoring-parts.ts'
import { ownSupervision } from '../operations/supervision/supervision-wiring.ts'
import { CompanionPush } from '../park/companion-push.ts'
import { MinutePush } from '../park/minute-push.ts'
import { ParkClient } from '../park/park-client.ts'
import { ParkPush } from '../park/park-push.ts'
import { Reconciler } from '../park/reconcile.ts'
import { ChangedMinutes } from '../store/minute-store.ts'
import { ParkStore } from '../store/park-store.ts'
import { PUSHED_FACTS, type PushedFact, PushedFactStore } from '../store/pushed-facts.ts'
import { OWN_RECORDS } from '../store/record-scope.ts'
import { type Edition, type EditionParts, type SharedParts, wakeAfterWrite } from './shared.ts'

const GRANTABLE_ROLES: ReadonlySet<Role> = new Set(['admin', 'operator', 'viewer', 'collector'])

export const enterpriseEdition: Edition = {
  name: 'enterprise',
  compose(shared: SharedParts): EditionParts {
    const push = parkPush(shared)
    // What the timers write (periods, offline alarms, alarms of deleted equipment) wakes the push
    // and the events as a request's write does.
    const written = () => wakeAfterWrite(push?.push, shared.events)
    const supervision = ownSupervision(shared, { periodsWritten: written })
    // With a park, each batch of readings notes the minutes it changed: the park receives them as aggregates.
    const monitoring = liveMonitoring(shared, { notesMinutes: push !== undefined, alarmsChanged: written })
    return {
      push: push?.push,
      reconciler: push?.reconciler,
      services: [supervision, monitoring.jobs],
      grantableRoles: GRANTABLE_ROLES,
      records: OWN_RECORDS,
      addsHaveEntries: false,
      handlers: ({ writes, history, attachments }) => {
        const write = (operationId: string, run: Write) => idempotentWrite(writes, operationId, run)
        return [...supervisionHandlers(supervision.operations, write), ...monitoringHandlers(monitoring.parts(history, attachments), write)]
      },
    }
  },
}

/** The push to the park and its reconciliation, when a park is configured (PARK_URL, PARK_USER, PARK_PASSWORD). */
function parkPush(shared: SharedParts): { push: ParkPush; reconciler: Reconciler } | undefined {
  const { config, pool, registry, sync, attachmentStore: attachments, background, log } = shared
  if (!config.parkUrl || !config.parkUser || !config.parkPassword) return undefined
  const client = new ParkClient({
    url: config.parkUrl,
    userName: config.parkUser,
    password: config.parkPassword,
    timeoutMs: config.push.parkTimeoutMs,
  })
  // Reconciliation runs on the push's pg-boss schedule, and on demand (/system/sync/reconcile); what
  // it finds is pushed at once.
  const reconciler = new Reconciler({
    pool,
    registry,
    digests: new ParkStore({ pool, registry }),
    sync,
    client,
    companyCode: config.companyCode,
    wake: () => push.retryNow(),
  })
  const minutes = new MinutePush({ minutes: new ChangedMinutes({ pool, companyCode: config.companyCode }), client, log })
  const facts = new PushedFactStore({ pool })
  // The supervision facts, pushed after the live records they name.
  const kinds = PUSHED_FACTS.map((kind) => ({
    ...kind,
    pending: (limit: number, maxBytes: number, after?: { updateTime: string; id: string }) => facts.pending(kind, limit, maxBytes, after),
    push: (items: PushedFact[]) => client.pushFacts(kind, items),
  }))
  const settings = config.push
  const companions = new CompanionPush({ kinds, streams: [minutes] })
  const push = new ParkPush({ background, sync, attachments, registry, client, settings, log, reconciler, companions })
  return { push, reconciler }
}
