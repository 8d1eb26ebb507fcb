// `npm start` (node scripts/start.ts) that cannot proceed: one line naming the cause and the fix,
// no stack trace, exit code 1, and nothing left running. The checks run before any edition starts.
// And `npm start` stopped without a signal reaching the script: what it started stops with it.
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { freePort, portIsFree } from '../../scripts/dev/ports.ts'
import { eventually } from '../helpers/eventually.ts'
import { freshDatabase } from '../helpers/service.ts'

const run = promisify(execFile)

interface Teardown {
  teardown(fn: () => unknown): void
}

interface Outcome {
  code: number
  /** stderr lines, without the embedded PostgreSQL's progress notes. */
  lines: string[]
}

async function npmStart(t: Teardown, env: Record<string, string | undefined>): Promise<Outcome> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'start-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const environment: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: '', DATA_DIR: dataDir, ...env }
  for (const [name, value] of Object.entries(environment)) if (value === undefined) delete environment[name]
  const result = await run(process.execPath, ['scripts/start.ts'], { env: environment, timeout: 60_000 }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => error,
  )
  const lines = result.stderr.trim().split('\n')
  return { code: result.code, lines: lines.filter((line) => !line.startsWith('[embedded-postgres] ')) }
}

async function takenPort(t: Teardown, host = '0.0.0.0'): Promise<number> {
  const port = await freePort()
  const blocker = net.createServer()
  await new Promise<void>((resolve) => blocker.listen(port, host, resolve))
  t.teardown(() => new Promise((resolve) => blocker.close(resolve)))
  return port
}

async function demoPorts(): Promise<Record<string, string>> {
  return { PORT: String(await freePort()), PARK_PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) }
}

t.test('with DATABASE_URL unreachable: the edition says so in one line', async (t) => {
  const dbPort = await freePort()
  const { code, lines } = await npmStart(t, { DATABASE_URL: `postgresql://postgres@127.0.0.1:${dbPort}/x`, PORT: '0' })
  t.equal(code, 1)
  t.same(lines, [
    `cannot start: the database at 127.0.0.1:${dbPort}/x is unreachable (ECONNREFUSED): start PostgreSQL there, or set DATABASE_URL to a reachable server`,
  ])
})

t.test('the embedded start with PORT taken', async (t) => {
  const port = await takenPort(t)
  const { code, lines } = await npmStart(t, { DATABASE_URL: undefined, ...(await demoPorts()), PORT: String(port) })
  t.equal(code, 1)
  t.same(lines, [
    `start: port ${port} (PORT, the enterprise edition) is already in use: stop the process listening on it (another npm start?), or set PORT to a free port`,
  ])
})

t.test("the embedded start with PostgreSQL's port taken", async (t) => {
  const port = await takenPort(t, '127.0.0.1')
  const { code, lines } = await npmStart(t, { DATABASE_URL: undefined, ...(await demoPorts()), EMBEDDED_PG_PORT: String(port) })
  t.equal(code, 1)
  t.same(lines, [
    `start: port ${port} (EMBEDDED_PG_PORT, the embedded PostgreSQL) is already in use: stop what listens on it, or set EMBEDDED_PG_PORT to a free port`,
  ])
})

t.test('the embedded start with a bad setting', async (t) => {
  const { code, lines } = await npmStart(t, { DATABASE_URL: undefined, ...(await demoPorts()), TZ: 'Mars/Olympus' })
  t.equal(code, 1)
  t.equal(lines.length, 1)
  t.match(lines[0], /^start: invalid configuration: TZ must be .* \(for the park edition\)$/)
  const ports = await npmStart(t, { DATABASE_URL: undefined, PORT: '3000', PARK_PORT: '3000' })
  t.equal(ports.code, 1)
  t.same(ports.lines, ['start: PORT (3000), PARK_PORT (3000) and EMBEDDED_PG_PORT (54329) must all differ: change one'])
})

/** The pids whose parent is `pid` (from /proc). */
async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    // pid (comm) state ppid …: comm may hold spaces and parentheses, the last ')' ends it.
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry))
  }
  return children
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const answers = (port: number) =>
  fetch(`http://127.0.0.1:${port}/health/live`).then(
    (response) => response.ok,
    () => false,
  )

/**
 * `npm start` as npm runs it (a shell running `node scripts/start.ts`), its shell killed: npm
 * stopped by SIGTERM passes it to that shell, which dies without passing it on. scripts/start.ts,
 * re-parented, stops what it started as on SIGTERM.
 */
async function orphaned(t: Teardown, env: Record<string, string | undefined>, ports: number[]): Promise<void> {
  const environment: Record<string, string | undefined> = {
    ...process.env,
    NODE_OPTIONS: '',
    HOST: '127.0.0.1',
    // As npm runs the script (its parent is watched only then).
    npm_lifecycle_event: 'start',
    ...env,
  }
  for (const [name, value] of Object.entries(environment)) if (value === undefined) delete environment[name]
  const shell = spawn('sh', ['-c', `"${process.execPath}" scripts/start.ts`], { env: environment, stdio: 'ignore' })
  t.teardown(() => shell.kill('SIGKILL'))
  for (const port of ports) await eventually(() => answers(port), { timeoutMs: 120_000, what: `an edition on port ${port}` })
  const [start] = await childrenOf(shell.pid!)
  if (start === undefined) throw new Error('the shell runs no scripts/start.ts')
  t.teardown(() => (alive(start) ? process.kill(start, 'SIGKILL') : undefined))
  shell.kill('SIGKILL')
  await eventually(() => !alive(start), { timeoutMs: 60_000, what: 'scripts/start.ts to exit' })
}

t.test('npm start with DATABASE_URL, its shell gone: the edition stops, and so does the script', async (t) => {
  const port = await freePort()
  await orphaned(t, { DATABASE_URL: await freshDatabase(t), EDITION: 'enterprise', PORT: String(port), ADMIN_PASSWORD: 'Orphan-Pass1' }, [
    port,
  ])
  t.notOk(await answers(port), 'the edition stopped')
})

t.test('the embedded start, its shell gone: both editions and PostgreSQL stop, and so does the script', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'start-test-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const ports = await demoPorts()
  await orphaned(t, { DATABASE_URL: undefined, DATA_DIR: dataDir, ...ports }, [Number(ports.PORT), Number(ports.PARK_PORT)])
  t.notOk(await answers(Number(ports.PORT)), 'the enterprise edition stopped')
  t.notOk(await answers(Number(ports.PARK_PORT)), 'the park edition stopped')
  // PostgreSQL stopped too: its port takes a listener again.
  t.ok(await portIsFree(Number(ports.EMBEDDED_PG_PORT), '127.0.0.1'), 'the embedded PostgreSQL stopped')
})
