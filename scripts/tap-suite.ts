// Runs one tap suite the way `npm test` does, for scripts/test.ts and scripts/test-browser.ts:
//
// 1. Optionally type-checks the project (tsc --noEmit -p tsconfig.json): counts as one test.
// 2. Without DATABASE_URL, starts a throw-away embedded PostgreSQL and points DATABASE_URL at it.
// 3. Runs tap (settings in .taprc) over the given arguments, with the plain TAP reporter.
// 4. Names each failing assertion (file > subtests > assertion), then prints, as the very last
//    line, `N passed, N failed` for the whole run and exits, non-zero if anything failed, tap
//    failed, or no test ran.

import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { type EmbeddedPostgres, startEmbeddedPostgres } from './dev/embedded-postgres/index.ts'
import { freePort } from './dev/ports.ts'
import { TapFailures } from './tap-failures.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
const TAP = path.join(ROOT, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs')
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
const ESLINT = path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js')
const PRETTIER = path.join(ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs')
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs')
const note = (line: string) => process.stdout.write(`# test: ${line}\n`)

// Tools and tests run on this Node (the pinned one), whatever `node` is first on PATH.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: [path.join(ROOT, 'node_modules', '.bin'), path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
}

let passed = 0
let failed = 0
let current: ReturnType<typeof spawn> | undefined
let interrupted: NodeJS.Signals | undefined
let db: EmbeddedPostgres | undefined
const failures = new TapFailures()
/** Failures outside tap's assertions (the checks before it, a tap that gave no verdict). */
const otherFailures: string[] = []
const fail = (what: string) => {
  failed++
  otherFailures.push(what)
}
/** At most this many failing assertions are named before the closing count. */
const NAMED_FAILURES = 20

const onSignal = (signal: NodeJS.Signals) => {
  if (interrupted) return
  interrupted = signal
  process.stderr.write(`# test: ${signal} received, stopping\n`)
  current?.kill(signal)
}

function run(args: string[], onStdout?: (chunk: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env,
      stdio: ['ignore', onStdout ? 'pipe' : 'inherit', 'inherit'],
    })
    current = child
    if (onStdout) {
      child.stdout!.setEncoding('utf8')
      child.stdout!.on('data', onStdout)
    }
    child.on('error', (err) => {
      process.stderr.write(`# test: cannot run ${args[0]}: ${err.message}\n`)
      resolve(1)
    })
    child.on('close', (code, signal) => {
      current = undefined
      resolve(code ?? (signal ? 128 : 1))
    })
  })
}

async function startDatabase(): Promise<void> {
  if (process.env.DATABASE_URL) {
    note(`using DATABASE_URL from the environment (${new URL(process.env.DATABASE_URL).host})`)
    return
  }
  const dataDir = path.join(os.tmpdir(), `safety-test-pg-${randomBytes(6).toString('hex')}`)
  db = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false })
  env.DATABASE_URL = db.adminUrl
  note(`throw-away embedded PostgreSQL at ${new URL(db.adminUrl).host}`)
}

export interface TapSuite {
  /** Type-check the project first (one test). */
  typecheck: boolean
  /** tap's arguments: options and test files (none: every file .taprc includes). */
  tapArgs: string[]
}

/** One test each: tsc --noEmit, then lint (eslint.config.js) and format (.prettierrc.json). */
async function typecheckAndLint(): Promise<void> {
  if (existsSync(path.join(ROOT, 'tsconfig.json'))) {
    note('typecheck: tsc --noEmit -p tsconfig.json')
    const code = await run([TSC, '--noEmit', '-p', 'tsconfig.json'])
    if (code === 0) passed++
    else fail('typecheck')
    note(code === 0 ? 'typecheck passed' : 'typecheck FAILED')
  } else {
    note('typecheck skipped: no tsconfig.json')
  }
  note('lint: eslint . && prettier --check .')
  const code = (await run([ESLINT, '.'])) || (await run([PRETTIER, '--check', '.']))
  if (code === 0) passed++
  else fail('lint')
  note(code === 0 ? 'lint passed' : 'lint FAILED (npm run format fixes formatting)')
  // The layers of src/ (.dependency-cruiser.mjs): one test more.
  note('layers: depcruise src')
  const layers = await run([DEPCRUISE, 'src', '--config', '.dependency-cruiser.mjs'])
  if (layers === 0) passed++
  else fail('layers')
  note(layers === 0 ? 'layers passed' : 'layers FAILED: an import runs up the layers or in a circle (.dependency-cruiser.mjs)')
}

