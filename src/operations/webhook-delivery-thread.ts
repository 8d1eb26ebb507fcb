// Webhook deliveries run in a worker thread of their own (docs/events.md, "A delivery"): the
// process's pg-boss takes the delivery jobs and hands them to the thread, which reads, sends and
// settles them on its own pool and answers when each batch is done (a batch that fails there is
// retried by pg-boss, as it would be here). Off the thread that answers requests, deliveries no
// longer wait behind the requests under load, nor requests behind a delivery's work (its JSON, its
// signature, its connections). The thread starts with the first job, so an instance with no
// webhook endpoint has none.
import { Worker } from 'node:worker_threads'
import type { FastifyBaseLogger } from 'fastify'
import type pg from 'pg'
import type { Background } from '../store/background.ts'
import { type DatabaseOptions, inTransaction, type Queryable } from '../store/pg-pool.ts'
import type { Queued, WebhookStore } from '../store/webhook-store.ts'
import type { WireFields } from './event-wire.ts'
import { DELIVERY_QUEUE, type DeliveryJob, queueDeliveries } from './webhook-delivery.ts'

/** What the thread is started with: plain data. */
export interface ThreadData {
  databaseUrl: string
  pool: DatabaseOptions
  /** The deployment's JWT secret, from which the signing secrets' key derives (webhook-secrets.ts). */
  secret: string
  allowPrivate: boolean
  wireFields: WireFields
  timeZone: string
}

export type ToThread = { kind: 'jobs'; id: number; jobs: DeliveryJob[] } | { kind: 'stop' }
export type FromThread =
  { kind: 'done'; id: number; error?: string } | { kind: 'log'; level: 'info' | 'warn'; details: object; text: string }

/** How often each instance sweeps for a waiting delivery left behind (WebhookStore.stranded). */
const SWEEP_MS = 5 * 60_000
/** The first sweep, this long after the start. */
const FIRST_SWEEP_MS = 5000
/** How long the thread has to close its pools once told to stop. */
const STOP_MS = 10_000

export class DeliveryThread {
  private readonly background: Background
  private readonly pool: pg.Pool
  private readonly store: WebhookStore
  private readonly data: () => Promise<ThreadData>
  private readonly log: FastifyBaseLogger
  private worker: Promise<Worker> | undefined
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>()
  private nextId = 0
  private sweeps: NodeJS.Timeout | undefined
  private stopped = false

  /** `pool` and `store`: the process's background pool, for the sweep. */
  constructor(options: {
    background: Background
    pool: pg.Pool
    store: WebhookStore
    data: () => Promise<ThreadData>
    log: FastifyBaseLogger
  }) {
    this.background = options.background
    this.pool = options.pool
    this.store = options.store
    this.data = options.data
    this.log = options.log
  }

  async start(): Promise<void> {
    this.sweeps = setTimeout(() => this.sweep(), FIRST_SWEEP_MS)
    this.sweeps.unref()
    await this.background.queue<DeliveryJob>(
      DELIVERY_QUEUE,
      // A process that died mid-job: its job is taken again once expired. Jobs come in batches
      // (fetched again at once while they come full), their deliveries taken together.
      {
        expireInSeconds: 30,
        retryLimit: 20,
        retryDelay: 5,
        work: { localConcurrency: 4, batchSize: 8, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
      },
      async (jobs) => this.run(jobs.map(({ data }) => data)),
    )
  }

  /** Takes no more jobs, lets the thread finish those it has, and ends it. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.sweeps)
    await this.background.release(DELIVERY_QUEUE)
    const worker = await this.worker?.catch(() => undefined)
    if (!worker) return
    const exited = new Promise((resolve) => worker.once('exit', resolve))
    worker.postMessage({ kind: 'stop' } satisfies ToThread)
    // Its attempts under way end unanswered as it closes its connections; should anything still
    // hold it after that, it is ended.
    let timer: NodeJS.Timeout | undefined
    const late = new Promise((resolve) => (timer = setTimeout(resolve, STOP_MS, 'late')))
    if ((await Promise.race([exited, late])) === 'late') await worker.terminate()
    clearTimeout(timer)
  }

  /** Queues the jobs of these attempts in the transaction of `db` (they go once it commits). */
  queue(db: Queryable, due: Queued[]): Promise<void> {
    return queueDeliveries(this.background, db, due)
  }

  /** Hands a batch of jobs to the thread (started if need be); resolves once they are done there. */
  private async run(jobs: DeliveryJob[]): Promise<void> {
    this.worker ??= this.spawn().catch((error: unknown) => {
      this.worker = undefined
      throw error
    })
    const worker = await this.worker
    // Ended meanwhile (its threadId is -1 then): pg-boss retries the batch, and the next starts another.
    if (worker.threadId < 0) throw new Error('the webhook delivery thread ended')
    const id = this.nextId++
    await new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      worker.postMessage({ kind: 'jobs', id, jobs } satisfies ToThread)
    })
  }

  private async spawn(): Promise<Worker> {
    const worker = new Worker(new URL('./webhook-delivery-worker.ts', import.meta.url), { workerData: await this.data() })
    worker.on('message', (message: FromThread) => {
      if (message.kind === 'log') this.log[message.level](message.details, message.text)
      else {
        const waiting = this.pending.get(message.id)
        this.pending.delete(message.id)
        if (message.error === undefined) waiting?.resolve()
        else waiting?.reject(new Error(message.error))
      }
    })
    worker.on('error', (error) => this.log.error({ err: error }, 'the webhook delivery thread failed'))
    // Gone (stopped, or failed): its batches unfinished are retried by pg-boss, and the next batch starts another.
    worker.once('exit', () => {
      this.worker = undefined
      for (const waiting of this.pending.values()) waiting.reject(new Error('the webhook delivery thread ended'))
      this.pending.clear()
    })
    return worker
  }

  /**
   * Queues the first waiting delivery of a record whose deliveries have none under way, every
   * SWEEP_MS. Planning and settling take turns, so none should be: the sweep, which reads every
   * delivery waiting, is a safety net.
   */
  private sweep(): void {
    void inTransaction(this.pool, async (client) => this.queue(client, await this.store.stranded(client)))
      .catch((error: unknown) => this.log.warn({ err: error }, 'the webhook sweep failed'))
      .finally(() => {
        if (this.stopped) return
        this.sweeps = setTimeout(() => this.sweep(), SWEEP_MS)
        this.sweeps.unref()
      })
  }
}
