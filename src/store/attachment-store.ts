// Attachments: files attached to a record, in one table per resource
// (`<table>_attachment`, migration 081), apart from the record rows. Only `get` and the push read
// the bytes. Each write is one statement; an attachment's need to be pushed is its own
// sync_status = 'pending', as for records, so the push bookkeeping of SyncStore serves both.
import type pg from 'pg'
import { inTransaction, type Queryable } from './database.ts'
import { BusinessError, Code } from '../errors.ts'
import type { ResourceDef } from '../resources/resource-registry.ts'
import type { InstantFormatter } from './instant-format.ts'
import type { PendingPage, SyncTable } from './sync-store.ts'
import { lockPushes, pushedBy } from './park-store.ts'
import { NOW, PUSH_AGAIN } from './sql-text.ts'
import { message } from '../messages/message.ts'

export interface AttachmentInput {
  id: string
  recordId: string
  fileName: string
  /** image/png, image/jpeg or application/pdf, proven by the bytes (domain/attachment-content.ts). */
  contentType: string
  content: Buffer
  sha256: string
}

/** An attachment as read: without its bytes in lists, with them (base64) from `get`. */
export interface AttachmentInfo {
  id: string
  recordId: string
  fileName: string
  contentType: string
  size: number
  sha256: string
  companyCode: string
  createTime: string
  createBy: string
  sync_status: string
  sync_time: string | null
  sync_error: string | null
  content?: string
}

/** The push-only fields of an attachment (/system/push/attachment): as the enterprise holds it. */
interface PushFields {
  companyCode: string
  createTime: string
  updateTime: string
  createBy: string
  updateBy: string
  version: number
  deleted: boolean
}

/** An attachment as pushed to the park (/system/push/attachment); a tombstone carries no bytes (content ""). */
export interface AttachmentPushItem extends PushFields {
  id: string
  recordId: string
  fileName: string
  contentType: 'image/png' | 'image/jpeg' | 'application/pdf'
  content: string
}

/** A pushed attachment (park edition): as the enterprise holds it, with its version. */
export interface PushedAttachment extends AttachmentInput, PushFields {}

/**
 * The attachments of a resource as a table of push state (SyncStore's acknowledge, failures, counts,
 * retries): the same bookkeeping columns on the `<table>_attachment` table.
 */
export function attachmentTarget(resource: ResourceDef): SyncTable {
  return { key: `${resource.key}/attachment`, table: `${resource.table}_attachment`, path: `${resource.path}/attachment` }
}

/** Every push target: each resource's records, then each resource's attachments. */
export function withAttachments(resources: ResourceDef[]): SyncTable[] {
  return [...resources, ...resources.map(attachmentTarget)]
}

/** An attachment row as read (INFO's columns). */
interface AttachmentRow {
  id: string
  recordId: string
  fileName: string
  contentType: string
  size: number
  sha256: string
  companyCode: string
  createTime: Date
  createBy: string
  sync_status: string
  sync_time: Date | null
  sync_error: string | null
}

/** A pending attachment row as read for the push. */
interface PendingRow {
  id: string
  companyCode: string
  recordId: string
  fileName: string
  contentType: AttachmentPushItem['contentType']
  sha256: string
  createTime: Date
  updateTime: Date
  createBy: string
  updateBy: string
  version: string
  content: Buffer
  weight: string
  candidates: number
}

const INFO = `id, "recordId", "fileName", "contentType", size, sha256, "companyCode", "createTime", "createBy", sync_status, sync_time, sync_error`

export class AttachmentStore {
  private readonly pool: pg.Pool
  private readonly companyCode: string
  private readonly format: InstantFormatter

  constructor(options: { pool: pg.Pool; companyCode: string; format: InstantFormatter }) {
    this.pool = options.pool
    this.companyCode = options.companyCode
    this.format = options.format
  }

  /** 1003 when the id was ever used; 1006 when the record is missing or deleted. */
  async add(resource: ResourceDef, input: AttachmentInput, userName: string, db: Queryable = this.pool): Promise<void> {
    const table = attachmentTarget(resource).table
    const { rowCount } = await this.run(resource, () =>
      db.query(
        `INSERT INTO "${table}" (id, "companyCode", "recordId", "fileName", "contentType", size, sha256, content, ` +
          `"createTime", "updateTime", "createBy", "updateBy") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${NOW}, ${NOW}, $9, $9) ` +
          `ON CONFLICT DO NOTHING`,
        [
          input.id,
          this.companyCode,
          input.recordId,
          input.fileName,
          input.contentType,
          input.content.length,
          input.sha256,
          input.content,
          userName,
        ],
      ),
    )
    if (rowCount === 0) throw new BusinessError(Code.idExists, message('alreadyExistsValue', { field: 'id', value: input.id }))
  }

