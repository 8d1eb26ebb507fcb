// Every variable validated at start; a bad value is one line naming the variable.

import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import Ajv2020Module from 'ajv/dist/2020.js'
import t from 'tap'
import { loadConfig, schema } from '../src/config.ts'

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module

const base = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x' }

t.test('defaults', async (t) => {
  const config = loadConfig(base)
  t.match(config, {
    edition: 'enterprise',
    port: 3000,
    companyCode: '000000000',
    timeZone: '+08:00',
    rateLimitMax: 1200,
    rateLimitLoginMax: 10,
    push: { probeMs: 500 },
    readingsRetentionDays: 90,
    dbPoolMax: 20,
  })
  t.equal(loadConfig({ ...base, DB_POOL_MAX: '5' }).dbPoolMax, 5)
})

t.test('bad values are refused, naming the variable', async (t) => {
  const cases: Record<string, string>[] = [
    { PORT: '70000' },
    { PORT: 'abc' },
    { EDITION: 'central' },
    { COMPANY_CODE: '12345' },
    { TZ: 'Mars/Olympus' },
    { JWT_SECRET: 'short' },
    { PARK_URL: 'http://park:3100' },
    { DATABASE_URL: 'mysql://x' },
    { SYNC_PARK_PROBE_MS: '10' },
    { SYNC_PARK_PROBE_MS: '600000' },
    { SYNC_RECONCILE_CRON: '61 3 * * *' },
    { SYNC_RECONCILE_CRON: 'a b c d e' },
    { READINGS_RETENTION_DAYS: '29' },
    { DB_POOL_MAX: '1' },
    { PORT: '0x10' },
    { PORT: ' 4201' },
    { PORT: '4.201e3' },
    { RATE_LIMIT_MAX: '99999999999999999999' },
    { DATABASE_URL: '' },
    { DATABASE_URL: 'postgresql://postgres:secret@127.0.0.1:99999/x' },
  ]
  for (const env of cases) {
    const name = Object.keys(env)[0]
    t.throws(() => loadConfig({ ...base, ...env }), { name: 'ConfigError' }, name)
    try {
      loadConfig({ ...base, ...env })
    } catch (error) {
      t.match((error as Error).message, new RegExp(name.split('_')[0]), `${name} is named`)
      t.notMatch((error as Error).message, /\n/, 'one line')
    }
  }
  t.throws(() => loadConfig({}), /^invalid configuration: DATABASE_URL is required$/)
  t.throws(
    () => loadConfig({ DATABASE_URL: 'postgresql://postgres:secret@127.0.0.1:99999/x' }),
    /^invalid configuration: DATABASE_URL must be a postgresql:\/\/ URL \(postgresql:\/\/user:password@host:port\/database\)$/,
    'a URL that does not parse, named without its password',
  )
  t.throws(() => loadConfig({ ...base, PORT: '0x10' }), /^invalid configuration: PORT must be written in decimal digits, got "0x10"$/)
  const park = { PARK_USER: 'ent-1', PARK_PASSWORD: 'password-1' }
  for (const url of ['http://a b', 'http://[::1', 'https://:80', 'http://host:99999', 'http://exa%mple', 'http://']) {
    t.throws(() => loadConfig({ ...base, ...park, PARK_URL: url }), /^invalid configuration: PARK_URL must be an http\(s\) URL/, url)
  }
  t.equal(loadConfig({ ...base, ...park, PARK_URL: 'https://park.example:8443/base' }).parkUrl, 'https://park.example:8443/base')
  t.throws(
    () => loadConfig({ ...base, SYNC_RECONCILE_CRON: '61 3 * * *' }),
    /^invalid configuration: SYNC_RECONCILE_CRON: Constraint error, got value 61 expected range 0-59, got "61 3 \* \* \*"$/,
    'checked with the settings, with a park or without',
  )
  t.throws(
    () => loadConfig({ ...base, EDITION: 'central', PORT: 'abc' }),
    /^invalid configuration: EDITION must be one of enterprise, park, PORT must be integer$/,
    'every bad value, each named',
  )
})

t.test('values come as text: each is read as its type, and the other variables are left out', async (t) => {
  const env = { ...base, PORT: '8080', IDEMPOTENCY_TTL_HOURS: '0.5', SOMETHING_ELSE: 'x' }
  const config = loadConfig(env)
  t.equal(config.port, 8080)
  t.equal(config.idempotencyTtlHours, 0.5)
  t.same(env, { ...base, PORT: '8080', IDEMPOTENCY_TTL_HOURS: '0.5', SOMETHING_ELSE: 'x' }, 'the environment given is not changed')
})

t.test('the schema of the variables is a valid JSON Schema 2020-12 (the service does not check it at start)', async (t) => {
  const ajv = new Ajv2020()
  t.ok(ajv.validateSchema(schema), ajv.errorsText())
})

t.test('the service refuses to start on a bad value with one line and a non-zero exit', async (t) => {
  const run = promisify(execFile)
  // The service itself, without tap's loaders.
  const failure = await run(process.execPath, ['src/main.ts'], { env: { ...process.env, NODE_OPTIONS: '', ...base, PORT: '-1' } }).catch(
    (error) => error,
  )
  t.not(failure.code, 0)
  t.match(failure.stderr.trim(), /^invalid configuration: .*PORT/)
  t.equal(failure.stderr.trim().split('\n').length, 1)
})

t.end()

t.test('every variable is documented with its default, in the README or in docs/operations.md', async (t) => {
  const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
  const rows = `${read('README.md')}\n${read('docs/operations.md')}`.split('\n').filter((line) => line.startsWith('| `'))
  for (const [name, rule] of Object.entries(schema.properties) as [string, { default?: unknown; minimum?: number; maximum?: number }][]) {
    const row = rows.find((line) => line.split('|')[1].includes(`\`${name}\``))
    if (!row) {
      t.fail(`${name} is in no table`)
      continue
    }
    if (rule.default !== undefined) t.ok(row.includes(`\`${String(rule.default)}\``), `${name}: its default ${String(rule.default)}`)
    // The tuning table has a column of ranges; the README's rows say their bounds in words.
    if (rule.minimum !== undefined && name !== 'PORT') t.ok(row.includes(String(rule.minimum)), `${name}: its minimum ${rule.minimum}`)
  }
})
