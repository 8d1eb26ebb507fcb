// Writes that arrive while others like them are running wait and then go together: under load, one
// statement carries the writes of many requests (one round trip, one commit); alone, a write runs at
// once by itself. Each waiting write is answered as if it had run alone: the statement of several
// commits them all or none, and when the database refused it for one write's data (a taken unique
// value, a missing parent, a value it cannot hold) or for running together (a deadlock with another
// transaction), each is run again alone, in arrival order, so that each answer is its own write's.
import { sqlState } from './database-errors.ts'

export interface GatheringOptions<T, R> {
  /** Statements of this kind running at once; writes arriving beyond them wait and go together. */
  concurrency: number
  /** The most writes one statement carries. */
  most: number
  /** The most one statement carries by `size` (a write larger alone still goes, alone). */
  mostSize: number
  size: (item: T) => number
  /**
   * Writes of one key (two updates of one record) never go in one statement, nor in two running at
   * once: a later one waits until the statement carrying the earlier has ended, so that they apply
   * in arrival order. Writes of other keys that arrived after it may go before it.
   */
  key?: (item: T) => string
  alone: (item: T) => Promise<R>
  /** The answers in the order of `items`. */
  together: (items: T[]) => Promise<R[]>
}

interface Waiting<T, R> {
  item: T
  resolve: (answer: R) => void
  reject: (error: unknown) => void
}

export class GatheredWrites<T, R = void> {
  private waiting: Waiting<T, R>[] = []
  private running = 0
  /** The keys of the writes in running statements. */
  private readonly held = new Set<string>()
  private readonly options: GatheringOptions<T, R>

  constructor(options: GatheringOptions<T, R>) {
    this.options = options
  }

  run(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject })
      this.next()
    })
  }

  private next(): void {
    while (this.running < this.options.concurrency && this.waiting.length > 0) {
      const { writes, keys } = this.taken()
      if (writes.length === 0) return
      for (const key of keys) this.held.add(key)
      this.running++
      void this.write(writes).finally(() => {
        for (const key of keys) this.held.delete(key)
        this.running--
        this.next()
      })
    }
  }

  /**
   * The waiting writes the next statement carries, in arrival order: at least the first it may
   * carry, then up to both bounds, leaving for later a write whose key is held (by a running
   * statement, or by an earlier write of this one).
   */
  private taken(): { writes: Waiting<T, R>[]; keys: Set<string> } {
    const { most, mostSize, size, key } = this.options
    const taken: Waiting<T, R>[] = []
    const left: Waiting<T, R>[] = []
    const keys = new Set<string>()
    let total = 0
    let index = 0
    for (; index < this.waiting.length && taken.length < most; index++) {
      const write = this.waiting[index]
      const itsKey = key?.(write.item)
      if (itsKey !== undefined && (keys.has(itsKey) || this.held.has(itsKey))) {
        left.push(write)
        continue
      }
      const weight = size(write.item)
      if (taken.length > 0 && total + weight > mostSize) break
      total += weight
      taken.push(write)
      if (itsKey !== undefined) keys.add(itsKey)
    }
    this.waiting = left.length === 0 ? this.waiting.slice(index) : [...left, ...this.waiting.slice(index)]
    return { writes: taken, keys }
  }

  private async write(writes: Waiting<T, R>[]): Promise<void> {
    if (writes.length > 1) {
      try {
        const answers = await this.options.together(writes.map((write) => write.item))
        writes.forEach((write, i) => write.resolve(answers[i]))
        return
      } catch (error) {
        if (!refusedForItsDataOrCompany(error)) {
          for (const write of writes) write.reject(error)
          return
        }
      }
    }
    for (const write of writes) {
      try {
        write.resolve(await this.options.alone(write.item))
      } catch (error) {
        write.reject(error)
      }
    }
  }
}

/**
 * The database refused the statement for a value it carries (class 22 data exception, class 23
 * integrity constraint violation, class 54 program limit such as an index row too large): one of
 * the writes alone would be refused the same way. Or for the rows it held together (class 40: a
 * deadlock with a transaction holding some of them in another order), which a write alone, holding
 * one row, does not meet. Any other failure (the database out of reach, shutting down, too slow) is
 * every write's answer, as it would have been alone.
 */
function refusedForItsDataOrCompany(error: unknown): boolean {
  const state = sqlState(error)
  return state !== undefined && (state.startsWith('22') || state.startsWith('23') || state.startsWith('54') || state.startsWith('40'))
}
