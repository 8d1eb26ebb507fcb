// The process's background work: ONE pg-boss (schema `pgboss`, one small pool) that every scheduled
// or retried task registers its queue with: the park push's retries, sweep and reconciliation
// (park/park-push.ts), housekeeping (store/housekeeping.ts) and history retention
// (operations/history-retention.ts). pg-boss runs each schedule once across the instances sharing
// the database, retries failed jobs with backoff, and reclaims jobs whose process died.
import { PgBoss, type Queue, type WorkHandler, type WorkOptions } from 'pg-boss'

export interface BackgroundOptions {
  databaseUrl: string
  log: { warn(details: object, text: string): void }
  /** How often pg-boss's supervisor looks for jobs whose process died (SYNC_SUPERVISE_SECONDS). */
  superviseSeconds: number
  /**
   * Queues jobs and nothing else (the delivery thread's, beside the process's own background): no
   * supervision, schedules or migration, one connection.
   */
  queueOnly?: boolean
}

export class Background {
  readonly boss: PgBoss
  private started: Promise<unknown> | undefined
  private readonly queues: string[] = []

  constructor(options: BackgroundOptions) {
    this.boss = new PgBoss({
      connectionString: options.databaseUrl,
      schema: 'pgboss',
      // Jobs are few (retries, schedules): a small pool serves every queue.
      max: options.queueOnly ? 1 : 3,
      useListenNotify: true,
      superviseIntervalSeconds: options.superviseSeconds,
      ...(options.queueOnly && { supervise: false, schedule: false, migrate: false }),
    })
    this.boss.on('error', (error) => options.log.warn({ err: error }, 'pg-boss'))
  }

  /** Starts pg-boss once, whoever asks first. */
  async start(): Promise<PgBoss> {
    this.started ??= this.boss.start()
    await this.started
    return this.boss
  }

  /** A queue, created unless it exists (an earlier run, another instance). */
  async createQueue(name: string, options: Omit<Queue, 'name'> = {}): Promise<PgBoss> {
    const boss = await this.start()
    await boss.createQueue(name, options).catch(ignoreExisting)
    return boss
  }

  /** A queue (created unless it exists), with its worker and, when given, its schedule (cron). */
  async queue<Data extends object>(
    name: string,
    options: Omit<Queue, 'name'> & { cron?: string; work?: WorkOptions },
    handler: WorkHandler<Data>,
  ): Promise<void> {
    const { cron, work, ...queue } = options
    const boss = await this.createQueue(name, queue)
    if (cron) await boss.schedule(name, cron)
    await boss.work<Data>(name, work ?? {}, handler)
    this.queues.push(name)
  }

  /** Stops taking this queue's jobs, after the one in progress (if any) finished. */
  async release(name: string): Promise<void> {
    if (this.queues.includes(name)) await this.boss.offWork(name, { wait: true })
  }

  /** Ready when pg-boss is installed and this queue exists. */
  async hasQueue(name: string): Promise<boolean> {
    return (await this.boss.getQueue(name).catch(() => null)) !== null
  }

  /** Lets the jobs in progress finish (graceful), then closes pg-boss's pool. */
  async stop(): Promise<void> {
    if (!this.started) return
    await this.started.catch(() => undefined)
    await this.boss.stop({ graceful: true, timeout: 20_000 })
  }
}

function ignoreExisting(error: Error): void {
  if (!/already exists/i.test(error.message)) throw error
}
