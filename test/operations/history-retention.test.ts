// HISTORY_RETENTION_DAYS: entries older than that are pruned by a pg-boss schedule (run at start too);
// without it, history is kept forever.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { eventually } from '../helpers/park.ts'
import { freshDatabase, startService } from '../helpers/service.ts'

const databaseUrl = await freshDatabase(t)
const keeper = await startService(t, { databaseUrl })
const token = await keeper.login()

t.test('entries older than the retention are pruned, newer ones kept', async (t) => {
  t.equal((await keeper.call('/prevent/riskUnit/add', record('riskUnit', 'RU-OLD'), { token })).body.code, 0)
  t.equal((await keeper.call('/prevent/riskUnit/update', { id: 'RU-OLD', riskUnitName: 'older' }, { token })).body.code, 0)
  t.equal((await keeper.call('/prevent/riskUnit/update', { id: 'RU-OLD', riskUnitName: 'recent' }, { token })).body.code, 0)
  // The add and a first update happened ten days ago, as far as history knows (an add's entry is
  // its record's first version: its time is the record's createTime).
  await keeper.database.pool.query(`UPDATE risk_unit SET "createTime" = now() - interval '10 days' WHERE id = 'RU-OLD'`)
  await keeper.database.pool.query(`UPDATE record_history SET time = now() - interval '10 days' WHERE id = 'RU-OLD' AND version = 2`)
  const historyOf = (service: typeof keeper) => async () =>
    (await service.call('/prevent/riskUnit/history', { id: 'RU-OLD' }, { token })).body.data
  t.equal((await historyOf(keeper)()).total, 3, 'kept forever without HISTORY_RETENTION_DAYS')

  const retaining = await startService(t, { databaseUrl, env: { HISTORY_RETENTION_DAYS: '7' } })
  const history = historyOf(retaining)
  const pruned = await eventually(async () => ((await history()).total === 1 ? history() : undefined), { what: 'the old entries pruned' })
  t.same(
    pruned.list.map((entry: any) => [entry.version, entry.action]),
    [[3, 'update']],
  )
})

t.test('HISTORY_RETENTION_DAYS is validated at start', async (t) => {
  const { loadConfig } = await import('../../src/config.ts')
  t.throws(() => loadConfig({ DATABASE_URL: 'postgresql://x/y', HISTORY_RETENTION_DAYS: '0' }), /HISTORY_RETENTION_DAYS/)
  t.equal(loadConfig({ DATABASE_URL: 'postgresql://x/y' }).historyRetentionDays, undefined)
  t.equal(loadConfig({ DATABASE_URL: 'postgresql://x/y', ATTACHMENT_MAX_BYTES: '1024' }).attachmentMaxBytes, 1024)
})

t.end()
