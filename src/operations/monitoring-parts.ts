// Live monitoring's parts, built once by the composition root: the stores, the operations behind
// the handlers (http/monitoring-handlers.ts) and the background jobs (enterprise edition: readings
// arrive there). The reads of readings take instants as the callers send them.
import type { FastifyBaseLogger } from 'fastify'
import type pg from 'pg'
import type { Config } from '../config.ts'
import type { CompileOnFirstUse } from '../contract/compile-on-first-use.ts'
import type { OpenApiDocument } from '../contract/openapi-document.ts'
import { instantSeconds } from '../contract/storable.ts'
import { checkWindow } from '../domain/monitoring/reading-window.ts'
import { AlarmStore } from '../store/alarm-store.ts'
import type { Background } from '../store/background.ts'
import type { HistoryStore } from '../store/history-store.ts'
import type { InstantFormatter } from '../store/instant-format.ts'
import { type Bucket, ReadingQueries } from '../store/reading-queries.ts'
import { READING_EPOCH, ReadingStore } from '../store/reading-store.ts'
import { AlarmOperations } from './alarm-operations.ts'
import type { AttachmentOperations } from './attachment-operations.ts'
import { MonitoringJobs } from './monitoring-jobs.ts'
import { ReadingIngest } from './reading-ingest.ts'

/** An instant's reading second, rounded up: `time >= from` and `time < to` hold for whole seconds. */
function secondAtOrAfter(instant: string): number {
  return Math.ceil(instantSeconds(instant) ?? Number.NaN) - READING_EPOCH
}

/** The reads of readings, over instants as sent. */
export class ReadingReads {
  private readonly queries: ReadingQueries

  constructor(queries: ReadingQueries) {
    this.queries = queries
  }

  list(body: { monitorEquipId: string; from: string; to: string; pageSize?: number; after?: string }) {
    checkWindow(body)
    const { monitorEquipId, pageSize = 500, after } = body
    return this.queries.list({ monitorEquipId, from: secondAtOrAfter(body.from), to: secondAtOrAfter(body.to), pageSize, after })
  }

  aggregate(body: { monitorEquipIds: string[]; from: string; to: string; bucket: Bucket }) {
    checkWindow(body)
    const monitorEquipIds = [...new Set(body.monitorEquipIds)]
    return this.queries.aggregate({ monitorEquipIds, from: secondAtOrAfter(body.from), to: secondAtOrAfter(body.to), bucket: body.bucket })
  }

  latest(body: { monitorEquipIds?: string[]; pageNum?: number; pageSize?: number } | undefined) {
    const monitorEquipIds = body?.monitorEquipIds ? [...new Set(body.monitorEquipIds)] : undefined
    return this.queries.latest({ monitorEquipIds, pageNum: body?.pageNum ?? 1, pageSize: body?.pageSize ?? 20 })
  }
}

export interface MonitoringParts {
  ingest: ReadingIngest
  reads: ReadingReads
  alarms: AlarmOperations
  /** The attachments' operations, which serve the alarms' photos too. */
  attachments: AttachmentOperations
}

/**
 * Live monitoring of the edition the readings arrive at: its background jobs (partitions,
 * retention, offline points), started with the edition, and its operations over the history and
 * attachments the skeleton serves.
 */
export function liveMonitoring(
  shared: {
    config: Config
    pool: pg.Pool
    document: OpenApiDocument
    compiles: CompileOnFirstUse
    background: Background
    format: InstantFormatter
    clock: () => number
    log: FastifyBaseLogger
  },
  options: { notesMinutes: boolean; alarmsChanged?: () => void } = { notesMinutes: false },
): { jobs: MonitoringJobs; parts(history: HistoryStore, attachments: AttachmentOperations): MonitoringParts } {
  const { config, pool, document, format, clock } = shared
  const readings = new ReadingStore({ pool, notesMinutes: options.notesMinutes })
  const alarmStore = new AlarmStore({ companyCode: config.companyCode })
  const retentionDays = config.readingsRetentionDays
  const ingest = new ReadingIngest({ pool, readings, alarms: alarmStore, compiles: shared.compiles, document, retentionDays, clock })
  const reads = new ReadingReads(new ReadingQueries({ pool, format, timeZone: config.timeZone }))
  const jobs = new MonitoringJobs({
    pool,
    background: shared.background,
    readings,
    alarms: alarmStore,
    ingest,
    retentionDays,
    clock,
    log: shared.log,
    changed: options.alarmsChanged,
  })
  return {
    jobs,
    parts: (history, attachments) => ({
      ingest,
      reads,
      alarms: new AlarmOperations({ pool, document, alarms: alarmStore, history, companyCode: config.companyCode, format, clock }),
      attachments,
    }),
  }
}
