// Writes that arrive while others like them are running wait and then go together: under load, one
// statement carries the adds of many requests (one round trip, one commit); alone, a write runs at
// once by itself. Each waiting write is answered as if it had run alone: the statement of several
// commits them all or none, and when the database refused it for one write's data (a taken unique
// value, a missing parent, a value it cannot hold), each is run again alone, in arrival order, so
// that each answer is its own write's.
import { sqlState } from './database-errors.ts'

export interface GatheringOptions<T> {
  /** Statements of this kind running at once; writes arriving beyond them wait and go together. */
  concurrency: number
  /** The most writes one statement carries. */
  most: number
  /** The most one statement carries by `size` (a write larger alone still goes, alone). */
  mostSize: number
  size: (item: T) => number
  alone: (item: T) => Promise<void>
  together: (items: T[]) => Promise<void>
}

interface Waiting<T> {
  item: T
  resolve: () => void
  reject: (error: unknown) => void
}

export class GatheredWrites<T> {
  private waiting: Waiting<T>[] = []
  private running = 0
  private readonly options: GatheringOptions<T>

  constructor(options: GatheringOptions<T>) {
    this.options = options
  }

  run(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject })
      this.next()
    })
  }

  private next(): void {
    while (this.running < this.options.concurrency && this.waiting.length > 0) {
      const writes = this.waiting.splice(0, this.taken())
      this.running++
      void this.write(writes).finally(() => {
        this.running--
        this.next()
      })
    }
  }

  /** How many of the waiting writes the next statement carries: at least one, then up to both bounds. */
  private taken(): number {
    const { most, mostSize, size } = this.options
    let count = 1
    let total = size(this.waiting[0].item)
    while (count < Math.min(most, this.waiting.length)) {
      total += size(this.waiting[count].item)
      if (total > mostSize) break
      count++
    }
    return count
  }

  private async write(writes: Waiting<T>[]): Promise<void> {
    if (writes.length > 1) {
      try {
        await this.options.together(writes.map((write) => write.item))
        for (const write of writes) write.resolve()
        return
      } catch (error) {
        if (!refusedForItsData(error)) {
          for (const write of writes) write.reject(error)
          return
        }
      }
    }
    for (const write of writes) {
      try {
        await this.options.alone(write.item)
        write.resolve()
      } catch (error) {
        write.reject(error)
      }
    }
  }
}

/**
 * The database refused the statement for a value it carries (class 22 data exception, class 23
 * integrity constraint violation, class 54 program limit such as an index row too large): one of
 * the writes alone would be refused the same way. Any other failure (the database out of reach,
 * shutting down, too slow) is every write's answer, as it would have been alone.
 */
function refusedForItsData(error: unknown): boolean {
  const state = sqlState(error)
  return state !== undefined && (state.startsWith('22') || state.startsWith('23') || state.startsWith('54'))
}