  /** Tombstones a live attachment; deleting a missing or deleted one is a success. */
  async delete(resource: ResourceDef, id: string, userName: string, db: Queryable = this.pool): Promise<void> {
    await db.query(
      `UPDATE "${attachmentTarget(resource).table}" SET live = NULL, "deleteTime" = ${NOW}, "updateTime" = ${NOW}, "updateBy" = $3, ` +
        `version = version + 1, ${PUSH_AGAIN} ` +
        `WHERE "companyCode" = $1 AND id = $2 AND live`,
      [this.companyCode, id, userName],
    )
  }

  /**
   * The live attachments of a record, without their bytes, oldest first, and how many enterprises
   * hold that record or live attachments naming it (on the park several may; counted only when no
   * `companyCode` is named). Without `companyCode`, those of the one enterprise that holds it.
   */
  async list(resource: ResourceDef, recordId: string, companyCode?: string): Promise<{ list: AttachmentInfo[]; holders: number }> {
    const table = `"${attachmentTarget(resource).table}"`
    // One statement: the holders, then (LEFT JOIN: a row even when there are no attachments) the attachments of the one named.
    const { rows } = await this.pool.query<{ holders: number } & (AttachmentRow | Record<keyof AttachmentRow, null>)>(
      `WITH held AS (SELECT "companyCode" FROM "${resource.table}" WHERE id = $1 AND live AND $2::text IS NULL ` +
        `UNION SELECT "companyCode" FROM ${table} WHERE "recordId" = $1 AND live AND $2::text IS NULL), ` +
        `named AS (SELECT count(*)::int AS holders, coalesce($2, CASE WHEN count(*) = 1 THEN min("companyCode") END) AS code FROM held) ` +
        `SELECT named.holders, ${INFO} FROM named LEFT JOIN ${table} ON "recordId" = $1 AND live AND "companyCode" = named.code ` +
        `ORDER BY "createTime", id`,
      [recordId, companyCode ?? null],
    )
    const list = rows.filter((row): row is AttachmentRow & { holders: number } => row.id !== null).map((row) => this.toApi(row))
    return { list, holders: rows[0].holders }
  }

  /**
   * The live attachment with this id and its bytes (base64), and how many enterprises hold a live
   * one with that id (on the park several may: then the bytes of none are read).
   */
  async get(resource: ResourceDef, id: string, companyCode?: string): Promise<{ found: AttachmentInfo | undefined; holders: number }> {
    const { rows } = await this.pool.query<AttachmentRow & { content: Buffer | null; holders: number }>(
      `SELECT ${INFO}, count(*) OVER ()::int AS holders, CASE WHEN count(*) OVER () = 1 THEN content END AS content ` +
        `FROM "${attachmentTarget(resource).table}" WHERE id = $1 AND live AND ($2::text IS NULL OR "companyCode" = $2) LIMIT 1`,
      [id, companyCode ?? null],
    )
    const [row] = rows
    // Held by several enterprises: none is answered, and their bytes were not read.
    if (!row || row.content === null) return { found: undefined, holders: row?.holders ?? 0 }
    return { found: { ...this.toApi(row), content: row.content.toString('base64') }, holders: 1 }
  }

  /**
   * Pending attachments to push (live or deleted), oldest write first: at most `limit`, and no more
   * bytes than `maxBytes` (one at least, however large), so a page never holds more than that in
   * memory. The bytes of the attachments left out are not read.
   */
  async pending(
    resource: ResourceDef,
    deleted: boolean,
    limit: number,
    maxBytes: number,
    after?: PendingPage['cursor'],
  ): Promise<{ items: AttachmentPushItem[]; cursor: PendingPage['cursor']; bytes: number }> {
    const table = `"${attachmentTarget(resource).table}"`
    const values: unknown[] = [deleted, limit, maxBytes]
    let keyset = ''
    if (after) {
      values.push(after.updateTime, after.id)
      keyset = ` AND ("updateTime", id) > ($4, $5)`
    }
    // Tombstones carry no bytes: the park only needs to know they are deleted.
    const { rows } = await this.pool.query<PendingRow>(
      `WITH candidates AS (SELECT "companyCode", id, "updateTime", CASE WHEN $1 THEN 0 ELSE size END AS weight FROM ${table} AS c ` +
        `WHERE sync_status = 'pending' AND (live IS NULL) = $1${keyset} ` +
        // A live attachment waits while its record is on its way: it reaches the park after it.
        `AND ($1 OR NOT EXISTS (SELECT 1 FROM "${resource.table}" AS r WHERE r.id = c."recordId" AND r.sync_status = 'pending')) ` +
        `ORDER BY "updateTime", id LIMIT $2), ` +
        `page AS (SELECT *, sum(weight) OVER (ORDER BY "updateTime", id) AS running, row_number() OVER (ORDER BY "updateTime", id) AS n FROM candidates) ` +
        `SELECT a.id, a."companyCode", a."recordId", a."fileName", a."contentType", a.sha256, a."createTime", a."updateTime", ` +
        `a."createBy", a."updateBy", a.version, CASE WHEN $1 THEN ''::bytea ELSE a.content END AS content, page.weight, ` +
        `(SELECT count(*)::int FROM candidates) AS candidates ` +
        `FROM page JOIN ${table} AS a USING ("companyCode", id) WHERE page.n = 1 OR page.running <= $3 ORDER BY a."updateTime", a.id`,
      values,
    )
    const items = rows.map((row): AttachmentPushItem => ({
      id: row.id,
      recordId: row.recordId,
      fileName: row.fileName,
      contentType: row.contentType,
      content: row.content.toString('base64'),
      companyCode: row.companyCode,
      createTime: this.format(row.createTime),
      updateTime: this.format(row.updateTime),
      createBy: row.createBy,
      updateBy: row.updateBy,
      version: Number(row.version),
      deleted,
    }))
    const last = rows.at(-1)
    // More may follow when the page was cut by count or by bytes.
    const full = last !== undefined && (last.candidates === limit || rows.length < last.candidates)
    return {
      items,
      bytes: rows.reduce((sum, row) => sum + Number(row.weight), 0),
      cursor: full ? { updateTime: last.updateTime.toISOString(), id: last.id } : undefined,
    }
  }

