// The park edition: many enterprises' records as they push them, read by the park's accounts; the
// park is not an author. Its parts over the shared skeleton (shared.ts); an operation class of its
// own is constructed in `compose` and its handlers listed in `handlers`.
import type { Role } from '../auth/auth-service.ts'
import { parkHandlers } from '../http/park-handlers.ts'
import { idempotentWrite } from '../http/handlers.ts'
import { operationIdOf } from '../http/routing.ts'
import { supervisionHandlers } from '../http/supervision-handlers.ts'
import { supervisionParts } from '../operations/supervision/supervision-wiring.ts'
import { ParkOperations } from '../operations/park-operations.ts'
import { PUSH_OPERATIONS, parkRefusal } from '../park/park-policy.ts'
import { ParkStore } from '../store/park-store.ts'
import { PUSHED_FACTS, PushedFactStore } from '../store/pushed-facts.ts'
import type { Edition, EditionParts, SharedParts } from './shared.ts'

const GRANTABLE_ROLES: ReadonlySet<Role> = new Set(['admin', 'operator', 'viewer', 'enterprise'])

export const parkEdition: Edition = {
  name: 'park',
  compose(shared: SharedParts): EditionParts {
    const { config, pool, document, registry, format, compiles, attachmentStore } = shared
    const park = new ParkOperations({
      park: new ParkStore({ pool, registry }),
      attachments: attachmentStore,
      registry,
      format,
      compiles,
      document,
      attachmentMaxBytes: config.attachmentMaxBytes,
      facts: { store: new PushedFactStore({ pool }), kinds: PUSHED_FACTS },
    })
    const supervision = supervisionParts(shared, { keepsPeriods: false, byEnterprise: true })
    return {
      refuse: (policy) => parkRefusal(policy.action),
      unlimited: (request) => PUSH_OPERATIONS.has(operationIdOf(request) ?? ''),
      grantableRoles: GRANTABLE_ROLES,
      byEnterprise: true,
      addsHaveEntries: true,
      handlers: ({ writes }) => [
        ...parkHandlers({ registry, park }),
        ...supervisionHandlers(supervision.operations, (operationId, run) => idempotentWrite(writes, operationId, run)),
      ],
    }
  },
}
