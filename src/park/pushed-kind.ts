// What the push sends beside the resources' records (the supervision facts, ...): any table whose rows
// carry the push state, read in pages of pending rows and pushed by a call answered per item like
// records (settled, retried, swept and counted as records are).
import type { PendingPage, SyncTable } from '../store/sync-store.ts'
import type { PushResult } from './park-client.ts'

/** Where the next page of pending rows starts. */
export type PageCursor = NonNullable<PendingPage['cursor']>

/** A kind of row pushed beside the resources' records: its pending rows in pages, and their push. */
export interface PushedKind extends SyncTable {
  pending(
    limit: number,
    maxBytes: number,
    after?: PageCursor,
  ): Promise<{ items: { id: string; version: number }[]; cursor: PageCursor | undefined }>
  push(items: { id: string; version: number }[]): Promise<PushResult>
}
