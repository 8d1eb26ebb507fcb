// A postmaster.pid left by an earlier run (its manager was killed): what it points at, from /proc.
import { readFileSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { EmbeddedPostgresError } from './errors.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  try {
    // A zombie is not running (init may not reap it at once).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true
  }
}

function procArgs(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
  } catch {
    return undefined
  }
}

function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number.parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]!, 10)
  } catch {
    return undefined
  }
}

async function waitForDeath(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true
    await sleep(100)
  }
  return !isAlive(pid)
}

async function readPid(pidFile: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt((await fs.readFile(pidFile, 'utf8')).split('\n')[0]!, 10)
    return pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/**
 * Deals with a postmaster.pid left by an earlier run. A dead PID is left to postgres (it treats
 * the file as stale). A live postmaster on this data directory whose parent is gone (its manager
 * was killed) is shut down; one still managed by a live node process is an error (two starts on
 * one directory). A live PID that is not a postmaster of this directory is a reused PID: the file
 * is stale and removed.
 */
export async function clearLeftoverPostmaster(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid')
  const pid = await readPid(pidFile)
  if (pid === undefined || !isAlive(pid)) return
  const args = procArgs(pid)
  if (args === undefined) return // no /proc: leave it to postgres
  if (!(/postgres$/.test(args[0] ?? '') && args.includes(dataDir))) {
    log(`removing stale ${pidFile} (PID ${pid} is another process)`)
    await fs.rm(pidFile, { force: true })
    return
  }
  const ppid = parentPid(pid)
  const parentArgs = ppid !== undefined && ppid > 1 ? procArgs(ppid) : undefined
  if (parentArgs && /(^|\/)node(\.exe)?$/.test(parentArgs[0] ?? '')) {
    throw new EmbeddedPostgresError(
      `PostgreSQL is already running on ${dataDir} (PID ${pid}, started by process ${ppid}: ${parentArgs.join(' ')}): stop that first`,
    )
  }
  log(`stopping PostgreSQL left running by an earlier run (PID ${pid})`)
  process.kill(pid, 'SIGINT')
  if (await waitForDeath(pid, 30_000)) return
  process.kill(pid, 'SIGQUIT')
  if (!(await waitForDeath(pid, 10_000)))
    throw new EmbeddedPostgresError(`PostgreSQL PID ${pid} left by an earlier run does not stop: kill it`)
}
