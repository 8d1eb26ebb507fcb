// Hidden dangers and work tickets that have become overdue (domain/supervision/overdue.ts, the rules
// of their computed `overdue`), each announced once per deadline: one statement finds those without
// a notice (migration 136), adds the notice and appends the event (docs/events.md), so the event
// commits with its notice and two instances never record one twice (the notice's key).
import type { Queryable } from './database.ts'

/** How a kind of overdue record is found, and what its event says beside `{resource, id, version}`. */
interface OverdueKind {
  key: string
  table: string
  path: string
  type: string
  /** The condition on the record `r`, over `$1` (the instant) and, when `zoned`, `$3` (the enterprise's zone). */
  overdue: string
  /** The deadline of the record `r`, as text: the notice's key. */
  deadline: string
  zoned: boolean
  /** Further fields of the event's data (jsonb_build_object's arguments). */
  data: string
}

const DANGERS: OverdueKind = {
  key: 'troubleshootInfo',
  table: 'troubleshoot_info',
  path: 'prevent/troubleshootInfo',
  type: 'danger.overdue',
  zoned: true,
  overdue: `r."dangerState" IS DISTINCT FROM '9' AND r."dangerManageDeadline" < enterprise_date($3, $1)`,
  deadline: `r."dangerManageDeadline"::text`,
  data: `'dangerManageDeadline', r."dangerManageDeadline"::text, 'dangerState', r."dangerState", 'dangerLevel', r."dangerLevel"`,
}

const TICKETS: OverdueKind = {
  key: 'ticketBaseInfo',
  table: 'ticket_base_info',
  path: 'prevent/ticketBaseInfo',
  type: 'ticket.overdue',
  zoned: false,
  overdue: `r."ticketStatus" IN ('1', '2') AND r."planEndTime" < $1`,
  deadline: `to_char(r."planEndTime" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  data: `'planEndTime', to_char(r."planEndTime" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'ticketStatus', r."ticketStatus", 'workType', r."workType"`,
}

/** Finds (at most `$2`), notes and announces the records of `kind` overdue at `$1` without a notice for their deadline. */
function announce(kind: OverdueKind): string {
  return (
    `WITH due AS (SELECT r."companyCode", r.id, ${kind.deadline} AS deadline FROM ${kind.table} r ` +
    `WHERE r.live AND ${kind.overdue} AND NOT EXISTS (SELECT 1 FROM overdue_notice n ` +
    `WHERE n.resource = '${kind.key}' AND n."companyCode" = r."companyCode" AND n.id = r.id AND n.deadline = ${kind.deadline}) LIMIT $2), ` +
    `noted AS (INSERT INTO overdue_notice (resource, "companyCode", id, deadline) SELECT '${kind.key}', "companyCode", id, deadline FROM due ` +
    `ON CONFLICT DO NOTHING RETURNING "companyCode", id), ` +
    `announced AS (INSERT INTO event_inbox (type, time, "companyCode", data) SELECT '${kind.type}', now(), r."companyCode", ` +
    `jsonb_build_object('resource', '${kind.path}', 'id', r.id, 'version', r.version, ${kind.data}) ` +
    `FROM noted JOIN ${kind.table} r ON r."companyCode" = noted."companyCode" AND r.id = noted.id RETURNING 1) ` +
    `SELECT (SELECT count(*) FROM due)::int AS found`
  )
}

export class OverdueStore {
  private readonly statements = [DANGERS, TICKETS].map((kind) => ({ sql: announce(kind), zoned: kind.zoned }))

  /** Announces the records overdue at `now`, at most `limit` of each kind; answers whether any kind had more. */
  async announce(db: Queryable, now: Date, zone: string, limit: number): Promise<boolean> {
    let more = false
    for (const statement of this.statements) {
      const values = statement.zoned ? [now, limit, zone] : [now, limit]
      const { rows } = await db.query<{ found: number }>(statement.sql, values)
      more ||= rows[0].found === limit
    }
    return more
  }
}
