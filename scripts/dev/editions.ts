// The editions `npm start` runs: how each is spawned (node src/main.ts) and configured.
import { type ChildProcess, spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
export const MAIN = path.join(ROOT, 'src', 'main.ts')

// Preloaded into each edition: if the supervisor dies without stopping it (kill -9), the edition
// is re-parented; it then stops itself instead of holding its port for the next start.
const EXIT_WITH_PARENT =
  'data:text/javascript,const p=process.ppid;setInterval(()=>{if(process.ppid!==p)process.kill(process.pid,"SIGTERM")},1000).unref()'

/**
 * V8's heap settings of an edition: a young generation of at most 2 × 8 MB (by default V8 grows it
 * to 2 × 64 MB on this machine while the service starts, and keeps it) and an old generation that
 * grows by 30 % between full collections. Together they keep a busy edition under 200 MB resident,
 * at no measurable cost per request (`npm run bench` shows both: docs/performance.md).
 */
export const MAIN_V8_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=30']

/**
 * The environment an edition runs in, for glibc's malloc and Node's compile cache. A value already
 * set wins.
 * - At most two arenas (by default up to eight per core, one per thread that allocates: libuv's
 *   workers, V8's): fewer arenas, less memory kept resident under load.
 * - Blocks of 1 MiB or more are mapped on their own and returned when freed. By default glibc
 *   raises that threshold to the largest block freed so far (up to 32 MiB): after a password hash
 *   (8 MiB, src/auth/passwords.ts) it kept such blocks in its arenas, resident for good.
 * And Node's compile cache from the first module on, in the directory src/main.ts would turn on
 * (module.enableCompileCache's default). main.ts turns it on only once it is itself loaded, and
 * loading a .ts file without the cache loads Node's TypeScript stripper (amaro, a WebAssembly
 * module) at every start. With the variable set, main.ts comes from the cache as well and the
 * stripper is never loaded.
 */
export function mainEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    MALLOC_ARENA_MAX: '2',
    MALLOC_MMAP_THRESHOLD_: String(1024 * 1024),
    NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'node-compile-cache'),
    ...env,
  }
}

/** inherit: the edition's output as is. pipe: piped, with an IPC channel (the edition sends 'ready'). */
export function spawnMain(env: NodeJS.ProcessEnv, stdio: 'inherit' | 'pipe'): ChildProcess {
  return spawn(process.execPath, [...MAIN_V8_FLAGS, `--import=${EXIT_WITH_PARENT}`, MAIN], {
    cwd: ROOT,
    env: mainEnv(env),
    stdio: stdio === 'inherit' ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe', 'ipc'],
    // Own process group: a terminal Ctrl+C reaches only the supervisor, which then stops the
    // children in order (editions first, database last) and only once.
    detached: process.platform !== 'win32',
  })
}

export interface DemoEdition {
  name: 'park' | 'enterprise'
  /** Its environment, but for DATABASE_URL (known once PostgreSQL runs). */
  env: NodeJS.ProcessEnv
  port: number
  /** The setting that chooses its port. */
  portSetting: 'PORT' | 'PARK_PORT'
}

/**
 * The park edition (its admin's password) and the enterprise edition pushing to it with its
 * `enterprise` account of the park (created by scripts/dev/park-account.ts once the park is ready).
 */
export function demoEditions(
  enterprisePort: number,
  parkPort: number,
  parkPassword: string,
  account: { userName: string; password: string },
): DemoEdition[] {
  // The park edition pushes nowhere: drop the park-client settings meant for an enterprise.
  const base = { ...process.env }
  for (const name of ['PARK_URL', 'PARK_USER', 'PARK_PASSWORD', 'DATABASE_URL']) delete base[name]
  const park = { ...base, EDITION: 'park', PORT: String(parkPort), ADMIN_PASSWORD: parkPassword }
  const enterprise = { ...base, EDITION: 'enterprise', PORT: String(enterprisePort) }
  Object.assign(enterprise, { PARK_URL: `http://127.0.0.1:${parkPort}`, PARK_USER: account.userName, PARK_PASSWORD: account.password })
  return [
    { name: 'park', env: park, port: parkPort, portSetting: 'PARK_PORT' },
    { name: 'enterprise', env: enterprise, port: enterprisePort, portSetting: 'PORT' },
  ]
}
