// Database refusals, by constraint name. The migrations name every constraint a caller can run
// into after the registry: `<table>_<field>_ref` for a reference (a composite foreign key on the
// field and `live`), `<table>_<field>_unique` for a unique field (a unique index over live
// records). The table below is built from the registry, so a refusal is told by its name alone.
import { BusinessError, Code } from '../errors.ts'
import type { Reference, ResourceDef } from '../resources/resource-registry.ts'
import { classifyDatabaseError } from './database-errors.ts'
import type { ApiRecord } from './resource-sql.ts'
import { message } from '../messages/message.ts'

export type Refusal =
  | { kind: 'reference'; child: ResourceDef; reference: Reference }
  | { kind: 'unique'; resource: ResourceDef; field: string }
  | { kind: 'attachment'; resource: ResourceDef }

export function constraintName(table: string, field: string, kind: 'ref' | 'unique'): string {
  return `${table}_${field}_${kind}`
}

export function refusalsByConstraint(resources: readonly ResourceDef[]): Map<string, Refusal> {
  const refusals = new Map<string, Refusal>()
  for (const resource of resources) {
    for (const reference of resource.references) {
      refusals.set(constraintName(resource.table, reference.field, 'ref'), { kind: 'reference', child: resource, reference })
    }
    for (const field of resource.uniqueFields) {
      refusals.set(constraintName(resource.table, field, 'unique'), { kind: 'unique', resource, field })
    }
    // A record's attachments (`<table>_attachment`, migration 081) name it as children do.
    refusals.set(constraintName(`${resource.table}_attachment`, 'recordId', 'ref'), { kind: 'attachment', resource })
  }
  return refusals
}

/** What PostgreSQL's errors carry (node-postgres DatabaseError). */
interface ConstraintError {
  code?: unknown
  constraint?: unknown
}

/**
 * A database refusal that is the caller's doing, as a business error; anything else as it came.
 * `subject` is what the statement wrote: the record, the change or the pushed item ({id} on delete).
 * Unique and reference refusals are told here by constraint name; every other SQLSTATE by
 * database-errors.ts (a value the caller sent is its 1002; the database unavailable is left as it
 * came, to be answered 4001 and logged with its detail).
 */
export function translateRefusal(refusals: Map<string, Refusal>, resource: ResourceDef, error: unknown, subject: ApiRecord): unknown {
  const { code, constraint }: ConstraintError = typeof error === 'object' && error !== null ? error : {}
  const refusal = typeof constraint === 'string' ? refusals.get(constraint) : undefined
  switch (code) {
    case '23503': {
      if (refusal?.kind === 'attachment' && refusal.resource.key === resource.key) {
        return new BusinessError(Code.stillReferenced, message('stillHasAttachments', { resource: resource.key, id: String(subject.id) }))
      }
      if (refusal?.kind !== 'reference') return error
      const { child, reference } = refusal
      // The child's own write names a missing parent; a parent's delete is refused by a live child.
      if (child.key === resource.key) {
        const value = String(subject[reference.field] ?? '')
        return new BusinessError(
          Code.missingReference,
          message('referenceMissing', { field: reference.field, parent: reference.parent, value }),
        )
      }
      const still = { resource: resource.key, id: String(subject.id), child: child.key, field: reference.field }
      return new BusinessError(Code.stillReferenced, message('stillReferenced', still))
    }
    case '23505': {
      if (refusal?.kind !== 'unique' || refusal.resource.key !== resource.key) return error
      // An update's change holds the value when it wrote it, as an add's record does.
      const value = subject[refusal.field]
      return new BusinessError(
        Code.duplicateUnique,
        value === undefined || value === null
          ? message('alreadyExists', { field: refusal.field })
          : message('alreadyExistsValue', { field: refusal.field, value: String(value) }),
      )
    }
    default: {
      const refusal = classifyDatabaseError(error)
      return refusal && refusal.code !== Code.databaseUnavailable ? new BusinessError(refusal.code, refusal.message) : error
    }
  }
}