/** tap's closing summary line: `# { total: 7, pass: 4, fail: 1, todo: 1, skip: 1 }`. */
function parseSummary(line: string): Record<string, number> | undefined {
  const m = /^# \{ (.*) \}$/.exec(line)
  if (!m) return undefined
  const summary: Record<string, number> = {}
  for (const part of m[1]!.split(', ')) {
    const [key, value] = part.split(': ')
    if (key && value !== undefined) summary[key] = Number(value)
  }
  return summary
}

/** Runs tap, passing its output through; counts its passes and failures. */
async function runTap(tapArgs: string[]): Promise<void> {
  let summary: Record<string, number> | undefined
  let pending = ''
  let lastChar = '\n'
  const scan = (line: string) => {
    summary = parseSummary(line) ?? summary
    failures.line(line)
  }
  const code = await run([TAP, '--reporter=tap', ...tapArgs], (chunk) => {
    process.stdout.write(chunk)
    lastChar = chunk.at(-1) ?? lastChar
    const lines = (pending + chunk).split('\n')
    pending = lines.pop()!
    lines.forEach(scan)
  })
  scan(pending)
  if (lastChar !== '\n') process.stdout.write('\n')
  if (!summary) {
    note(`no tap summary found (tap exit code ${code})`)
    fail('tap gave no summary')
    return
  }
  const pass = summary.pass ?? 0
  const failing = summary.fail ?? 0
  passed += pass
  failed += failing
  if (pass + failing === 0) {
    note('no test ran')
    fail('no test ran')
  } else if (code !== 0 && failing === 0) {
    note(`tap exited with code ${code} although no test failed`)
    fail(`tap exited with code ${code}`)
  }
}

async function main({ typecheck, tapArgs }: TapSuite): Promise<void> {
  // The database starts while tsc runs.
  const database = startDatabase()
  database.catch(() => undefined)
  if (typecheck) await typecheckAndLint()
  try {
    await database
  } catch (err) {
    process.stderr.write(`# test: embedded PostgreSQL did not start: ${(err as Error).message}\n`)
    fail('embedded PostgreSQL did not start')
    return
  }
  if (interrupted) {
    fail(`interrupted by ${interrupted}`)
    return
  }
  await runTap(tapArgs)
}

/** Runs the suite, prints `N passed, N failed` last and exits with the verdict. */
export async function runTapSuite(suite: TapSuite): Promise<never> {
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  process.on('SIGHUP', onSignal)
  try {
    await main(suite)
  } catch (err) {
    process.stderr.write(`# test: ${(err as Error).stack ?? String(err)}\n`)
    fail('the test runner itself')
  } finally {
    try {
      await db?.stop()
    } catch (err) {
      process.stderr.write(`# test: stopping the embedded PostgreSQL failed: ${(err as Error).message}\n`)
    }
  }
  if (interrupted && failed === 0) fail(`interrupted by ${interrupted}`)
  const named = [...otherFailures, ...failures.paths()]
  for (const path of named.slice(0, NAMED_FAILURES)) note(`failed: ${path}`)
  if (named.length > NAMED_FAILURES) note(`failed: and ${named.length - NAMED_FAILURES} more`)
  return new Promise<never>(() => {
    process.stdout.write(`${passed} passed, ${failed} failed\n`, () => process.exit(failed > 0 ? 1 : 0))
  })
}
