// The event inbox (docs/events.md, "What it costs"): the sequencer's moves leave dead rows in the
// inbox's pages, which every look for waiting events would scan; once enough events have been moved
// out, and at most once a second, the sequencer's background run vacuums the inbox.
import pg from 'pg'
import t from 'tap'
import { EventStore } from '../../src/store/event-store.ts'
import { migrate } from '../../src/store/migrate.ts'
import { freshDatabase } from '../helpers/service.ts'

const pool = new pg.Pool({ connectionString: await freshDatabase(t), max: 2 })
t.after(() => pool.end())
await migrate(pool, 'enterprise')
let now = 0
const store = new EventStore({ pool, clock: () => now })

const pages = async () => Number((await pool.query(`SELECT pg_relation_size('event_inbox') / 8192 AS pages`)).rows[0].pages)
const append = (count: number) =>
  pool.query(
    `INSERT INTO event_inbox (type, time, "companyCode", data) ` +
      `SELECT 'record.added', now(), '000000000', jsonb_build_object('resource', 'prevent/riskUnit', 'id', 'RU-' || i, 'version', 1, 'changes', '{}'::jsonb) ` +
      `FROM generate_series(1, $1::int) AS i`,
    [count],
  )

t.test('a few events moved: the inbox is left to autovacuum', async (t) => {
  await append(10)
  t.equal(await store.sequence(), 10)
  t.equal(await store.vacuumInbox(), false)
  t.ok((await pages()) > 0, 'their dead rows still take pages')
})

t.test('once enough events were moved, the drained inbox is vacuumed back to no pages', async (t) => {
  await append(1500)
  t.equal(await store.sequence(), 1500)
  t.ok((await pages()) > 10, 'the moved rows leave their pages dead')
  t.equal(await store.vacuumInbox(), true)
  t.equal(await pages(), 0)
  t.equal(await store.vacuumInbox(), false, 'nothing moved since')
  t.equal((await pool.query('SELECT last FROM event_counter')).rows[0].last, 1510, 'every event numbered')
})

t.test('at most once a second, and a backlog after a vacuum is numbered in one statement', async (t) => {
  await append(2000)
  t.equal(await store.sequence(), 2000)
  now += 999
  t.equal(await store.vacuumInbox(), false, 'within a second of the last vacuum')
  t.ok((await pages()) > 10)
  now += 1
  t.equal(await store.vacuumInbox(), true, 'a second after it')
  await append(5000)
  t.equal(await store.sequence(), 5000)
  const numbered = await pool.query('SELECT min(seq)::int AS first, max(seq)::int AS last, count(*)::int AS n FROM event')
  t.same(numbered.rows[0], { first: 1, last: 8510, n: 8510 }, 'every event numbered once, without gaps')
})
