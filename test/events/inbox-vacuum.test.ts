// The event inbox (docs/events.md, "What it costs"): the sequencer's moves leave dead rows in the
// inbox's pages, which every feed read's look for waiting events would scan; once enough events
// have been moved out, the sequencer's background run vacuums the drained inbox back to no pages.
import pg from 'pg'
import t from 'tap'
import { EventStore } from '../../src/store/event-store.ts'
import { migrate } from '../../src/store/migrate.ts'
import { freshDatabase } from '../helpers/service.ts'

const pool = new pg.Pool({ connectionString: await freshDatabase(t), max: 2 })
t.after(() => pool.end())
await migrate(pool, 'enterprise')
const store = new EventStore({ pool })

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
  t.equal(await store.vacuumInbox(true), false)
  t.ok((await pages()) > 0, 'their dead rows still take pages')
})

t.test('once enough events were moved, the drained inbox is vacuumed back to no pages', async (t) => {
  await append(1500)
  t.equal(await store.sequence(), 1500)
  t.ok((await pages()) > 10, 'the moved rows leave their pages dead')
  t.equal(await store.vacuumInbox(true), true)
  t.equal(await pages(), 0)
  t.equal(await store.vacuumInbox(true), false, 'nothing moved since')
  t.equal((await pool.query('SELECT last FROM event_counter')).rows[0].last, 1510, 'every event numbered')
})

t.test('not while writes go on, and a backlog after the vacuum is numbered in one statement', async (t) => {
  await append(2000)
  t.equal(await store.vacuumInbox(true), false, 'nothing moved since the last vacuum')
  t.equal(await store.sequence(), 2000)
  t.equal(await store.vacuumInbox(false), false, 'not drained')
  t.ok((await pages()) > 10)
  t.equal(await store.vacuumInbox(true), true)
  await append(5000)
  t.equal(await store.sequence(), 5000)
  const numbered = await pool.query('SELECT min(seq)::int AS first, max(seq)::int AS last, count(*)::int AS n FROM event')
  t.same(numbered.rows[0], { first: 1, last: 8510, n: 8510 }, 'every event numbered once, without gaps')
})
