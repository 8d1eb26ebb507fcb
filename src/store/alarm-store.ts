// Alarms of the monitoring points (monitor_alarm, migration 120): raised, changed and cleared by
// evaluation in the transaction of the readings that caused them, handled by people (acknowledge,
// dispose), each change one entry of record_history and two events (record.* and alarm.*, see
// docs/events.md) written by the change's own statement. Alarms are read as records are
// (ResourceStore over the alarm's schema, HistoryStore).
import { randomUUID } from 'node:crypto'
import { BusinessError, Code } from '../errors.ts'
import type { Queryable } from './database.ts'
import { NOW } from './sql-text.ts'
import { message } from '../messages/message.ts'

export const SYSTEM_USER = 'system'

export type AlarmKindName = 'high' | 'low' | 'outOfRange' | 'fault' | 'offline' | 'frozen'

/** The values evaluation sets on an alarm. */
export interface AlarmValues {
  level: number | null
  maxLevel: number | null
  threshold: string | null
  startTime: Date
  startValue: string | null
  peakValue: string | null
}

export type ChangeableField = 'level' | 'maxLevel' | 'threshold' | 'peakValue'

export interface RaisedAlarm extends AlarmValues {
  monitorEquipId: string
  monitorCode: string
  monitorName: string
  kind: AlarmKindName
  shelved: boolean
}

/** An alarm's handling as the handling operations need it. */
export interface AlarmHandling {
  handling: 'raised' | 'acknowledged' | 'disposed'
  acknowledgedBy: string | null
  acknowledgedTime: Date | null
  disposal: unknown
}

/** The resource's path, as events name it. */
export const ALARM_RESOURCE_PATH = 'hazard/monitorAlarm'

/**
 * The change's history entry, then its two events, from the row `written`: the record event (as the
 * history entry) and the alarm event (`alarmType`, an SQL expression), in that order. A statement of
 * CTEs, so the events commit with the change in the same round trip.
 */
const HISTORY = (action: string, changes: string, by: string, alarmType: string) =>
  `, history AS (INSERT INTO record_history (resource, id, "companyCode", version, action, time, "userName", changes) ` +
  `SELECT 'monitorAlarm', id, "companyCode", version, ${action}, "updateTime", ${by}, ${changes} FROM written) ` +
  `INSERT INTO event_inbox (type, time, "companyCode", data) ` +
  `SELECT e.type, w."updateTime", w."companyCode", CASE WHEN e.ord = 1 ` +
  `THEN jsonb_build_object('resource', '${ALARM_RESOURCE_PATH}', 'id', w.id, 'version', w.version, 'changes', ${changes}) ` +
  `ELSE jsonb_build_object('resource', '${ALARM_RESOURCE_PATH}', 'id', w.id, 'version', w.version, 'kind', w.kind, 'level', w.level, ` +
  `'maxLevel', w."maxLevel", 'status', w.status, 'handling', w.handling, 'monitorEquipId', w."monitorEquipId", ` +
  `'monitorCode', w."monitorCode", 'shelved', w.shelved) END ` +
  `FROM written AS w CROSS JOIN (VALUES (1, ${action === `'add'` ? `'record.added'` : `'record.updated'`}), (2, ${alarmType})) AS e(ord, type) ` +
  `ORDER BY w.id, e.ord`

const PENDING = `version = version + 1, "updateTime" = ${NOW}, sync_status = 'pending', sync_attempts = 0, sync_rounds = 0, sync_error = NULL`
const RETURNING = `RETURNING id, "companyCode", version, "updateTime", kind, level, "maxLevel", status, handling, "monitorEquipId", "monitorCode", shelved`

const RAISE =
  `WITH written AS (INSERT INTO monitor_alarm (id, "monitorEquipId", "monitorCode", "monitorName", kind, level, "maxLevel", threshold, ` +
  `"startTime", "startValue", "peakValue", status, shelved, "companyCode", "createTime", "updateTime", "createBy", "updateBy") ` +
  `VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'active', $12, $13, ${NOW}, ${NOW}, '${SYSTEM_USER}', '${SYSTEM_USER}') ${RETURNING})` +
  HISTORY(`'add'`, '$14::jsonb', `'${SYSTEM_USER}'`, `'alarm.raised'`)

const CLEAR =
  `WITH written AS (UPDATE monitor_alarm SET status = 'cleared', "endTime" = $3, "endValue" = $4, "updateBy" = '${SYSTEM_USER}', ${PENDING} ` +
  `WHERE "monitorEquipId" = $1 AND kind = $2 AND status = 'active' ${RETURNING})` +
  HISTORY(`'update'`, '$5::jsonb', `'${SYSTEM_USER}'`, `'alarm.cleared'`)

const CHANGEABLE: readonly ChangeableField[] = ['level', 'maxLevel', 'threshold', 'peakValue']

/** One statement per set of changed fields: `level = $3, ...` for those named. */
function updateStatement(fields: ChangeableField[]): string {
  const sets = fields.map((field, i) => `"${field}" = $${i + 3}`).join(', ')
  return (
    `WITH written AS (UPDATE monitor_alarm SET ${sets}, "updateBy" = '${SYSTEM_USER}', ${PENDING} ` +
    `WHERE "monitorEquipId" = $1 AND kind = $2 AND status = 'active' ${RETURNING})` +
    HISTORY(`'update'`, `$${fields.length + 3}::jsonb`, `'${SYSTEM_USER}'`, `'alarm.changed'`)
  )
}

