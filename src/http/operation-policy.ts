// What the document says of each operation that matters before its handler runs: who may call it,
// with which token, and whether it needs a body.
import { listOperations, type OpenApiDocument } from '../contract/openapi-document.ts'

export interface OperationPolicy {
  roles: string[]
  authenticated: boolean
  tokenKind: 'access' | 'refresh'
  bodyRequired: boolean
}

export function operationPolicies(document: OpenApiDocument): Map<string, OperationPolicy> {
  return new Map(
    listOperations(document).map(({ operationId, spec }) => {
      const security = spec.security ?? document.security ?? []
      return [
        operationId,
        {
          roles: spec['x-roles'] ?? [],
          authenticated: security.length > 0,
          tokenKind: operationId === 'systemRefresh' ? 'refresh' : 'access',
          bodyRequired: spec.requestBody?.required === true,
        },
      ]
    }),
  )
}
