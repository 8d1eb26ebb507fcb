// The integrator example of docs/sdk.md is this file's region between `// example:start` and
// `// example:end`, character for character: the guide cannot drift from an example that runs
// against the real service through the SDK (`safety-platform/sdk`, package.json "exports").

import { readFile } from 'node:fs/promises'
import t from 'tap'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

// example:start
import { createSafetyClient } from 'safety-platform/sdk'

export async function recordTankFarm(baseUrl: string, password: string) {
  const safety = createSafetyClient({ baseUrl })

  // The client keeps the token pair: every call carries `Authorization: Bearer <token>`, and a
  // call answered 401/2002 (token expired) is retried once after a refresh.
  const login = await safety.login('admin', password)
  if (login.data?.code !== 0) throw new Error(`login refused: ${login.data?.msg ?? login.error?.msg}`)

  // With an Idempotency-Key a write is safe to retry (after a timeout, say): a repeat with the
  // same key and body replays the first answer instead of writing again.
  const added = await safety.POST('/prevent/riskUnit/add', {
    params: { header: { 'Idempotency-Key': 'add-RU-TANK-1' } },
    body: { id: 'RU-TANK-1', riskUnitName: 'Tank farm', riskLevel: '2', longitude: 118.7969, latitude: 32.0603 },
  })
  if (added.data?.code !== 0) throw new Error(`add refused: ${added.data?.msg ?? added.error?.msg}`)

  const read = await safety.POST('/prevent/riskUnit/getById', { body: { id: 'RU-TANK-1' } })
  const unit = read.data?.data // components['schemas']['RiskUnitRecord'], with sync_status 'pending'

  const found = await safety.POST('/prevent/riskUnit/search', {
    body: {
      conditions: [{ field: 'riskLevel', op: 'in', value: ['1', '2'] }],
      orderBy: [{ field: 'updateTime', direction: 'desc' }],
      pageSize: 20,
    },
  })
  const highRiskUnits = found.data?.data?.list ?? []

  // Business failures are HTTP 200 with `success: false`: decide by `code`. Here the id is taken
  // (1003: ids are never reused), so the unit is updated instead.
  const renamed = { id: 'RU-TANK-1', riskUnitName: 'Tank farm north' }
  let saved = await safety.POST('/prevent/riskUnit/add', { body: renamed })
  if (saved.data?.code === 1003) saved = await safety.POST('/prevent/riskUnit/update', { body: renamed })
  if (saved.data?.code !== 0) throw new Error(`save refused: ${saved.data?.code} ${saved.data?.msg ?? saved.error?.msg}`)

  await safety.logout()
  return { unit, highRiskUnits }
}
// example:end

const GUIDE = new URL('../../docs/sdk.md', import.meta.url)
const HEADING = '## An example'

/** The text between the markers in this file, and the first ```ts block after the heading in docs/sdk.md. */
async function examples(): Promise<{ tested: string; documented: string }> {
  const source = await readFile(new URL(import.meta.url), 'utf8')
  const start = source.indexOf('// example:start\n')
  const end = source.indexOf('// example:end\n')
  if (start < 0 || end < start) throw new Error('the example markers are missing from this file')
  const tested = source.slice(start + '// example:start\n'.length, end)

  const guide = await readFile(GUIDE, 'utf8')
  const section = guide.indexOf(`\n${HEADING}\n`)
  if (section < 0) throw new Error(`docs/sdk.md has no "${HEADING}" section`)
  const open = guide.indexOf('\n```ts\n', section)
  const close = guide.indexOf('\n```\n', open + 1)
  if (open < 0 || close < 0) throw new Error(`docs/sdk.md's "${HEADING}" section has no \`\`\`ts block`)
  return { tested, documented: guide.slice(open + '\n```ts\n'.length, close + 1) }
}

t.test('the integrator example of docs/sdk.md is the region tested here, character for character', async (t) => {
  const { tested, documented } = await examples()
  t.ok(tested.includes('createSafetyClient'), 'the region holds the example')
  t.equal(documented, tested, `docs/sdk.md's ${HEADING} code block = this file's example region`)
})

t.test('the example runs against the real service', async (t) => {
  const service = await startService(t)
  const { unit, highRiskUnits } = await recordTankFarm(service.url, ADMIN_PASSWORD)
  t.match(unit, { id: 'RU-TANK-1', riskUnitName: 'Tank farm', riskLevel: '2', sync_status: 'pending', hazardCode: null })
  t.same(
    highRiskUnits.map((found) => found.id),
    ['RU-TANK-1'],
  )

  // The 1003 branch was taken: the unit is renamed, and only once.
  const token = await service.login()
  const stored = await service.call('/prevent/riskUnit/getById', { id: 'RU-TANK-1' }, { token })
  t.equal(stored.body.data.riskUnitName, 'Tank farm north')
  const all = await service.call('/prevent/riskUnit/list', {}, { token })
  t.equal(all.body.data.total, 1)

  // Run again (same user, same Idempotency-Key, same body): the add replays its first answer, so the
  // example is safe to re-run; the unit keeps its new name until the 1003 branch renames it again.
  const again = await recordTankFarm(service.url, ADMIN_PASSWORD)
  t.equal(again.unit?.riskUnitName, 'Tank farm north', 'the replayed add wrote nothing')
  t.equal((await service.call('/prevent/riskUnit/list', {}, { token })).body.data.total, 1)
})

t.end()
