// The drain's pages: read in push order, bounded by count and by bytes, several of a
// resource pushed at once, and still a child after its parent and an attachment after its record,
// with every record at its latest version on the park.
import pg from 'pg'
import t from 'tap'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'
import { ResourceRegistry } from '../../src/resources/resource-registry.ts'
import { SyncStore } from '../../src/store/sync-store.ts'
import { record } from '../helpers/fixtures.ts'
import { eventually, everythingPushed, liveRecords, loginTo, startParkProcess } from '../helpers/park.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const registry = new ResourceRegistry(loadOpenApi().document)

t.test('pending pages bounded by count and by bytes cover every pending record once, oldest write first', async (t) => {
  const service = await startService(t)
  const token = await service.login()
  const list = Array.from({ length: 23 }, (_, i) => record('monitorEquip', `ME-PAGE-${String(i).padStart(2, '0')}`))
  t.equal((await service.call('/hazard/monitorEquip/add-batch', { list }, { token })).body.data.failed.length, 0)
  const pool = service.database.pool
  const sync = new SyncStore({ pool, registry })
  const resource = registry.get('monitorEquip')
  const { rows } = await pool.query(`SELECT id, octet_length(t::text) AS bytes FROM monitor_equip AS t ORDER BY "updateTime", id`)
  const largest = Math.max(...rows.map((row) => row.bytes))

  const pages = async (limit: number, maxBytes: number) => {
    const seen: string[][] = []
    let page = await sync.pending(resource, false, limit, maxBytes)
    for (;;) {
      seen.push(page.items.map((item) => item.id))
      if (!page.cursor) return seen
      page = await sync.pending(resource, false, limit, maxBytes, page.cursor)
    }
  }
  const byCount = await pages(5, 1 << 30)
  t.same(
    byCount.map((ids) => ids.length),
    [5, 5, 5, 5, 3],
    'pages of at most 5',
  )
  t.same(
    byCount.flat(),
    rows.map((row) => row.id),
    'every record once, in push order',
  )
  const byBytes = await pages(500, 2 * largest)
  t.ok(
    byBytes.every((ids) => ids.length >= 1 && ids.length <= 2),
    'at most two records fit the bytes',
  )
  t.same(
    byBytes.flat(),
    rows.map((row) => row.id),
    'every record once, in push order',
  )
  const oneByte = await pages(500, 1)
  t.ok(
    oneByte.every((ids) => ids.length === 1),
    'a record larger than the bound still goes, alone',
  )
  t.equal(oneByte.length, rows.length)

  // Writes within one second, in an order other than their ids': the pages follow the instants to
  // the millisecond (the items carry them to the second only).
  await pool.query(
    `UPDATE monitor_equip SET "updateTime" = date_trunc('second', now()) + (30 - substr(id, 9)::int) * interval '1 millisecond'`,
  )
  const sameSecond = (await pool.query(`SELECT id FROM monitor_equip ORDER BY "updateTime", id`)).rows.map((row) => row.id)
  t.same((await pages(5, 1 << 30)).flat(), sameSecond, 'every record once, in push order, within one second')
})

t.test('pages pushed at once: children after their parents, attachments after their records, the latest versions', async (t) => {
  const park = await startParkProcess(t)
  const enterprise = await startService(t, {
    env: {
      PARK_URL: park.url,
      PARK_USER: 'admin',
      PARK_PASSWORD: ADMIN_PASSWORD,
      SYNC_BATCH_SIZE: '5',
      SYNC_PUSH_CONCURRENCY: '4',
      SYNC_RETRY_DELAY_MAX_SECONDS: '1',
    },
  })
  const token = await enterprise.login()
  // A backlog of parents, then parents and children written one after the other while it drains.
  const units = Array.from({ length: 60 }, (_, i) => record('riskUnit', `RU-P-${i}`))
  t.equal((await enterprise.call('/prevent/riskUnit/add-batch', { list: units }, { token })).body.data.failed.length, 0)
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
  for (let i = 0; i < 30; i++) {
    t.equal((await enterprise.call('/prevent/riskUnit/add', record('riskUnit', `RU-C-${i}`), { token })).body.code, 0)
    const event = record('riskEvents', `RE-C-${i}`, { riskUnitId: i % 2 ? `RU-C-${i}` : `RU-P-${i}` })
    t.equal((await enterprise.call('/prevent/riskEvents/add', event, { token })).body.code, 0)
    const attachment = { id: `AT-C-${i}`, recordId: `RU-C-${i}`, fileName: 'a.png', contentType: 'image/png', content: png }
    t.equal((await enterprise.call('/prevent/riskUnit/attachment/add', attachment, { token })).body.code, 0)
    if (i % 3 === 0) {
      const update = await enterprise.call('/prevent/riskUnit/update', { id: `RU-P-${i}`, riskUnitName: `renamed ${i}` }, { token })
      t.equal(update.body.code, 0)
    }
  }
  await eventually(
    async () => {
      const status = await enterprise.call('/system/sync/status', {}, { token })
      return everythingPushed(status.body.data)
    },
    { what: 'every record synced' },
  )
  const parkToken = await loginTo(park.url)
  t.same(await liveRecords(park.url, parkToken), await liveRecords(enterprise.url, token), 'the park holds the latest version of each')
  // On the park, each row's xmin is the transaction that applied it (once: children's parents RU-C-*
  // are not updated), and a younger transaction has a smaller age (sync_time is kept to the second).
  const parkDb = new pg.Client({ connectionString: park.databaseUrl })
  await parkDb.connect()
  t.after(() => parkDb.end())
  const early = await parkDb.query(
    `SELECT e.id FROM risk_events AS e JOIN risk_unit AS u ON u."companyCode" = e."companyCode" AND u.id = e."riskUnitId" ` +
      `WHERE u.id LIKE 'RU-C-%' AND age(u.xmin) < age(e.xmin)`,
  )
  t.same(early.rows, [], 'no child applied before its parent')
  const attachments = await parkDb.query(
    `SELECT a.id FROM risk_unit_attachment AS a JOIN risk_unit AS u ON u."companyCode" = a."companyCode" AND u.id = a."recordId" ` +
      `WHERE age(u.xmin) < age(a.xmin)`,
  )
  t.same(attachments.rows, [], 'no attachment applied before its record')
  t.equal((await parkDb.query(`SELECT count(*)::int AS n FROM risk_unit_attachment`)).rows[0].n, 30)
})
