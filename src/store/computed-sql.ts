// The SQL of the fields computed as of each read (`x-computed` in the document): a hidden danger's
// and a work ticket's `overdue`, read and searched like columns. The rules are those of
// domain/supervision/overdue.ts, written for the database so that a search by them uses its indexes.
import type { ResourceDef } from '../resources/resource-registry.ts'
import type { RecordScope } from './record-scope.ts'
import { literal } from './sql-text.ts'

/**
 * The computed fields of a resource, by name, each as of the date of the record's enterprise in its
 * zone (`scope`'s: the configured one, `timeZone`, or the one it pushed).
 */
export function computedColumns(resource: ResourceDef, timeZone: string, scope: RecordScope): Map<string, string> {
  const zone = scope.zoneOf(resource.table, literal(timeZone))
  const columns = new Map<string, string>()
  for (const field of resource.computed ?? []) {
    const sql = OVERDUE[resource.key]
    if (field.name !== 'overdue' || sql === undefined) throw new Error(`no SQL for the computed field ${resource.key}.${field.name}`)
    columns.set(field.name, sql(zone))
  }
  return columns
}

const OVERDUE: Record<string, (zone: string) => string> = {
  // Not accepted, and the enterprise's date after the deadline day.
  troubleshootInfo: (zone) => `"dangerState" IS DISTINCT FROM '9' AND "dangerManageDeadline" < enterprise_date(${zone}, now())`,
  // Issued or in progress after the planned end.
  ticketBaseInfo: () => `"ticketStatus" IN ('1', '2') AND "planEndTime" < now()`,
}
