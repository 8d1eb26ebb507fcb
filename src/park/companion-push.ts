// What the push carries beside the resources' records and their attachments, drained by
// push-drain.ts within the push's drains (so through the same loop, backoff, probe and sweep of
// park-push.ts):
// - the companion kinds: any table whose rows carry the push state (the supervision facts: alarms,
//   periods, calendars, the zone), read in pages of pending rows and pushed by a call answered per
//   item, each page settled, retried and counted as a page of records is. They go after the live
//   records they name;
// - the streams: what is pushed without a push state of its own (the minutes of readings,
//   minute-push.ts), drained after everything else.
import type { PendingPage, SyncTable } from '../store/sync-store.ts'
import type { PushResult } from './park-client.ts'
import type { PushSettings } from './push-settings.ts'

/** Where the next page of pending rows starts. */
export type PageCursor = NonNullable<PendingPage['cursor']>

/** A pending row as pushed: which one, and at which version. */
type PendingItem = { id: string; version: number }

/** A kind of row pushed beside the resources' records: its pending rows in pages, and their push. */
export interface PushedKind extends SyncTable {
  pending(limit: number, maxBytes: number, after?: PageCursor): Promise<{ items: PendingItem[]; cursor: PageCursor | undefined }>
  push(items: PendingItem[]): Promise<PushResult>
}

/** What the push carries without a push state per row: drained after the rest, through the same outage handling. */
export interface PushStream {
  /** How metrics name it (`readingMinutes`). */
  readonly name: string
  /** Whether anything waits to be pushed. */
  waiting(): Promise<boolean>
  /** How many items wait to be pushed. */
  backlog(): Promise<number>
  /**
   * Pushes everything waiting; throws when a call was not judged by the park (nothing is forgotten
   * then). A stream that pushes at most so often may hold back: it answers in how many
   * milliseconds to drain it again.
   */
  drain(): Promise<number | undefined>
}

/**
 * How the records' drain pushes a table's pending rows: pages read in order, pushed and settled
 * (per item, by the version the park holds); throws when a call failed.
 */
export type PageDrain = (
  target: SyncTable,
  read: (cursor?: PageCursor) => Promise<{ items: PendingItem[]; cursor: PageCursor | undefined }>,
  send: (items: PendingItem[]) => Promise<PushResult>,
) => Promise<void>

export class CompanionPush {
  readonly kinds: readonly PushedKind[]
  readonly streams: readonly PushStream[]
  /** A wake to come for a stream that held back. */
  private wakeTimer: NodeJS.Timeout | undefined

  constructor(options: { kinds?: readonly PushedKind[]; streams?: readonly PushStream[] } = {}) {
    this.kinds = options.kinds ?? []
    this.streams = options.streams ?? []
  }

  /** The kinds' rows among `pending` (the tables holding pending rows), kind by kind, in pages pushed by `drainPages`. */
  async drainKinds(
    pending: ReadonlySet<string>,
    settings: Pick<PushSettings, 'batchSize' | 'batchBytes'>,
    drainPages: PageDrain,
  ): Promise<void> {
    const { batchSize, batchBytes } = settings
    for (const kind of this.kinds)
      if (pending.has(kind.table))
        await drainPages(
          kind,
          (cursor) => kind.pending(batchSize, batchBytes, cursor),
          (items) => kind.push(items),
        )
  }

  /**
   * Every stream, one after the other; throws when a call was not judged by the park. When a
   * stream held back, `wake` is called once it wants to be drained again.
   */
  async drainStreams(wake: () => void): Promise<void> {
    for (const stream of this.streams) {
      const wait = await stream.drain()
      if (wait !== undefined && !this.wakeTimer) {
        this.wakeTimer = setTimeout(() => {
          this.wakeTimer = undefined
          wake()
        }, wait)
        this.wakeTimer.unref()
      }
    }
  }

  /** Leaves no wake behind. */
  stop(): void {
    clearTimeout(this.wakeTimer)
    this.wakeTimer = undefined
  }

  /** Whether any stream has something waiting. */
  async streamsWaiting(): Promise<boolean> {
    for (const stream of this.streams) if (await stream.waiting()) return true
    return false
  }
}
