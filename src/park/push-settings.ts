// What the park push is configured with (SYNC_*, PARK_TIMEOUT_MS), the pg-boss queues it works
// through, and what it knows of a park failing its calls.
import type { Config } from '../config.ts'

export const PUSH_QUEUE = 'park-push'
export const DEAD_QUEUE = 'park-push-dead'
export const SWEEP_QUEUE = 'park-sweep'
export const RECONCILE_QUEUE = 'park-reconcile'

/** The push's settings (SYNC_*), as config.ts parses them. */
export type PushSettings = Omit<Config['push'], 'superviseSeconds' | 'parkTimeoutMs'>

/**
 * The park failing the push's calls. pg-boss's retries of the `park-push` job are the backoff
 * (1 s doubling up to SYNC_RETRY_DELAY_MAX_SECONDS); `backoffMs` and `until` follow the same
 * schedule in this process, so that what knocks besides the job (a fresh job, a write, the probe
 * seeing a flapping park answer) waits as long as the job's next retry would.
 */
export interface Outage {
  /** Why the last call failed (shown in /system/sync/status and /metrics). */
  reason: string
  /** The park refused the push's account itself (its password, its role): the records wait, pending. */
  accountRefused: boolean
  backoffMs: number
  /** Nothing but the retry job and people asking knocks before then (epoch milliseconds). */
  until: number
  /** When the probe last started a drain in this outage (0: none). */
  probeDrainAt: number
}
