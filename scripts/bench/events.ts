// Row group `events`: webhook delivery under the write load. One enterprise edition (src/main.ts)
// on a fresh database and one receiver (webhook-receiver.ts, its own process, answering 204 at
// once) are loaded with `monitorEquip/add` bodies, rounds alternating a run without an endpoint and
// a run with one endpoint subscribed to every event type; after each run with it, the time from the
// end of the load until every event written during the run has been delivered (each counted once,
// by webhook-id), and the deliveries a second from the first delivery to the last. Then the feed's
// reads: BENCH_EVENTS events filled by SQL (fill.ts) after those of the load, and pages of 500 of
// `/system/event/list` over HTTP from random places, the median of BENCH_READ_CALLS calls.
// Beside the rates, the CPU each costs, by /proc: a write (the edition, its database's backends, the
// load generator), an event delivered (the same over the writes' share, and the receiver), and a
// bare signed POST of an event's body to the receiver (bare-poster.ts: no database, no queue),
// whence the most the ratio of rates can be while every event is delivered as it is written.
import { fork } from 'node:child_process'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { delay, fail, halted, median, note } from './common.ts'
import { Bodies, document } from './bodies.ts'
import { connect, type Databases } from './database.ts'
import { fillEvents } from './fill.ts'
import { login, ok } from './http.ts'
import { runLoad } from './load.ts'
import { backendCpuSeconds, COMPANY_CODE, cpuSeconds, EDITION_PASSWORD, startEdition, stop } from './processes.ts'
import { timeRead } from './reads.ts'
import { addRow } from './report.ts'
import { settings } from './settings.ts'

interface Received {
  count: number
  first: number
  last: number
}

/** The receiver's process: `ask` sends a message and, for 'count', answers its reply. */
async function startReceiver() {
  const child = fork(path.join(import.meta.dirname, 'webhook-receiver.ts'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  const replies: ((message: unknown) => void)[] = []
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the webhook receiver exited while starting (${code})`)))
    child.once('message', (message) => resolve((message as { url: string }).url))
  })
  child.on('message', (message) => replies.shift()?.(message))
  return {
    url,
    pid: child.pid!,
    reset: () => child.send('reset'),
    count: () =>
      new Promise<Received>((resolve) => {
        replies.push(resolve as (message: unknown) => void)
        child.send('count')
      }),
    stop: () =>
      new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.send('stop')))),
  }
}

/** Bare signed POSTs of `body` to the receiver for `seconds`, from a process of their own: how many were answered, and its pid's CPU seconds. */
async function barePosts(url: string, body: string, seconds: number): Promise<{ count: number; cpu: number }> {
  const child = fork(path.join(import.meta.dirname, 'bare-poster.ts'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  try {
    const answer = new Promise<{ count?: number; error?: string }>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the bare poster exited (${code})`)))
      child.on('message', (message) => {
        if (message === 'ready') child.send({ url, body, seconds })
        else resolve(message as { count?: number; error?: string })
      })
    })
    const { count, error } = await answer
    if (error !== undefined || count === undefined) throw new Error(`the bare poster failed: ${error}`)
    return { count, cpu: cpuSeconds({ pid: child.pid! }) ?? NaN }
  } finally {
    child.removeAllListeners('exit')
    child.kill()
  }
}

/** CPU seconds used so far by each of these parts. */
type CpuParts = Record<string, () => number>
const cpuNow = (parts: CpuParts) => Object.fromEntries(Object.entries(parts).map(([name, read]) => [name, read()]))
const cpuSince = (parts: CpuParts, from: Record<string, number>) =>
  Object.fromEntries(Object.entries(parts).map(([name, read]) => [name, read() - from[name]]))

/** CPU seconds by part over some operations, as milliseconds an operation. */
class CpuTally {
  private readonly seconds: Record<string, number> = {}
  private count = 0

  /** Adds `used` (seconds by part) for `count` operations, less `less` times what each of `cost`'s operations took. */
  add(used: Record<string, number>, count: number, less?: { cost: CpuTally; times: number }): void {
    for (const [part, seconds] of Object.entries(used)) {
      const taken = less ? (less.cost.seconds[part] ?? 0) * (less.times / less.cost.count) : 0
      this.seconds[part] = (this.seconds[part] ?? 0) + seconds - taken
    }
    this.count += count
  }

  /** CPU seconds of every part together. */
  total(): number {
    return Object.values(this.seconds).reduce((total, seconds) => total + seconds, 0)
  }

  ms(): number {
    return (this.total() / this.count) * 1000
  }

  detail(): string {
    const parts = Object.entries(this.seconds).map(([part, seconds]) => `${part} ${((seconds / this.count) * 1000).toFixed(3)}`)
    return `${this.count} operations; ms by part: ${parts.join(', ')}`
  }
}

const benchCpuSeconds = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}

