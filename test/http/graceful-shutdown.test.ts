// SIGTERM stops taking requests, finishes those in flight, then exits cleanly.

import pg from 'pg'
import t from 'tap'
import { eventually, loginTo, post, startEdition } from '../helpers/park.ts'

const edition = await startEdition(t, { edition: 'enterprise' })
const token = await loginTo(edition.url)

t.test('a request in flight when SIGTERM arrives is answered in full; then the process exits 0', async (t) => {
  const database = new pg.Client({ connectionString: edition.databaseUrl })
  await database.connect()
  t.teardown(() => database.end())
  const list = Array.from({ length: 500 }, (_, i) => ({ id: `RU-G${i}`, riskUnitName: `unit ${i}` }))
  const inFlight = post(`${edition.url}/prevent/riskUnit/add-batch`, { list }, token)
  // The batch has started writing: the request is in flight.
  await eventually(async () => (await database.query('SELECT count(*)::int AS n FROM risk_unit')).rows[0].n > 0, {
    everyMs: 5,
    what: 'the batch under way',
  })
  const [reply, exitCode] = await Promise.all([inFlight, edition.stop('SIGTERM')])
  t.equal(reply.code, 0)
  t.equal(reply.data.succeeded.length, 500, 'every item of the batch in flight was stored')
  t.equal((await database.query('SELECT count(*)::int AS n FROM risk_unit')).rows[0].n, 500)
  t.equal(exitCode, 0, 'a clean exit')
  await t.rejects(fetch(`${edition.url}/health/live`), 'no new connections once stopped')
})

t.end()
