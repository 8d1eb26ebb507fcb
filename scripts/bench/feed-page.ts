// `EVENTS_DATABASE_URL=... node scripts/bench/feed-page.ts`: the time of a feed page of 500 events
// (store/event-store.ts, as `/system/event/list` reads it, the JSON parsed), from random positions
// of a database holding many events (filled beforehand, e.g. 10 000 000 by generate_series), with
// and without `types`; prints the median and p99 of 200 pages each.
import pg from 'pg'
import { EventStore } from '../../src/store/event-store.ts'

const url = process.env.EVENTS_DATABASE_URL
if (!url) throw new Error('EVENTS_DATABASE_URL must name a database holding events')
const pool = new pg.Pool({ connectionString: url, max: 2 })
const store = new EventStore({ pool })
const [{ last }] = (await pool.query<{ last: string }>('SELECT last FROM event_counter')).rows
const events = Number(last)

async function measure(name: string, query: (after: number) => Parameters<EventStore['page']>[0]): Promise<void> {
  const times: number[] = []
  for (let n = 0; n < 200; n++) {
    const after = Math.floor(Math.random() * (events - 1000))
    const started = performance.now()
    const page = await store.page(query(after))
    times.push(performance.now() - started)
    if (page.list.length === 0) throw new Error(`${name}: an empty page after ${after}`)
  }
  times.sort((a, b) => a - b)
  console.log(`${name}: median ${times[100].toFixed(1)} ms, p99 ${times[197].toFixed(1)} ms (${events} events)`)
}

await measure('500 events', (after) => ({ after, types: undefined, pageSize: 500, companyCode: undefined }))
await measure('500 events of two types', (after) => ({
  after,
  types: ['record.updated', 'record.deleted'],
  pageSize: 500,
  companyCode: undefined,
}))
await measure("500 of one enterprise's events", (after) => ({ after, types: undefined, pageSize: 500, companyCode: '222222222' }))
await pool.end()