/** Pages of 500 of the feed, each from a random place among `settings.events` events filled after those of the load. */
async function timeFeed(baseUrl: string, databaseUrl: string, token: string): Promise<void> {
  const count = settings.events
  note(`events: filling ${count.toLocaleString('en-US')} events`)
  const first = await fillEvents(databaseUrl, count, COMPANY_CODE)
  const after = () => first - 1 + Math.floor(Math.random() * (count - 500))
  const fullPage = (data: { list: unknown[] }) => (data.list.length === 500 ? undefined : `answered ${data.list.length} events, not 500`)
  const stored = `${count.toLocaleString('en-US')} events stored`
  const path = '/system/event/list'
  await timeRead('events', baseUrl, token, {
    what: `the feed: a page of 500 from a random place, ${stored}`,
    path,
    body: () => ({ after: after(), pageSize: 500 }),
    target: 20,
    check: fullPage,
  })
  await timeRead('events', baseUrl, token, {
    what: 'the feed: a page of 500 of two of its types (record.updated, record.deleted)',
    path,
    body: () => ({ after: after(), pageSize: 500, types: ['record.updated', 'record.deleted'] }),
    check: fullPage,
  })
}

const EVENT_TYPES = (document.components?.schemas?.EventType as { enum?: string[] } | undefined)?.enum

