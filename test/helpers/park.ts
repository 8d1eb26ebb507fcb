// A real park edition, as its own process (node src/main.ts, EDITION=park), that a test can stop,
// kill and start again on the same port and database.
import { spawn, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { ADMIN_PASSWORD, freshDatabase } from './service.ts'

interface TestContext {
  after(fn: () => unknown): void
}

export interface ParkProcess {
  url: string
  databaseUrl: string
  start(): Promise<void>
  /** SIGTERM (graceful) or SIGKILL, and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url))

export async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Waits until `condition` holds, checking every `everyMs`; fails after `timeoutMs`. */
export async function eventually<T>(condition: () => Promise<T | undefined | false>, options: { timeoutMs?: number; everyMs?: number; what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000)
  for (;;) {
    const value = await condition()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`)
    await delay(options.everyMs ?? 50)
  }
}

export async function startParkProcess(t: TestContext, env: Record<string, string> = {}): Promise<ParkProcess> {
  const databaseUrl = await freshDatabase(t)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  let child: ChildProcess | undefined
  let exited: Promise<void> | undefined

  const start = async () => {
    child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, NODE_OPTIONS: '', EDITION: 'park', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, ADMIN_PASSWORD, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const current = child
    exited = new Promise((resolve) => current.once('exit', () => resolve()))
    await eventually(async () => (await fetch(`${url}/health/ready`).catch(() => undefined))?.ok, { what: 'the park edition to be ready' })
  }
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (!child || child.exitCode !== null) return
    child.kill(signal)
    await exited
  }
  t.after(() => stop('SIGKILL'))
  await start()
  return { url, databaseUrl, start, stop }
}
