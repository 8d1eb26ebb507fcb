// One drain of the park push: what it pushes, and in which order. The loop that runs the drains
// one after the other (wakes, the debounce, the retry job and its backoff, the outage, the probe,
// the sweep) is park-push.ts.
// - a drain pushes every pending record: live ones parents first (resource by resource), then the
//   companion kinds and attachments (after their records), then deleted ones children first, then
//   the streams (companion-push.ts drains what goes beside the records). Within a resource, pages
//   (bounded by count and by bytes) are read in order and up to SYNC_PUSH_CONCURRENCY of them are
//   pushed and settled at once: no resource references itself, so no page holds a parent of
//   another page of its resource, and a resource starts only once the previous one is settled;
// - each item is settled by the park's answer (synced only for the version the park says it
//   holds, failed with its refusal); a call that fails is recorded on its items and ends the drain
//   by throwing, for the loop to retry.

import type { ResourceDef, ResourceRegistry } from '../resources/resource-registry.ts'
import { type AttachmentStore, attachmentTarget, withAttachments } from '../store/attachment-store.ts'
import type { SyncStore, SyncTable } from '../store/sync-store.ts'
import type { CompanionPush, PageCursor } from './companion-push.ts'
import { type AttachmentPushAnswer, type ParkClient, ParkUnavailable, type PushResult } from './park-client.ts'
import type { PushSettings } from './push-settings.ts'

/** Since start: calls to the park, failed calls, records acknowledged, records refused. */
export interface DrainStats {
  calls: number
  failedCalls: number
  acknowledged: number
  refused: number
}

/** What a drain works with; `stats` is the push's own object, the drain adds to its counts. */
export interface DrainParts {
  sync: SyncStore
  attachments: AttachmentStore
  registry: ResourceRegistry
  client: ParkClient
  settings: PushSettings
  companions: CompanionPush
  stats: DrainStats
  /** Asks the loop for another drain (a stream that held back wants one later). */
  wake: () => void
  /** Whether writes came since this drain started (attachments then yield to them after a page). */
  wokenMeanwhile: () => boolean
}

export class PushDrain {
  private readonly parts: DrainParts

  constructor(parts: DrainParts) {
    this.parts = parts
  }

  /** Every table whose rows are pushed: records, attachments, the companion kinds. */
  targets(): SyncTable[] {
    return [...withAttachments(this.parts.registry.pushed), ...this.parts.companions.kinds]
  }

  /**
   * Live records parents first, then the companion kinds (after the records they name), then live
   * attachments (after their records), then deleted attachments, then deleted records children
   * first (a record's attachments go before it), then the streams. Only the tables holding pending
   * rows are read (one statement finds them).
   */
  async drainAll(): Promise<void> {
    await this.drainPending()
    await this.parts.companions.drainStreams(this.parts.wake)
  }

  private async drainPending(): Promise<void> {
    const all = this.parts.registry.pushed
    const pending = await this.parts.sync.pendingTables(this.targets())
    if (pending.size === 0) return
    for (const resource of all) if (pending.has(resource.table)) await this.drainRecords(resource, false)
    await this.parts.companions.drainKinds(pending, this.parts.settings, (target, read, send) => this.drainPages(target, read, send))
    let attachmentsDone = true
    for (const deleted of [false, true])
      for (const resource of all)
        if (pending.has(attachmentTarget(resource).table))
          attachmentsDone = (await this.drainAttachments(resource, deleted)) && attachmentsDone
    // Deleted records wait for every attachment to be pushed (a record's attachments go before it).
    if (!attachmentsDone) return
    for (const resource of [...all].reverse()) if (pending.has(resource.table)) await this.drainRecords(resource, true)
  }
  /** Every pending record of a resource (live or deleted). */
  private async drainRecords(resource: ResourceDef, deleted: boolean): Promise<void> {
    const { batchSize, batchBytes } = this.parts.settings
    await this.drainPages(
      resource,
      (cursor) => this.parts.sync.pending(resource, deleted, batchSize, batchBytes, cursor),
      (items) => this.parts.client.push(resource, items),
    )
  }

  /** Pages read in order, up to `concurrency` of them pushed and settled at once. */
  private async drainPages<Item extends { id: string; version: number }>(
    target: SyncTable,
    read: (cursor?: PageCursor) => Promise<{ items: Item[]; cursor: PageCursor | undefined }>,
    send: (items: Item[]) => Promise<PushResult>,
  ): Promise<void> {
    const { concurrency } = this.parts.settings
    const inFlight = new Set<Promise<void>>()
    let failure: { error: unknown } | undefined
    let page = await read()
    while (page.items.length > 0 && !failure) {
      const items = page.items
      const pushed: Promise<void> = this.pushPage(target, items, () => send(items))
        .catch((error: unknown) => void (failure ??= { error }))
        .finally(() => inFlight.delete(pushed))
      inFlight.add(pushed)
      if (!page.cursor) break
      if (inFlight.size >= concurrency) await Promise.race(inFlight)
      if (failure) break
      page = await read(page.cursor)
    }
    await Promise.all(inFlight)
    if (failure) throw failure.error
  }

