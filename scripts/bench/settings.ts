// The bench's settings (environment), read once; a bad value stops the bench with exit code 2.
import path from 'node:path'

function setting(name: string, fallback: number, min: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw.replace(/_/g, ''))
  if (!Number.isFinite(value) || value < min) {
    console.error(`bench: ${name} must be a number >= ${min}, got "${raw}"`)
    process.exit(2)
  }
  return value
}

/** The row groups, in the order they run. */
export const GROUPS = [
  'add',
  'history',
  'park',
  'drain',
  'reads',
  'park-reads',
  'indicators',
  'park-indicators',
  'ingest',
  'alarms',
  'readings',
  'events',
] as const
export type Group = (typeof GROUPS)[number]

function groups(): Set<Group> {
  const raw = process.env.BENCH_ONLY
  if (!raw) return new Set(GROUPS)
  const names = raw.split(',').map((name) => name.trim())
  const unknown = names.filter((name) => !(GROUPS as readonly string[]).includes(name))
  if (unknown.length) {
    console.error(`bench: BENCH_ONLY takes row groups among ${GROUPS.join(', ')} (comma-separated), got "${unknown.join(', ')}"`)
    process.exit(2)
  }
  return new Set(names as Group[])
}

export const settings = {
  /** Seconds per load run. */
  seconds: setting('BENCH_SECONDS', 10, 1),
  connections: Math.round(setting('BENCH_CONNECTIONS', 64, 1)),
  rounds: Math.round(setting('BENCH_ROUNDS', 2, 1)),
  /**
   * Seconds of load before the measured runs, per load. The service's CPU per request keeps falling
   * for many seconds of load, the bare baseline's within a few: a short warm-up would pair a cold
   * service with a warm baseline.
   */
  warmupSeconds: setting('BENCH_WARMUP_SECONDS', 10, 0),
  /** Records of the enterprise's generated tables (reads). */
  rows: Math.round(setting('BENCH_ROWS', 1_000_000, 1_000)),
  /** Records of the park's generated table (park reads). */
  parkRows: Math.round(setting('BENCH_PARK_ROWS', 1_000_000, 1_000)),
  /** Inspection periods of the enterprise whose indicators are read (indicators; alarms: one per hundred). */
  indicatorRecords: Math.round(setting('BENCH_INDICATOR_RECORDS', 200_000, 1_000)),
  /** Inspection periods of the park's 100 enterprises (park indicators). */
  parkIndicatorRecords: Math.round(setting('BENCH_PARK_INDICATOR_RECORDS', 1_000_000, 1_000)),
  /** Probe alarms whose delays are measured (alarms). */
  alarms: Math.round(setting('BENCH_ALARMS', 200, 10)),
  /** Readings stored for the reads of readings (readings; the targets are set at 100 000 000). */
  readings: Math.round(setting('BENCH_READINGS', 10_000_000, 100_000)),
  /** Events stored for the feed's reads (events; the target is set at 10 000 000). */
  events: Math.round(setting('BENCH_EVENTS', 10_000_000, 10_000)),
  /** Pending records of the backlog (drain). */
  drainRecords: Math.round(setting('BENCH_DRAIN_RECORDS', 20_000, 100)),
  /** The deep page of the reads (pages of 20), reached by following `next`. */
  deepPage: Math.round(setting('BENCH_DEEP_PAGE', 10_000, 2)),
  /** Calls per read; the median counts. */
  readCalls: Math.round(setting('BENCH_READ_CALLS', 20, 1)),
  /** How long the records written may take to be synced before the bench calls it broken. */
  syncTimeoutSeconds: setting('BENCH_SYNC_TIMEOUT_SECONDS', 120, 1),
  groups: groups(),
  json: process.env.BENCH_JSON ? path.resolve(process.env.BENCH_JSON) : undefined,
  cpuProfDir: process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined,
}

export const wants = (group: Group) => settings.groups.has(group)