const HANDLE =
  `WITH written AS (UPDATE monitor_alarm SET handling = $2, "acknowledgedBy" = $3, "acknowledgedTime" = $4, disposal = $5::jsonb, ` +
  `"updateBy" = $6, ${PENDING} WHERE id = $1 ${RETURNING})` +
  HISTORY(`'update'`, '$7::jsonb', '$6::text', `'alarm.' || $2::text`)

export class AlarmStore {
  private readonly companyCode: string

  constructor(options: { companyCode: string }) {
    this.companyCode = options.companyCode
  }

  /** Opens an alarm; its id is the service's. */
  async raise(db: Queryable, alarm: RaisedAlarm): Promise<string> {
    const id = randomUUID()
    const values = [alarm.level, alarm.maxLevel, alarm.threshold, alarm.startTime, alarm.startValue, alarm.peakValue]
    const added = {
      id,
      monitorEquipId: alarm.monitorEquipId,
      monitorCode: alarm.monitorCode,
      monitorName: alarm.monitorName,
      kind: alarm.kind,
      level: alarm.level,
      maxLevel: alarm.maxLevel,
      threshold: alarm.threshold,
      startTime: alarm.startTime.toISOString(),
      startValue: alarm.startValue,
      peakValue: alarm.peakValue,
      status: 'active',
      handling: 'raised',
      shelved: alarm.shelved,
    }
    const set = Object.fromEntries(Object.entries(added).filter(([, value]) => value !== null))
    await db.query(RAISE, [
      id,
      alarm.monitorEquipId,
      alarm.monitorCode,
      alarm.monitorName,
      alarm.kind,
      ...values,
      alarm.shelved,
      this.companyCode,
      JSON.stringify(set),
    ])
    return id
  }

  /** Changes the open alarm of this point and kind: `changes` holds each changed field as [old, new]. */
  async change(db: Queryable, monitorEquipId: string, kind: AlarmKindName, changes: Partial<Record<ChangeableField, [unknown, unknown]>>) {
    const fields = CHANGEABLE.filter((field) => field in changes)
    if (fields.length === 0) return
    const values = fields.map((field) => changes[field]?.[1] ?? null)
    await db.query(updateStatement(fields), [monitorEquipId, kind, ...values, JSON.stringify(changes)])
  }

  /** Active alarms of deleted equipment (at most `limit`), with the time of the deletion. */
  async activeOfDeleted(db: Queryable, limit: number): Promise<{ monitorEquipId: string; kind: AlarmKindName; deletedAt: Date }[]> {
    const { rows } = await db.query(
      `SELECT a."monitorEquipId", a.kind, e."updateTime" AS "deletedAt" FROM monitor_alarm AS a ` +
        `JOIN monitor_equip AS e ON e.id = a."monitorEquipId" WHERE a.status = 'active' AND e.live IS NULL LIMIT $1`,
      [limit],
    )
    return rows
  }

  /** Ends the open alarm of this point and kind. */
  async clear(db: Queryable, monitorEquipId: string, kind: AlarmKindName, endTime: Date, endValue: string | null): Promise<void> {
    // An offline alarm ends without a value: its endValue stays null, no change to record.
    const changes = {
      status: ['active', 'cleared'],
      endTime: [null, endTime.toISOString()],
      ...(endValue === null ? {} : { endValue: [null, endValue] }),
    }
    await db.query(CLEAR, [monitorEquipId, kind, endTime, endValue, JSON.stringify(changes)])
  }

  /** The alarm's handling, locked for the change that follows; 1004 when there is no such alarm. */
  async lockHandling(db: Queryable, id: string): Promise<AlarmHandling> {
    const { rows } = await db.query<AlarmHandling>(
      `SELECT handling, "acknowledgedBy", "acknowledgedTime", disposal FROM monitor_alarm WHERE id = $1 FOR UPDATE`,
      [id],
    )
    if (rows.length === 0) throw new BusinessError(Code.notFound, message('recordNotFound', { id }))
    return rows[0]
  }

  /** Writes a new handling by `userName`; `changes` ([old, new] by field, instants as ISO text) is its history entry. */
  async handle(
    db: Queryable,
    id: string,
    next: AlarmHandling,
    userName: string,
    changes: Record<string, [unknown, unknown]>,
  ): Promise<void> {
    await db.query(HANDLE, [
      id,
      next.handling,
      next.acknowledgedBy,
      next.acknowledgedTime,
      next.disposal === null ? null : JSON.stringify(next.disposal),
      userName,
      JSON.stringify(changes),
    ])
  }

  /** Whether a live hidden danger has this id (locked against its deletion until the transaction ends). */
  async liveTroubleshootInfo(db: Queryable, id: string): Promise<boolean> {
    const { rows } = await db.query(`SELECT 1 FROM troubleshoot_info WHERE id = $1 AND live FOR KEY SHARE`, [id])
    return rows.length > 0
  }
}
