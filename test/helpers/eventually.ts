// Waiting in tests, on conditions and events (never a bare sleep): `eventually` checks a condition
// that nothing announces (another process's state, over HTTP or SQL); `whenEmitted` waits on the
// events an object does announce, until its condition holds. `pace` is the one pause that waits
// for nothing: the rhythm of what a test inflicts.
import type { EventEmitter } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'

/** Waits until `condition` holds, checking every `everyMs`; fails after `timeoutMs`. */
export async function eventually<T>(
  condition: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; everyMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000)
  for (;;) {
    const value = await condition()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`)
    await delay(options.everyMs ?? 50)
  }
}

/** Resolves once `condition` holds: checked now, then after each `event` of `emitter`; fails after `timeoutMs`. */
export function whenEmitted(
  emitter: EventEmitter,
  event: string,
  condition: () => boolean,
  options: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!condition()) return
      done()
      resolve()
    }
    const timer = setTimeout(() => {
      done()
      reject(new Error(`timed out waiting for ${options.what ?? event}`))
    }, options.timeoutMs ?? 30_000)
    const done = () => {
      clearTimeout(timer)
      emitter.off(event, check)
    }
    emitter.on(event, check)
    check()
  })
}

/**
 * A pause that is part of what a test does, not a wait for anything: how often a fault strikes,
 * how soon a load tries again. Nothing may be synchronised by it (use `eventually` for that).
 */
export function pace(ms: number): Promise<void> {
  return delay(ms)
}
