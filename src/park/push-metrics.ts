// Push metrics, read on each scrape: records by resource and sync state, the oldest pending age,
// the push queue's jobs by state, and the push's calls, failures, records and probe drains since start.
import { Counter, Gauge, type Registry } from 'prom-client'
import type { ResourceRegistry } from '../resources/resource-registry.ts'
import { pushedTables } from '../store/pushed-facts.ts'
import type { SyncStore } from '../store/sync-store.ts'
import type { ParkPush } from './park-push.ts'
import type { ReconcileResult } from './reconcile.ts'
import { cachedRead, PAGE_READ_TTL_MS } from '../store/cached-read.ts'

export function registerPushMetrics(
  metrics: Registry,
  options: { sync: SyncStore; resources: ResourceRegistry; push: ParkPush | undefined; clock?: () => number },
): void {
  const { sync, resources, push, clock } = options
  // Scrapes cannot load the database: its reads are shared and kept a second.
  const counts = cachedRead(() => sync.counts(pushedTables(resources.pushed)), PAGE_READ_TTL_MS, clock)
  const queueDepth = push && cachedRead(() => push.queueDepth(), PAGE_READ_TTL_MS, clock)
  // One query a scrape (shared) for both: records by state, and the oldest pending age. Each gauge
  // reads it in its own collect: a scrape collects every gauge at once, so one setting the other
  // would leave it the previous scrape's value.
  const records = new Gauge({
    name: 'sync_records',
    help: 'Records and attachments (tombstones included) by resource (`riskUnit`, `riskUnit/attachment`, ...) and sync state (pending, synced, failed).',
    labelNames: ['resource', 'state'] as const,
    registers: [metrics],
    async collect() {
      for (const resource of await counts()) {
        for (const state of ['pending', 'synced', 'failed'] as const) records.set({ resource: resource.resource, state }, resource[state])
      }
    },
  })
  new Gauge({
    name: 'sync_oldest_pending_seconds',
    help: 'Age of the oldest write still waiting to be pushed (0 when none).',
    registers: [metrics],
    async collect() {
      this.set(Math.max(0, ...(await counts()).map((resource) => resource.oldestPendingSeconds ?? 0)))
    },
  })
  if (!push) return
  const queue = new Gauge({
    name: 'park_push_jobs',
    help: 'Jobs of the park-push queue by state (queued, active, failed).',
    labelNames: ['state'] as const,
    registers: [metrics],
    async collect() {
      const depth = await queueDepth!()
      if (depth) for (const [state, count] of Object.entries(depth)) queue.set({ state }, count)
    },
  })
  const streams = new Gauge({
    name: 'park_push_backlog',
    help: 'What the push carries besides records, waiting to be pushed (`readingMinutes`: points with minutes of readings not yet pushed).',
    labelNames: ['stream'] as const,
    registers: [metrics],
    async collect() {
      for (const stream of push.companions.streams) streams.set({ stream: stream.name }, await stream.backlog())
    },
  })
  registerPushCounters(metrics, push)
  registerRecoveryMetrics(metrics, sync, resources, push, clock)
}

/** The push's calls, failures, records and probe drains since start. */
function registerPushCounters(metrics: Registry, push: ParkPush): void {
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [metrics],
      collect() {
        this.reset()
        this.inc(read())
      },
    })
  counter('park_push_calls_total', 'Push calls made to the park.', () => push.stats.calls)
  counter(
    'park_push_call_failures_total',
    'Push calls that failed (park unreachable, timed out or answering an error).',
    () => push.stats.failedCalls,
  )
  counter('park_push_records_acknowledged_total', 'Records the park acknowledged.', () => push.stats.acknowledged)
  const refusedHelp = 'Records the park refused or holds at another version than pushed (marked failed with the reason).'
  counter('park_push_records_refused_total', refusedHelp, () => push.stats.refused)
  counter(
    'park_push_probe_drains_total',
    'Drains started at once because the park answered again after being unreachable.',
    () => push.stats.probeDrains,
  )
}

/** What is stranded and what reconciliation found. */
function registerRecoveryMetrics(
  metrics: Registry,
  sync: SyncStore,
  resources: ResourceRegistry,
  push: ParkPush,
  clock: (() => number) | undefined,
): void {
  const exhausted = cachedRead(
    () => sync.exhausted(pushedTables(resources.pushed), push.settings.failedRequeueRounds),
    PAGE_READ_TTL_MS,
    clock,
  )
  new Gauge({
    name: 'sync_push_account_refused',
    help: "1 while the park refuses the push's account itself (its password, its role): the records wait, pending, until it is fixed.",
    registers: [metrics],
    collect() {
      this.set(push?.callFailure()?.accountRefused ? 1 : 0)
    },
  })
  new Gauge({
    name: 'sync_records_failed_exhausted',
    help: 'Failed records and attachments the sweep no longer queues again (SYNC_FAILED_REQUEUE_ROUNDS reached): they wait for a retry or a reconciliation.',
    registers: [metrics],
    async collect() {
      this.set(await exhausted())
    },
  })
  const reconciler = push.reconciler
  if (!reconciler) return
  const lastReconciliation = cachedRead(() => reconciler.last(), PAGE_READ_TTL_MS, clock)
  // The last reconciliation: when it ran, and what it found. Each gauge reads it in
  // its own collect (one read, shared): a scrape collects them all at once, so one gauge setting
  // the others would leave them the previous scrape's values.
  const fromLast = (name: string, help: string, value: (last: ReconcileResult | null) => number) =>
    new Gauge({
      name,
      help,
      registers: [metrics],
      async collect() {
        this.set(value(await lastReconciliation()))
      },
    })
  fromLast(
    'sync_reconcile_last_differences',
    'Differences between the enterprise and the park found by the last reconciliation.',
    (last) => last?.differences ?? 0,
  )
  fromLast('sync_reconcile_last_timestamp_seconds', 'When the last reconciliation with the park ran (0: never).', (last) =>
    last ? Math.floor(Date.parse(last.time) / 1000) : 0,
  )
  fromLast('sync_reconcile_last_failed', '1 when the last reconciliation could not complete (the park unreachable, say).', (last) =>
    last?.error ? 1 : 0,
  )
  fromLast('sync_reconcile_last_repushed', 'Records the last reconciliation pushed again.', (last) => last?.repushed ?? 0)
}
