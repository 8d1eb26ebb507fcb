// Events of records (docs/events.md), appended by the statement of what caused them: the SQL here
// is a CTE or a statement that the history (history-sql.ts), the resource statements
// (resource-sql.ts) and the push's settlement (sync-store.ts) add to their own, so an event commits
// with its cause in the same round trip. Pure: no database.
import type { ResourceDef } from '../resources/resource-registry.ts'
import { literal, NOW } from './sql-text.ts'

/**
 * A CTE (`name AS (INSERT INTO event_inbox ...)`) appending one record event per row of `source`:
 * see eventAppend.
 */
export function eventInsert(resource: ResourceDef, name: string, source: string, type: string, time: string, changes: string): string {
  return `${name} AS (${eventAppend(resource, source, type, time, changes)})`
}

/**
 * The insert appending one record event per row of `source` (columns id, "companyCode", version):
 * `data` is {resource, id, version, changes} with `changes` as the history entry stores it
 * (store/event-store.ts turns it into the wire form). `type`, `time` and `changes` are SQL
 * expressions over `source`'s columns.
 */
export function eventAppend(resource: ResourceDef, source: string, type: string, time: string, changes: string): string {
  return (
    `INSERT INTO event_inbox (type, time, "companyCode", data) ` +
    `SELECT ${type}, ${time}, "companyCode", jsonb_build_object('resource', ${literal(resource.path)}, 'id', id, 'version', version, 'changes', ${changes}) ` +
    `FROM ${source}`
  )
}

/**
 * A CTE (`name AS (INSERT INTO event_inbox ...)`) appending a `sync.failed` event per row of `source`
 * (columns id, "companyCode", version, sync_error): the version whose push ended failed, and why.
 */
export function syncFailedInsert(resource: Pick<ResourceDef, 'path'>, name: string, source: string): string {
  return (
    `${name} AS (INSERT INTO event_inbox (type, time, "companyCode", data) ` +
    `SELECT 'sync.failed', ${NOW}, "companyCode", jsonb_build_object('resource', ${literal(resource.path)}, 'id', id, 'version', version, 'error', sync_error) ` +
    `FROM ${source})`
  )
}
