// The document is a valid OpenAPI 3.1 description (the official schemas, via
// @seriousme/openapi-schema-validator) and lints clean under Redocly's strict rules (openapi/redocly.yaml):
// 0 errors, 0 warnings.

import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Validator } from '@seriousme/openapi-schema-validator'
import t from 'tap'
import { loadOpenApi, OPENAPI_PATH } from '../../src/contract/openapi-document.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
// The CLI is a bundle with no programmatic lint API of its own: run its binary on this Node.
const REDOCLY = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url))

interface LintProblem {
  ruleId: string
  severity: 'error' | 'warn'
  message: string
  location: { pointer?: string }[]
}

t.test('the document is valid OpenAPI 3.1', async (t) => {
  const validator = new Validator()
  const result = await validator.validate(structuredClone(loadOpenApi().document))
  t.equal(validator.version, '3.1')
  t.same(result.errors ?? [], [])
  t.equal(result.valid, true)
})

t.test('redocly lint (recommended-strict) finds nothing: 0 errors, 0 warnings', async (t) => {
  let stdout: string
  try {
    ;({ stdout } = await promisify(execFile)(
      process.execPath,
      [REDOCLY, 'lint', OPENAPI_PATH, '--config', 'openapi/redocly.yaml', '--format', 'json'],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      },
    ))
  } catch (error) {
    // Exit code 1 when it found errors; the report is still on stdout.
    stdout = (error as { stdout?: string }).stdout ?? ''
    if (!stdout.trim().startsWith('{')) throw error
  }
  const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: LintProblem[] }
  const problems = report.problems.map(
    (problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`,
  )
  t.same(problems, [])
  t.equal(report.totals.errors, 0)
  t.equal(report.totals.warnings, 0)
})

t.end()
