// The push's bookkeeping on a real database with a backlog just written (no statistics yet):
// settling a page, and recording a failed call, touch the page's rows only. Each statement's plan,
// with the values the store sent, reads no table in full, whatever the planner's cost of a random
// page read: a settle costs its page, not the table (joined on ctid alone, PostgreSQL's default
// costs would hash every row of the table).
import t from 'tap'
import { SyncStore, UNDELIVERED } from '../../src/store/sync-store.ts'
import { record } from '../helpers/fixtures.ts'
import { storeOnService } from '../helpers/gathering.ts'
import { recording, scannedInFull, type Sent } from '../helpers/plans.ts'

const { pool, registry, store } = await storeOnService(t)
const resource = registry.get('monitorEquip')
const BACKLOG = 20_000

/** The statements the sync store sends, with their values. */
const sent: Sent[] = []
const sync = new SyncStore({ pool: recording(pool, sent), registry })

// A backlog just written: no statistics yet (autovacuum kept away, so that none arrive meanwhile).
await pool.query('ALTER TABLE monitor_equip SET (autovacuum_enabled = false)')
await store.add(resource, record('monitorEquip', 'SP-0'), { userName: 'admin' })
await pool.query(
  `INSERT INTO monitor_equip SELECT copy.* FROM monitor_equip AS t, generate_series(1, $1::int) AS i, ` +
    `LATERAL jsonb_populate_record(NULL::monitor_equip, to_jsonb(t) || jsonb_build_object('id', 'SP-' || i, 'monitorCode', 'SP-CODE-' || i)) AS copy ` +
    `WHERE t.id = 'SP-0'`,
  [BACKLOG],
)

t.test('a settled page is synced, and its statement reads the page rows only', async (t) => {
  const page = await sync.pending(resource, false, 500, 16 * 1024 * 1024)
  t.equal(page.items.length, 500)
  sent.length = 0
  const settled = await sync.settle(
    resource,
    page.items.map((item) => ({ id: item.id, version: item.version, held: item.version, error: null })),
  )
  t.same(settled, { synced: 500, failed: 0 })
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM monitor_equip WHERE sync_status = 'synced'`)
  t.equal(rows[0].n, 500)
  t.equal(sent.length, 1)
  t.same(await scannedInFull(pool, sent[0]), [], 'no table read in full')
})

t.test('a failed call is recorded on the page, and its statement reads the page rows only', async (t) => {
  const page = await sync.pending(resource, false, 300, 16 * 1024 * 1024)
  sent.length = 0
  await sync.recordFailure(
    resource,
    page.items.map((item) => ({ id: item.id, version: item.version, error: 'park unreachable: test' })),
    1,
  )
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM monitor_equip WHERE sync_status = 'failed' AND sync_error = $1`, [
    `${UNDELIVERED}park unreachable: test`,
  ])
  t.equal(rows[0].n, 300)
  t.equal(sent.length, 1)
  t.same(await scannedInFull(pool, sent[0]), [], 'no table read in full')
})

t.end()
