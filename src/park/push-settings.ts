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
 * The park failing the push's calls. The backoff is pg-boss's alone: the retries of the
 * `park-push` job (1 s doubling up to SYNC_RETRY_DELAY_MAX_SECONDS). While it runs no write knocks,
 * and the probe, seeing a park come back, starts at most one drain between two runs of the job, so
 * that a flapping park is knocked on at the job's pace.
 */
export interface Outage {
  /** Why the last call failed (shown in /system/sync/status and /metrics). */
  reason: string
  /** The park refused the push's account itself (its password, its role): the records wait, pending. */
  accountRefused: boolean
  /** When the probe last started a drain in this outage, and when the retry job last ran (epoch ms; 0: never). */
  probeDrainAt: number
  jobRanAt: number
}
