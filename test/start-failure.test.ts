// A start that cannot proceed prints one line naming the cause and the fix, never a stack trace,
// and exits 1: the wording (src/start-failure.ts), and the service itself (node src/main.ts).
import { execFile } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { freePort } from '../scripts/dev/ports.ts'
import { describeStartFailure } from '../src/start-failure.ts'
import { freshDatabase } from './helpers/service.ts'

const where = { port: 3000, host: '0.0.0.0', databaseUrl: 'postgresql://app:secret@db.example:5433/safety' }
const coded = (code: string, message = code, extra: object = {}) => Object.assign(new Error(message), { code, ...extra })

t.test('each known cause has its line: the cause, then the fix', async (t) => {
  const cases: [unknown, RegExp][] = [
    [
      coded('EADDRINUSE', 'listen EADDRINUSE', { syscall: 'listen' }),
      /^cannot start: port 3000 is already in use .*: .*set PORT to a free port$/,
    ],
    [coded('EACCES', 'listen EACCES', { syscall: 'listen' }), /^cannot start: not allowed to listen on port 3000 .*: set PORT/],
    [coded('EADDRNOTAVAIL', 'listen', { syscall: 'listen' }), /^cannot start: HOST 0\.0\.0\.0 is not an address .*: set HOST/],
    [coded('ECONNREFUSED'), /^cannot start: the database at db\.example:5433\/safety is unreachable \(ECONNREFUSED\): .*DATABASE_URL/],
    [new Error('timeout exceeded when trying to connect'), /^cannot start: the database at db\.example:5433\/safety is unreachable/],
    [coded('ENOTFOUND'), /^cannot start: the database host in DATABASE_URL \(db\.example:5433\/safety\) is unknown .*: correct the host/],
    [
      coded('28P01', 'password authentication failed for user "app"'),
      /refused the login .*: correct the user and password in DATABASE_URL$/,
    ],
    [coded('3D000', 'database "safety" does not exist'), /does not exist .*: create it \(createdb\), or correct the name in DATABASE_URL$/],
    [coded('57P03', 'the database system is starting up'), /does not accept connections now .*: start again once it does$/],
    // The cause may sit deeper: wrapped, or one of several (a host with two addresses).
    [new Error('migration failed', { cause: coded('ECONNREFUSED') }), /is unreachable \(ECONNREFUSED\)/],
    [new AggregateError([coded('ECONNREFUSED')], 'connect'), /is unreachable \(ECONNREFUSED\)/],
    [
      coded('ENOTFOUND', 'getaddrinfo ENOTFOUND nohost.invalid', { syscall: 'getaddrinfo', hostname: 'nohost.invalid' }),
      /^cannot start: the database host in DATABASE_URL .* is unknown/,
    ],
    [
      new Error('Connection terminated due to connection timeout'),
      /^cannot start: the database at db\.example:5433\/safety is unreachable .*DATABASE_URL/,
    ],
    [
      new Error('Connection terminated unexpectedly'),
      /^cannot start: the server at db\.example:5433\/safety closed the connection before answering .*: check that DATABASE_URL names/,
    ],
    [
      new Error('The server does not support SSL connections'),
      /^cannot start: the database at .* does not support SSL.*: drop sslmode from DATABASE_URL/,
    ],
    [new Error('something\n  unexpected'), /^cannot start: something unexpected \(run with LOG_LEVEL=debug to see where\)$/],
  ]
  for (const [error, expected] of cases) {
    const line = describeStartFailure(error, where)
    t.match(line, expected, line)
    t.notMatch(line, /\n|secret/, 'one line, no password')
  }
  const unresolved = coded('ENOTFOUND', 'getaddrinfo ENOTFOUND nohost.invalid', { syscall: 'getaddrinfo', hostname: 'nohost.invalid' })
  t.match(
    describeStartFailure(unresolved, { ...where, host: 'nohost.invalid' }),
    /^cannot start: HOST nohost\.invalid is not a name this machine resolves \(ENOTFOUND\): set HOST/,
    'HOST, not the database, when it is the name that did not resolve',
  )
})

const run = promisify(execFile)

/** node src/main.ts with env; its exit code and the lines it wrote to stderr. */
async function startService(env: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  const environment = { ...process.env, NODE_OPTIONS: '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }
  const result = await run(process.execPath, ['src/main.ts'], { env: environment, timeout: 60_000 }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => error,
  )
  return { code: result.code, lines: result.stderr.trim().split('\n') }
}

t.test('npm start with DATABASE_URL set but empty: refused in one line, no demo started', async (t) => {
  const environment = { ...process.env, NODE_OPTIONS: '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '', PORT: '0' }
  // From a directory of its own: were the demo started by mistake, its data would not land here.
  const cwd = t.testdir()
  const script = path.resolve('scripts/start.ts')
  const failure = await run(process.execPath, [script], { env: environment, cwd, timeout: 60_000 }).then(
    ({ stdout }) => ({ code: 0, stderr: '', stdout }),
    (error: { code: number; stderr: string; stdout: string }) => error,
  )
  t.equal(failure.code, 1)
  t.same(failure.stderr.trim().split('\n'), [
    'invalid configuration: DATABASE_URL must be a postgresql:// URL (postgresql://user:password@host:port/database)',
  ])
  t.notMatch(failure.stdout, /park edition/, 'no demo')
})

t.test('the service on a port already taken: one line, exit code 1', async (t) => {
  const blocker = net.createServer()
  const port = await freePort()
  await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => blocker.close(resolve)))
  const { code, lines } = await startService({ DATABASE_URL: await freshDatabase(t), PORT: String(port) })
  t.equal(code, 1)
  t.same(lines, [
    `cannot start: port ${port} is already in use (on 127.0.0.1): stop the process listening on it, or set PORT to a free port`,
  ])
})

t.test('the service with its database unreachable: one line, exit code 1', async (t) => {
  const dbPort = await freePort() // nothing listens there
  const { code, lines } = await startService({ DATABASE_URL: `postgresql://postgres:pw@127.0.0.1:${dbPort}/x`, PORT: '0' })
  t.equal(code, 1)
  t.same(lines, [
    `cannot start: the database at 127.0.0.1:${dbPort}/x is unreachable (ECONNREFUSED): start PostgreSQL there, or set DATABASE_URL to a reachable server`,
  ])
})
