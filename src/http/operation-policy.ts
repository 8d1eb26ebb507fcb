// What the document says of each operation that matters before its handler runs: who may call it,
// with which token, whether it needs a body, and how large a body it takes.
import { listOperations, type OpenApiDocument, type OperationSpec } from '../contract/openapi-document.ts'

export interface OperationPolicy {
  roles: string[]
  /** x-action of a resource operation (add, update, ...); undefined for system operations. */
  action: string | undefined
  authenticated: boolean
  tokenKind: 'access' | 'refresh'
  bodyRequired: boolean
  /** Largest body in bytes, `batch`: BODY_LIMIT's, or `attachment`: attachment/add's (see bodyLimitOf). */
  bodyLimit: number | 'batch' | 'attachment'
  /** x-edition: the one edition that serves the operation (the other answers 403); undefined for both. */
  edition: 'park' | 'enterprise' | undefined
  /** A list of items judged one by one (add-batch, the push of records). */
  batch: boolean
  /** The handler reads the body's bytes as received (the push of records applies a page from its own text). */
  keepsBytes: boolean
}

/**
 * Body limits by kind of operation, as the document's description tables them (## Limits): each
 * fits the largest valid body of its operations. An operation may declare its own `x-body-limit`:
 * bytes, or the kind whose limit it takes (`batch`, `attachment`).
 */
export const BODY_LIMITS = { system: 4 * 1024, syncRetry: 64 * 1024, oneRecord: 256 * 1024 } as const

function bodyLimitOf(operationId: string, path: string, spec: OperationSpec): OperationPolicy['bodyLimit'] {
  const declared = spec['x-body-limit']
  if (typeof declared === 'number' || declared === 'batch' || declared === 'attachment') return declared
  if (spec['x-action'] === 'addBatch') return 'batch'
  if (spec['x-action'] === 'attachmentAdd') return 'attachment'
  // Up to 500 record ids.
  if (operationId === 'systemSyncRetry') return BODY_LIMITS.syncRetry
  return path.startsWith('/system/') ? BODY_LIMITS.system : BODY_LIMITS.oneRecord
}

/**
 * An operation's limit with BODY_LIMIT configured (the batches' limit, and the ceiling of every other
 * but attachment/add, whose limit follows ATTACHMENT_MAX_BYTES).
 */
export function effectiveBodyLimit(policy: OperationPolicy, configured: number, attachment: number): number {
  if (policy.bodyLimit === 'attachment') return attachment
  return policy.bodyLimit === 'batch' ? configured : Math.min(policy.bodyLimit, configured)
}

export function operationPolicies(document: OpenApiDocument): Map<string, OperationPolicy> {
  return new Map(
    listOperations(document).map(({ operationId, path, spec }) => {
      const security = spec.security ?? document.security ?? []
      return [
        operationId,
        {
          roles: spec['x-roles'] ?? [],
          action: spec['x-action'],
          authenticated: security.length > 0,
          tokenKind: operationId === 'systemRefresh' ? 'refresh' : 'access',
          bodyRequired: spec.requestBody?.required === true,
          bodyLimit: bodyLimitOf(operationId, path, spec),
          edition: spec['x-edition'],
          // Readings' add-batch has a limit of its own but judges its items one by one too.
          batch: bodyLimitOf(operationId, path, spec) === 'batch' || path.endsWith('/add-batch'),
          keepsBytes: operationId === 'systemPushRecords',
        },
      ]
    }),
  )
}