  /**
   * Park edition: applies a pushed attachment (or tombstone) by (companyCode, id), unless the held
   * version is newer or equal; answers the version held afterwards (the applied one, or the one
   * that was already there). 1006 when its record is not on the park (yet).
   */
  async applyPushed(resource: ResourceDef, item: PushedAttachment, db?: Queryable): Promise<number | null> {
    // Under the lock of the enterprise's pushes to this table (lockPushes), in the caller's
    // transaction (an Idempotency-Key's) or one of its own: the statement's snapshot, taken after
    // the lock, holds every earlier push of the enterprise, so the version answered is the one held.
    if (!db) return inTransaction(this.pool, (client) => this.applyPushed(resource, item, client))
    await lockPushes(db, attachmentTarget(resource).table, [item.companyCode])
    const table = `"${attachmentTarget(resource).table}"`
    const columns = [
      'id',
      'companyCode',
      'recordId',
      'fileName',
      'contentType',
      'size',
      'sha256',
      'content',
      'createTime',
      'updateTime',
      'createBy',
      'updateBy',
    ]
    const updated = columns.filter((column) => column !== 'id' && column !== 'companyCode')
    const { rows } = await this.run(resource, () =>
      db.query(
        // The enterprise's last push noted, as a page of records notes it.
        `WITH ${pushedBy('SELECT $2::text AS "companyCode"')}, applied AS (INSERT INTO ${table} (${columns.map((column) => `"${column}"`).join(', ')}, version, live, "deleteTime", sync_status, sync_time) ` +
          `VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, CASE WHEN $14 THEN NULL ELSE true END, ` +
          `CASE WHEN $14 THEN $10::timestamptz END, 'synced', ${NOW}) ` +
          `ON CONFLICT ("companyCode", id) DO UPDATE SET ${updated.map((column) => `"${column}" = CASE WHEN $14 THEN ${table}."${column}" ELSE EXCLUDED."${column}" END`).join(', ')}, ` +
          `version = EXCLUDED.version, live = EXCLUDED.live, "deleteTime" = EXCLUDED."deleteTime", sync_status = 'synced', sync_time = ${NOW} ` +
          `WHERE ${table}.version < EXCLUDED.version RETURNING version) ` +
          // Not applied: the version held, as the statement's snapshot saw it (looked up by key).
          `SELECT coalesce((SELECT version FROM applied), (SELECT version FROM ${table} WHERE "companyCode" = $2 AND id = $1)) AS held`,
        [
          item.id,
          item.companyCode,
          item.recordId,
          item.fileName,
          item.contentType,
          item.content.length,
          item.sha256,
          item.content,
          item.createTime,
          item.updateTime,
          item.createBy,
          item.updateBy,
          item.version,
          item.deleted,
        ],
      ),
    )
    return rows[0].held === null ? null : Number(rows[0].held)
  }

  /** A missing or deleted record (the composite foreign key) is 1006. */
  private async run(resource: ResourceDef, query: () => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    try {
      return await query()
    } catch (error) {
      const pgError = error as { code?: string; constraint?: string }
      if (pgError.code === '23503' && pgError.constraint === `${attachmentTarget(resource).table}_recordId_ref`) {
        throw new BusinessError(Code.missingReference, message('noLiveRecord', { resource: resource.key }))
      }
      throw error
    }
  }

  private toApi(row: AttachmentRow): AttachmentInfo {
    return {
      id: row.id,
      recordId: row.recordId,
      fileName: row.fileName,
      contentType: row.contentType,
      size: row.size,
      sha256: row.sha256,
      companyCode: row.companyCode,
      createTime: this.format(row.createTime),
      createBy: row.createBy,
      sync_status: row.sync_status,
      sync_time: row.sync_time ? this.format(row.sync_time) : null,
      sync_error: row.sync_error,
    }
  }
}