export async function eventsGroup(databases: Databases): Promise<void> {
  if (!EVENT_TYPES?.length) throw new Error('openapi.yaml lists no EventType')
  const databaseUrl = await databases.create('events')
  const proc = await startEdition('events', 'enterprise', databaseUrl, { raisedLimits: true, extra: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  const receiver = await startReceiver()
  const db = await connect(databaseUrl)
  const rates: Record<'none' | 'one', number[]> = { none: [], one: [] }
  const catchUp: number[] = []
  const perSecond: number[] = []
  const details: string[] = []
  /** CPU seconds and counts over the rounds: the writes without an endpoint, the events delivered with one. */
  const cpu = { writes: new CpuTally(), deliveries: new CpuTally(), bare: new CpuTally() }
  const writeParts: CpuParts = {
    edition: () => cpuSeconds(proc) ?? NaN,
    database: () => backendCpuSeconds(databaseUrl),
    bench: benchCpuSeconds,
  }
  const deliveryParts: CpuParts = { ...writeParts, receiver: () => cpuSeconds({ pid: receiver.pid }) ?? NaN }
  let eventBody: string | undefined
  /** Seconds the runs without an endpoint lasted. */
  let writesWall = 0
  try {
    const token = await login(proc.url, 'admin', EDITION_PASSWORD)
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` }
    const bodies = new Bodies('ev-')
    const load = async (name: string, seconds: number) =>
      (
        await runLoad(
          { name, url: proc.url, path: '/hazard/monitorEquip/add', headers, body: () => bodies.next(), checkAnswers: true },
          seconds,
        )
      ).result
    note(`warm-up: events (${settings.warmupSeconds} s)`)
    if (settings.warmupSeconds > 0) await load('events warm-up', settings.warmupSeconds)
    /** The last seq once every event committed so far is numbered (the feed's read numbers them first). */
    const lastSeq = async () => {
      await ok(`${proc.url}/system/event/list`, { pageSize: 1 }, token, 'event/list')
      return Number((await db.query('SELECT last FROM event_counter')).rows[0].last)
    }
    for (let round = 1; round <= settings.rounds && !halted(); round++) {
      note(`round ${round}/${settings.rounds}: events, no endpoint (${settings.seconds} s)`)
      const beforeNone = cpuNow(writeParts)
      const noneStarted = Date.now()
      const none = await load('events, no endpoint', settings.seconds)
      writesWall += (Date.now() - noneStarted) / 1000
      cpu.writes.add(cpuSince(writeParts, beforeNone), none['2xx'])
      rates.none.push(none.requests.average)
      await ok(`${proc.url}/system/webhook/add`, { id: 'bench', url: receiver.url, types: EVENT_TYPES }, token, 'webhook/add')
      const from = await lastSeq()
      receiver.reset()
      note(`round ${round}/${settings.rounds}: events, one endpoint (${settings.seconds} s)`)
      const beforeOne = cpuNow(deliveryParts)
      const result = await load('events, one endpoint', settings.seconds)
      const stopped = Date.now()
      rates.one.push(result.requests.average)
      const atStop = (await receiver.count()).count
      const events = (await lastSeq()) - from
      let received = await receiver.count()
      while (received.count < events && Date.now() - stopped < settings.syncTimeoutSeconds * 1000 && !halted()) {
        await delay(100)
        received = await receiver.count()
      }
      if (received.count < events) {
        fail(`events: ${received.count} of ${events} events delivered ${settings.syncTimeoutSeconds} s after the load stopped`)
        break
      }
      // Every delivery settled `delivered` (the last attempts' outcomes are recorded just after their answers).
      const undelivered = async () =>
        Number((await db.query(`SELECT count(*) AS n FROM webhook_delivery WHERE endpoint = 'bench' AND state <> 'delivered'`)).rows[0].n)
      const settledBy = Date.now() + 30_000
      while ((await undelivered()) > 0 && Date.now() < settledBy) await delay(200)
      const left = await undelivered()
      if (left > 0) fail(`events: ${left} deliveries to an endpoint answering 204 not delivered 30 s after their events were received`)
      // What the round cost beyond its writes (at the cost of a write without an endpoint) is the deliveries'.
      cpu.deliveries.add(cpuSince(deliveryParts, beforeOne), events, { cost: cpu.writes, times: result['2xx'] })
      eventBody ??= JSON.stringify((await ok(`${proc.url}/system/event/list`, { after: from, pageSize: 1 }, token, 'event/list')).list[0])
      catchUp.push(Math.max(0, received.last - stopped) / 1000)
      perSecond.push(received.count / Math.max((received.last - received.first) / 1000, 0.001))
      details.push(`${events} events, ${atStop} delivered when the load stopped`)
      note(`events: ${details.at(-1)}; the last ${catchUp.at(-1)!.toFixed(2)} s after it; ${perSecond.at(-1)!.toFixed(0)} deliveries/s`)
      await ok(`${proc.url}/system/webhook/delete`, { id: 'bench' }, token, 'webhook/delete')
    }
    if (!halted() && eventBody !== undefined) {
      note(`events: bare signed POSTs of an event to the receiver (${settings.seconds} s)`)
      const receiverBefore = cpuSeconds({ pid: receiver.pid }) ?? NaN
      const bare = await barePosts(receiver.url, eventBody, settings.seconds)
      cpu.bare.add({ poster: bare.cpu, receiver: (cpuSeconds({ pid: receiver.pid }) ?? NaN) - receiverBefore }, bare.count)
    }
    if (!halted()) await timeFeed(proc.url, databaseUrl, token)
  } finally {
    await db.end().catch(() => {})
    await receiver.stop()
    await stop(proc)
  }
  if (catchUp.length === 0) return
  addRow({
    group: 'events',
    what: 'every event delivered to one endpoint (every type, a receiver answering at once), after the add load stopped',
    value: Math.max(...catchUp),
    unit: 's',
    target: { op: '<=', limit: 5, relative: false },
    detail: `worst of runs [${catchUp.map((s) => s.toFixed(2)).join(', ')}] s; ${details.join('; ')}`,
  })
  addRow({
    group: 'events',
    what: 'deliveries a second to that endpoint, first delivery to last',
    value: median(perSecond),
    unit: '/s',
    detail: `runs ${perSecond.map(Math.round).join(', ')}/s; the add load: ${rates.one.map(Math.round).join(', ')} req/s`,
  })
  addRow({
    group: 'events',
    what: 'CPU a monitorEquip/add takes, no endpoint (the edition, its database, the load generator)',
    value: cpu.writes.ms(),
    unit: 'ms',
    detail: cpu.writes.detail(),
  })
  addRow({
    group: 'events',
    what: 'CPU an event delivered takes (the same processes beyond the writes, and the receiver)',
    value: cpu.deliveries.ms(),
    unit: 'ms',
    detail: cpu.deliveries.detail(),
  })
  addRow({
    group: 'events',
    what: "CPU a bare signed POST of an event's body to that receiver takes (the poster and the receiver alone)",
    value: cpu.bare.ms(),
    unit: 'ms',
    detail: `${cpu.bare.detail()}, in ${settings.seconds} s`,
  })
  // Without an endpoint the writes keep `busy` of the cores busy; with one, each write costs at
  // least a bare POST more, and the cores can give no more than all of themselves.
  const busy = cpu.writes.total() / (availableParallelism() * writesWall)
  addRow({
    group: 'events',
    what: 'the most the ratio below can be on these cores, each write then costing a bare POST more',
    value: Math.min(1, cpu.writes.ms() / (busy * (cpu.writes.ms() + cpu.bare.ms()))),
    unit: '×',
    detail: `the writes alone kept ${(busy * 100).toFixed(0)} % of the ${availableParallelism()} cores busy; every event delivered as it is written`,
  })
  // The same reckoning the other way round: what a delivery may cost, all told, for 0.9 ×.
  addRow({
    group: 'events',
    what: 'the most CPU an event delivered can take for 0.9 × on these cores',
    value: cpu.writes.ms() / (0.9 * busy) - cpu.writes.ms(),
    unit: 'ms',
    detail: `against ${cpu.deliveries.ms().toFixed(2)} ms measured above`,
  })
  const pairs = rates.one.map((rate, i) => rate / rates.none[i])
  addRow({
    group: 'events',
    what: 'monitorEquip/add with that endpoint against none (same edition, alternated)',
    value: median(rates.one),
    unit: 'req/s',
    target: { op: '>=', limit: 0.9, relative: true, of: 'no endpoint' },
    ratio: median(pairs),
    detail: `paired ratios [${pairs.map((ratio) => ratio.toFixed(2)).join(', ')}]; without: ${rates.none.map(Math.round).join(', ')} req/s`,
  })
}
