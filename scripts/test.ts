// `npm test [-- tap options or test files]`.
//
// 1. Type-checks the project (tsc --noEmit -p tsconfig.json): counts as one test.
// 2. Without DATABASE_URL, starts a throw-away embedded PostgreSQL and points DATABASE_URL at it.
// 3. Runs tap over test/**/*.test.ts (settings in .taprc), with the plain TAP reporter.
// 4. Prints, as the very last line, `N passed, N failed` for the whole run; exits non-zero if
//    anything failed, tap failed, or no test ran.
// (The steps live in scripts/tap-suite.ts, shared with `npm run test:browser`.)

import { runTapSuite } from './tap-suite.ts'

await runTapSuite({ typecheck: true, tapArgs: process.argv.slice(2) })