  /**
   * Pending attachments, in pages bounded by count and by bytes (so many large files pending never
   * sit in memory at once), each pushed by its own /system/push/attachment call. The park's
   * judgement is settled on the attachment like a record's (synced only when the park holds the
   * pushed version, failed with the reason otherwise, a refusal included); only a failed call throws.
   * When writes came meanwhile, it stops after a page (answering false) so that records written
   * behind large files are not held up by them: the next drain goes on with the rest.
   */
  private async drainAttachments(resource: ResourceDef, deleted: boolean): Promise<boolean> {
    const { batchSize, batchBytes } = this.parts.settings
    let page = await this.parts.attachments.pending(resource, deleted, batchSize, batchBytes)
    while (page.items.length > 0) {
      for (const item of page.items) await this.pushAttachment(resource, item, page.items)
      if (!page.cursor) break
      if (this.parts.wokenMeanwhile()) return false
      page = await this.parts.attachments.pending(resource, deleted, batchSize, batchBytes, page.cursor)
    }
    return true
  }

  private async pushAttachment(
    resource: ResourceDef,
    item: Awaited<ReturnType<AttachmentStore['pending']>>['items'][number],
    page: { id: string; version: number }[],
  ): Promise<void> {
    const target = attachmentTarget(resource)
    this.parts.stats.calls++
    let answer: AttachmentPushAnswer
    try {
      answer = await this.parts.client.pushAttachment(resource, item)
    } catch (error) {
      await this.recordFailedCall(target, page.slice(page.indexOf(item)), error)
      throw error
    }
    // The version the park holds now (synced only when it is the pushed one), or the refusal.
    const error =
      answer.code !== 0
        ? `park refused with ${answer.code}: ${answer.msg}`
        : answer.held === undefined
          ? 'the park answered nothing for this attachment'
          : null
    await this.settle(target, [{ id: item.id, version: item.version, held: answer.held ?? null, error }])
  }

  /** Pushes one page (by `send`) and settles it: throws only when the call itself failed (to be retried with backoff). */
  private async pushPage(target: SyncTable, items: { id: string; version: number }[], send: () => Promise<PushResult>): Promise<void> {
    let result: PushResult
    this.parts.stats.calls++
    try {
      result = await send()
    } catch (error) {
      await this.recordFailedCall(target, items, error)
      throw error
    }
    // Per item: the version the park holds now (synced only when it is the pushed one), or the refusal.
    const held = new Map((result.held ?? []).map((entry) => [entry.index, entry.version]))
    const refused = new Map(result.failed.map((failure) => [failure.index, `park refused with ${failure.code}: ${failure.reason}`]))
    const outcomes = items.map((item, index) => ({
      id: item.id,
      version: item.version,
      held: held.get(index) ?? null,
      error: refused.get(index) ?? (held.has(index) ? null : 'the park answered nothing for this record'),
    }))
    await this.settle(target, outcomes)
  }

  /** Settles the park's answer for each item: synced only when it holds the pushed version, failed with its refusal. */
  private async settle(target: SyncTable, outcomes: Parameters<SyncStore['settle']>[1]): Promise<void> {
    const settled = await this.parts.sync.settle(target, outcomes)
    this.parts.stats.acknowledged += settled.synced
    this.parts.stats.refused += settled.failed
  }

  /**
   * A call that failed: its items are recorded with the reason, each failed call counted as an
   * attempt (a record is failed once it took more than SYNC_RETRY_LIMIT), except when the park
   * refused the account itself (its password, its role): the records stay pending, retried with
   * backoff, until the account is fixed.
   */
  private async recordFailedCall(target: SyncTable, items: { id: string; version: number }[], error: unknown): Promise<void> {
    this.parts.stats.failedCalls++
    const reason =
      error instanceof ParkUnavailable ? error.message : `push failed: ${error instanceof Error ? error.message : String(error)}`
    const attemptsAllowed = error instanceof ParkUnavailable && error.accountRefused ? null : this.parts.settings.retryLimit + 1
    const failed = items.map((item) => ({ id: item.id, version: item.version, error: reason }))
    await this.parts.sync.recordFailure(target, failed, attemptsAllowed)
  }
}
