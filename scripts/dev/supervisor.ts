// Runs the editions of `npm start` and the embedded PostgreSQL under them. Ctrl+C / SIGTERM stops
// the editions, then PostgreSQL. An edition that dies after it started (a crash, a kill from
// outside) is started again after a second, as a supervisor would; only a crash loop stops
// everything. An edition that cannot start at all (its one line says why) stops everything.
import type { ChildProcess } from 'node:child_process'
import readline from 'node:readline'
import type { EmbeddedPostgres } from './embedded-postgres/index.ts'
import { spawnMain } from './editions.ts'
import { exitCodeOf } from './signals.ts'

const CHILD_STOP_TIMEOUT_MS = 30_000
/** An edition that exits unexpectedly is started again after this long... */
const RESTART_DELAY_MS = 1_000
/** ...unless it already did so more than this many times within the window: then everything stops. */
const RESTART_LIMIT = 5
const RESTART_WINDOW_MS = 60_000

const say = (line: string) => process.stderr.write(`start: ${line}\n`)

export class Supervisor {
  db: EmbeddedPostgres | undefined
  /** Set by a signal or a failure; checked by the caller between start-up steps. */
  shuttingDown = false
  private readonly children = new Map<string, ChildProcess>()
  private readonly closed: Promise<void>[] = []
  private readonly exits = new Map<string, number[]>()
  private exitCode = 0
  private stopped: Promise<void> | undefined

  constructor() {
    process.on('exit', () => {
      for (const child of this.children.values()) child.kill('SIGTERM')
    })
  }

  /** A signal: stop in order; the same again: kill the editions. */
  onSignal(signal: NodeJS.Signals, repeated: boolean): void {
    if (repeated) {
      say(`${signal} again: killing the editions`)
      for (const child of this.children.values()) child.kill('SIGKILL')
      return
    }
    say(`${signal} received, stopping`)
    // While PostgreSQL starts, the caller sees shuttingDown and stops once it is up.
    if (this.db === undefined && this.children.size === 0) this.shuttingDown = true
    else void this.shutdown(0)
  }

  /** Stops the editions (SIGTERM, SIGKILL after a while), then PostgreSQL, and exits. */
  shutdown(code: number): Promise<void> {
    this.shuttingDown = true
    this.stopped ??= this.stopAll(code)
    return this.stopped
  }

  private async stopAll(code: number): Promise<void> {
    this.exitCode = code
    for (const child of this.children.values()) child.kill('SIGTERM')
    const killTimer = setTimeout(() => {
      say(`editions still running after ${CHILD_STOP_TIMEOUT_MS / 1000} s; killing them`)
      for (const child of this.children.values()) child.kill('SIGKILL')
    }, CHILD_STOP_TIMEOUT_MS)
    await Promise.all(this.closed)
    clearTimeout(killTimer)
    try {
      await this.db?.stop()
    } catch (err) {
      say(`stopping PostgreSQL failed: ${(err as Error).message}`)
      this.exitCode ||= 1
    }
    process.exit(this.exitCode)
  }

  /** Runs an edition, its output prefixed with its name; `restarted`: not its first start. */
  launch(name: string, env: NodeJS.ProcessEnv, restarted = false): void {
    const child = spawnMain(env, 'pipe')
    this.children.set(name, child)
    let started = false
    child.on('message', (message) => (started ||= message === 'ready'))
    const pipes = this.relay(child, `[${name}] `)
    const closed = new Promise<void>((resolve) => {
      child.once('error', (err) => {
        say(`cannot run the ${name} edition: ${err.message}`)
        this.children.delete(name)
        resolve()
        void this.shutdown(1)
      })
      child.once('exit', (code, signal) => {
        this.children.delete(name)
        void pipes.then(() => {
          resolve()
          this.onExit(name, env, exitCodeOf(code, signal), signal ?? `exit code ${code}`, started || restarted)
        })
      })
    })
    this.closed.push(closed)
  }

  private relay(child: ChildProcess, prefix: string): Promise<unknown> {
    const pipes = [
      [child.stdout!, process.stdout],
      [child.stderr!, process.stderr],
    ] as const
    return Promise.all(
      pipes.map(([stream, out]) => {
        const lines = readline.createInterface({ input: stream, crlfDelay: Infinity })
        lines.on('line', (line) => out.write(prefix + line + '\n'))
        return new Promise((resolve) => lines.once('close', resolve))
      }),
    )
  }

  private onExit(name: string, env: NodeJS.ProcessEnv, code: number, how: string, hadStarted: boolean): void {
    if (this.shuttingDown) return
    // It printed why it cannot start (one line): nothing to add, nothing to retry.
    if (!hadStarted) return void this.shutdown(code || 1)
    const now = Date.now()
    const recent = [...(this.exits.get(name) ?? []), now].filter((at) => now - at < RESTART_WINDOW_MS)
    this.exits.set(name, recent)
    if (recent.length > RESTART_LIMIT) {
      say(`the ${name} edition exited ${recent.length} times within a minute (last: ${how}); stopping`)
      return void this.shutdown(code || 1)
    }
    say(`the ${name} edition exited unexpectedly (${how}); starting it again`)
    setTimeout(() => {
      if (!this.shuttingDown) this.launch(name, env, true)
    }, RESTART_DELAY_MS).unref()
  }
}
