// A database read that a public page (/metrics, /health/ready) may trigger, made cheap whatever the
// callers do: one read at a time (callers meanwhile share it), and its result reused for ttlMs
// after it completed, by `clock` (the app's, which tests inject to move time). A failed read is not
// kept: the next caller tries afresh.

export function cachedRead<T>(read: () => Promise<T>, ttlMs: number, clock: () => number = Date.now): () => Promise<T> {
  let pending: Promise<T> | undefined
  let kept: { value: T; until: number } | undefined
  return () => {
    if (kept && clock() < kept.until) return Promise.resolve(kept.value)
    pending ??= read().then(
      (value) => {
        kept = { value, until: clock() + ttlMs }
        pending = undefined
        return value
      },
      (error: unknown) => {
        pending = undefined
        throw error
      },
    )
    return pending
  }
}

/** How long /metrics and /health/ready reuse a database read. */
export const PAGE_READ_TTL_MS = 1000
