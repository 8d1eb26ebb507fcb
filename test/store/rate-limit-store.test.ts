// The PostgreSQL rate-limit store counts far below a limit here and sends the counts in
// one statement, exactly near and over it (store/rate-limit-store.ts). What it answers, and what
// the database holds once counts are sent, on a real database; two stores stand for two instances.
import pg from 'pg'
import t from 'tap'
import { BATCH_FROM, PgRateLimitStore } from '../../src/store/rate-limit-store.ts'
import { migrate } from '../../src/store/migrate.ts'
import { freshDatabase } from '../helpers/service.ts'

const pool = new pg.Pool({ connectionString: await freshDatabase(t), max: 4 })
t.teardown(() => pool.end())
await migrate(pool)

const WINDOW = 60_000
type Store = InstanceType<ReturnType<typeof PgRateLimitStore.over>>

function incr(store: Store, key: string, max: number): Promise<{ current: number; ttl: number }> {
  return new Promise((resolve, reject) => store.incr(key, (error, result) => (error ? reject(error) : resolve(result!)), WINDOW, max))
}

async function counted(key: string): Promise<number | undefined> {
  const { rows } = await pool.query('SELECT count FROM rate_limit WHERE key = $1', [key])
  return rows[0]?.count
}

/** The pool, counting the statements run through it. */
function counting(): { pool: Pick<pg.Pool, 'query'>; statements: number } {
  const counter = {
    statements: 0,
    pool: { query: (sql: string, values: unknown[]) => (counter.statements++, pool.query(sql, values)) } as Pick<pg.Pool, 'query'>,
  }
  return counter
}

t.test('far below the limit: answered here, counted in the database in one statement', async (t) => {
  const database = counting()
  const store = new (PgRateLimitStore.over(database.pool))()
  const max = 1000
  const answers: number[] = []
  for (let i = 0; i < 100; i++) answers.push((await incr(store, 'far', max)).current)
  await store.flush()
  t.same(
    answers,
    Array.from({ length: 100 }, (_, i) => i + 1),
    'each answer counts every request before it',
  )
  t.equal(database.statements, 2, 'the first request of the window, then one statement for the other 99')
  t.equal(await counted('far'), 100)
})

t.test('past half the limit every request is exact; over it, answered here and still counted', async (t) => {
  const database = counting()
  const store = new (PgRateLimitStore.over(database.pool))()
  const max = BATCH_FROM
  const answers: number[] = []
  for (let i = 0; i < max + 10; i++) answers.push((await incr(store, 'near', max)).current)
  t.same(
    answers,
    Array.from({ length: max + 10 }, (_, i) => i + 1),
  )
  const before = database.statements
  await incr(store, 'near', max)
  t.equal(database.statements - before, 0, 'an exceeded caller costs the database nothing')
  await store.flush()
  t.equal(await counted('near'), max + 11)
})

t.test('small limits are exact on every request, across instances', async (t) => {
  const first = new (PgRateLimitStore.over(pool))()
  const second = new (PgRateLimitStore.over(pool))()
  const answers: number[] = []
  for (let i = 0; i < 7; i++) answers.push((await incr(i % 2 === 0 ? first : second, 'small', 5)).current)
  t.same(answers.slice(0, 6), [1, 2, 3, 4, 5, 6], 'each instance sees the other’s requests at once')
  t.ok(answers[6] > 5, 'an exceeded caller stays exceeded')
})

t.test('two instances: an instance past half the limit sees what the other has sent', async (t) => {
  const first = new (PgRateLimitStore.over(pool))()
  const second = new (PgRateLimitStore.over(pool))()
  const max = 200
  for (let i = 0; i < 90; i++) await incr(first, 'shared', max)
  await first.flush()
  for (let i = 0; i < 20; i++) await incr(second, 'shared', max)
  await second.flush()
  const answers: number[] = []
  for (let i = 0; i < 11; i++) answers.push((await incr(first, 'shared', max)).current)
  t.same(answers.slice(0, 10), [91, 92, 93, 94, 95, 96, 97, 98, 99, 100], 'under half: its own view')
  t.equal(answers[10], 121, 'past half: the database’s count, every request of both instances')
  t.equal(await counted('shared'), 121)
})

t.test('route stores share the counts of their database, under their own keys', async (t) => {
  const store = new (PgRateLimitStore.over(pool))()
  const route = store.child({ routeInfo: { method: 'POST', url: '/x' } })
  await incr(store, 'k', 5)
  t.equal((await incr(route as Store, 'k', 5)).current, 1)
  t.equal(await counted('POST/x-k'), 1)
})
