// `npm start`.
//
// With DATABASE_URL set: runs one edition (src/main.ts, configured by the environment), spawned
// before anything else is loaded.
// Without it: the zero-setup demo (scripts/dev/demo.ts). An embedded PostgreSQL (data in DATA_DIR,
// default ./.data), the park edition (PARK_PORT, default 3100) and the enterprise edition (PORT,
// default 3000) pushing to it, run by the supervisor in scripts/dev/supervisor.ts.
//
// A start that cannot proceed (a bad setting, a port in use, PostgreSQL that cannot start) prints
// one line naming the cause and the fix and exits 1.

import { existsSync } from 'node:fs'
import path from 'node:path'
import { MAIN, spawnMain } from './dev/editions.ts'
import { exitCodeOf, fail, onSignals } from './dev/signals.ts'

/** One edition, configured entirely by the environment: its exit code is ours. */
function runSingle(): void {
  const child = spawnMain(process.env, 'inherit')
  onSignals((signal) => child.kill(signal))
  process.on('exit', () => child.kill('SIGTERM'))
  child.on('error', (err) => fail(`cannot run ${MAIN}: ${err.message}`))
  child.on('exit', (code, signal) => process.exit(exitCodeOf(code, signal)))
}

if (!existsSync(MAIN)) fail(`${path.relative(process.cwd(), MAIN)} not found`)
// Set, even empty, it is the edition's own (which refuses an empty one): never the demo by mistake.
if (process.env.DATABASE_URL !== undefined) runSingle()
else await (await import('./dev/demo.ts')).runDemo()
