// Signals for the dev supervisors (scripts/start.ts).

// npm forwards the terminal's Ctrl+C to us on top of the one the terminal sends: one Ctrl+C can
// arrive twice. The same signal again within this time counts as one.
const SIGNAL_DEDUP_MS = 1500

// How often the parent is looked at (see onSignals).
const PARENT_WATCH_MS = 500

/**
 * Calls handler for a signal, except for a repeat of the same signal within SIGNAL_DEDUP_MS.
 * Run by npm (`npm start`: npm_lifecycle_event set), the parent going away before any signal came
 * counts as SIGTERM: npm sent SIGTERM (by a process manager, a container's stop, a test harness)
 * passes it to the shell running the script, which dies of it without passing it on. This process
 * would run on, re-parented, keeping the editions, the database and their ports. Run by hand
 * (`nohup node scripts/start.ts &`, say), a parent going away is left alone. After a signal (a
 * terminal's Ctrl+C reaches every process of the group, and npm may exit first) the stop under
 * way goes on as it is.
 */
export function onSignals(handler: (signal: NodeJS.Signals, repeated: boolean) => void): void {
  const last = new Map<NodeJS.Signals, number>()
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      const now = Date.now()
      if (now - (last.get(signal) ?? 0) < SIGNAL_DEDUP_MS) return
      const repeated = last.size > 0
      last.set(signal, now)
      handler(signal, repeated)
    })
  }
  if (!process.env.npm_lifecycle_event) return
  const parent = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(watch)
    if (last.size > 0) return
    last.set('SIGTERM', Date.now())
    handler('SIGTERM', false)
  }, PARENT_WATCH_MS).unref()
}

/** The exit code of a process ended by signal: 128 + its number. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code
  return 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : signal === 'SIGKILL' ? 9 : 1)
}

/** One line on stderr, then exit 1. */
export function fail(message: string): never {
  process.stderr.write(`start: ${message}\n`)
  process.exit(1)
}
