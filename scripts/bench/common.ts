// What every part of the bench shares: progress lines (stderr), what broke (exit code 1), and the
// load in progress (stopped when something breaks or on Ctrl+C).
export const note = (line: string) => process.stderr.write(`# bench: ${line}\n`)

/** Something broke: listed at the end, exit code 1. */
export const failures: string[] = []

const stoppers = new Set<() => void>()

export const state = { interrupted: false }

/** Registers what stops the current load; the returned function unregisters it. */
export function onStop(stop: () => void): () => void {
  stoppers.add(stop)
  return () => stoppers.delete(stop)
}

export function fail(reason: string): void {
  failures.push(reason)
  for (const stop of stoppers) stop()
}

/** True once something broke or Ctrl+C: the remaining steps are skipped. */
export const halted = () => state.interrupted || failures.length > 0

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const median = (values: number[]): number => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
