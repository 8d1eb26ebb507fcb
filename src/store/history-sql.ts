// Record history, written by the write's own statement: the SQL here is a CTE that the
// resource statements (resource-sql.ts) append to their add, update, delete and applied push, so the
// entry commits with the write in the same round trip. An update's `changes` ({field: [old, new]})
// is computed in SQL (history_changes, migration 080) from the old and new rows as jsonb; an add's
// is stored as the fields set ({field: value}, nulls stripped: the cheapest form on the busiest
// path), read back as [null, value] pairs (history-store.ts). Pure: no database.
import type { ResourceDef } from '../resources/resource-registry.ts'
import { eventInsert } from './event-sql.ts'
import { literal } from './sql-text.ts'

/** The resource's business fields as an SQL text[] literal (names come from the registry). */
export function historyFields(resource: ResourceDef): string {
  return `ARRAY[${resource.fields.map((field) => literal(field.name)).join(', ')}]::text[]`
}

/**
 * The business fields of a row (columns of `source`, or of the table in RETURNING) as one jsonb
 * object, the fields not set (null) left out: an add's history entry. Built field by field
 * (jsonb_build_object takes at most 50 pairs), so nothing else of the row is serialised.
 * jsonb_strip_nulls strips at every depth, so a resource with object fields (an alarm's
 * `disposal`) leaves out its null fields one by one instead: their own null members are values.
 */
export function addedFields(resource: ResourceDef, qualifier: string): string {
  if (resource.fields.length > 50) throw new Error(`${resource.key}: more than 50 fields for jsonb_build_object`)
  const built = `jsonb_build_object(${resource.fields.map((field) => `${literal(field.name)}, ${qualifier}."${field.name}"`).join(', ')})`
  if (!resource.fields.some((field) => field.json)) return `jsonb_strip_nulls(${built})`
  return `(SELECT coalesce(jsonb_object_agg(f.key, f.value), '{}') FROM jsonb_each(${built}) AS f WHERE f.value <> 'null'::jsonb)`
}

/**
 * A CTE (`name AS (INSERT INTO record_history ...)`) writing one entry per row of `source`, which
 * must have columns id, "companyCode", version, "updateTime", "updateBy". `action` and `changes`
 * are SQL expressions over `source`'s columns.
 */
export function historyInsert(
  resource: ResourceDef,
  name: string,
  source: string,
  action: string,
  changes: string,
  keepHeld = false,
): string {
  return (
    `${name} AS (INSERT INTO record_history (resource, id, "companyCode", version, action, time, "userName", changes) ` +
    `SELECT ${literal(resource.key)}, id, "companyCode", version, ${action}, "updateTime", "updateBy", ${changes} FROM ${source}` +
    // keepHeld: an entry already held for this version stays (the park re-applying a version it
    // held before: after a reconciliation, or a database restored from an earlier copy).
    `${keepHeld ? ' ON CONFLICT DO NOTHING' : ''} RETURNING id, "companyCode", version, action, time, changes), ` +
    // Each entry written is an event too, in the same statement (an entry already held adds none).
    eventInsert(
      resource,
      `${name}_event`,
      name,
      `CASE action WHEN 'add' THEN 'record.added' WHEN 'update' THEN 'record.updated' ELSE 'record.deleted' END`,
      'time',
      'changes',
    )
  )
}
