// Row groups `add`, `history` and `park`: the write load. One baseline process (bare Fastify + pg,
// baseline-server.ts) and the service's editions (src/main.ts), each on its own fresh database, are
// loaded in turn with `monitorEquip/add` bodies (unique, all 23 fields); each round runs every load
// once, alternating (baseline, prepared baseline, history, service, service with park), so that a
// drift of the machine's load hits them alike. Ratios pair each run with the baseline run of its
// round (the median of those pairs is judged; history's with the prepared one), best against best
// is shown too. After each run with a park,
// the time until every record written is `synced` (polled in the enterprise's database).
import { delay, fail, halted, median, note } from './common.ts'
import { Bodies } from './bodies.ts'
import { connect, type Databases, query } from './database.ts'
import { login, ok } from './http.ts'
import { type LoadRun, rejected, runLoad } from './load.ts'
import { COMPANY_CODE, EDITION_PASSWORD, memory, type Proc, startBaseline, startEdition, startPushingPair, stop } from './processes.ts'
import { addRow } from './report.ts'
import { settings, wants } from './settings.ts'

interface Load {
  name: string
  proc: Proc
  path: string
  headers: Record<string, string>
  bodies: Bodies
  /** Where its records land (checked against its successful answers). */
  databaseUrl: string
  runs: LoadRun[]
  /** Successful answers, warm-up and first call included. */
  ok: number
  /** The enterprise's database when it pushes to a park: wait for synced after each run. */
  synced?: { seconds: number[]; pendingAtEnd: number[]; parkDatabaseUrl: string }
}

const enterpriseAccount = {
  userName: `enterprise-${COMPANY_CODE}`,
  password: `bench-push-${Math.random().toString(36).slice(2)}`,
  companyCode: COMPANY_CODE,
}

async function serviceLoad(name: string, proc: Proc, databaseUrl: string, prefix: string): Promise<Load> {
  const token = await login(proc.url, 'admin', EDITION_PASSWORD)
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` }
  return { name, proc, path: '/hazard/monitorEquip/add', headers, bodies: new Bodies(prefix), databaseUrl, runs: [], ok: 0 }
}

/** Starts what the selected groups need; `procs` collects every process (stopped by the caller). */
async function setUp(databases: Databases, procs: Proc[]): Promise<Load[]> {
  const loads: Load[] = []
  const baselineUrl = await databases.create('baseline')
  const baseline = await startBaseline(baselineUrl)
  procs.push(baseline)
  const headers = { 'content-type': 'application/json' }
  loads.push({
    name: 'baseline',
    proc: baseline,
    path: '/bench/add',
    headers,
    bodies: new Bodies('b-'),
    databaseUrl: baselineUrl,
    runs: [],
    ok: 0,
  })
  if (wants('history')) {
    // Both statements prepared, as the service prepares its own: the history row weighs what the
    // statement does, not its parsing and planning.
    loads.push({
      name: 'baseline prepared',
      proc: baseline,
      path: '/bench/add-prepared',
      headers,
      bodies: new Bodies('hp-'),
      databaseUrl: baselineUrl,
      runs: [],
      ok: 0,
    })
    const bodies = new Bodies('h-')
    loads.push({
      name: 'baseline+history',
      proc: baseline,
      path: '/bench/add-history',
      headers,
      bodies,
      databaseUrl: baselineUrl,
      runs: [],
      ok: 0,
    })
  }
  if (wants('add')) {
    const url = await databases.create('enterprise')
    const enterprise = await startEdition('enterprise', 'enterprise', url, { raisedLimits: true })
    procs.push(enterprise)
    loads.push(await serviceLoad('service', enterprise, url, 'w-'))
  }
  if (wants('park')) {
    const parkDatabaseUrl = await databases.create('park')
    const url = await databases.create('enterprise_pushing')
    const { enterprise: pushing } = await startPushingPair(
      { park: 'park', enterprise: 'enterprise-with-park' },
      { park: parkDatabaseUrl, enterprise: url },
      enterpriseAccount,
      procs,
    )
    const load = await serviceLoad('service+park', pushing, url, 'p-')
    load.synced = { seconds: [], pendingAtEnd: [], parkDatabaseUrl }
    loads.push(load)
  }
  return loads
}

/** Seconds from `endedAt` until no record of the database is other than synced; undefined past the timeout. */
async function waitSynced(databaseUrl: string, endedAt: number): Promise<{ seconds: number | undefined; pendingAtEnd: number }> {
  const client = await connect(databaseUrl)
  try {
    const unsynced = async () =>
      (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM monitor_equip WHERE sync_status <> 'synced'`)).rows[0].n
    const pendingAtEnd = await unsynced()
    let left = pendingAtEnd
    while (left > 0) {
      if (performance.now() - endedAt > settings.syncTimeoutSeconds * 1000 || halted()) return { seconds: undefined, pendingAtEnd }
      await delay(20)
      left = await unsynced()
    }
    return { seconds: (performance.now() - endedAt) / 1000, pendingAtEnd }
  } finally {
    await client.end().catch(() => {})
  }
}

async function runOnce(load: Load, label: string, seconds: number, warmUp: boolean): Promise<void> {
  if (halted()) return
  note(`${label}: ${load.name} (${seconds} s)`)
  const run = await runLoad(
    { name: load.name, url: load.proc.url, path: load.path, headers: load.headers, body: () => load.bodies.next(), checkAnswers: warmUp },
    seconds,
  )
  load.ok += run.result['2xx']
  if (!warmUp) load.runs.push(run)
  if (!load.synced || halted()) return
  const { seconds: synced, pendingAtEnd } = await waitSynced(load.databaseUrl, run.endedAt)
  note(
    `${load.name}: ${pendingAtEnd} records not yet synced when the load stopped; all synced after ${synced?.toFixed(2) ?? '(timeout)'} s`,
  )
  if (synced === undefined) return fail(`${load.name}: records still not synced ${settings.syncTimeoutSeconds} s after the load stopped`)
  if (warmUp) return
  load.synced.seconds.push(synced)
  load.synced.pendingAtEnd.push(pendingAtEnd)
}

async function runRounds(loads: Load[]): Promise<void> {
  for (const load of loads) {
    await ok(load.proc.url + load.path, load.bodies.record(), load.headers.authorization?.slice(7), `the first write of ${load.name}`)
    load.ok++
  }
  if (settings.warmupSeconds > 0) for (const load of loads) await runOnce(load, 'warm-up', settings.warmupSeconds, true)
  for (let round = 1; round <= settings.rounds; round++) {
    for (const load of loads) await runOnce(load, `round ${round}/${settings.rounds}`, settings.seconds, false)
  }
}

/** Each database holds a row for every successful answer (at most one more per connection and run, in flight when a run stopped). */
async function checkRows(loads: Load[]): Promise<void> {
  for (const load of loads) {
    const [{ n }] = await query<{ n: number }>(load.databaseUrl, `SELECT count(*)::int AS n FROM monitor_equip WHERE id LIKE $1`, [
      `${load.bodies.prefix}%`,
    ])
    const slack = settings.connections * (load.runs.length + 1)
    if (n < load.ok || n - load.ok > slack || n > load.bodies.issued) {
      fail(`${load.name}: ${n} records stored for ${load.ok} successful answers and ${load.bodies.issued} bodies sent`)
    }
    const seen = rejected.get(load.name)
    if (seen) fail(`${load.name}: ${seen.count} warm-up answers were not code 0, e.g. ${seen.example}`)
  }
}

const rate = (run: LoadRun) => run.result.requests.average
const best = (load: Load) => load.runs.reduce<LoadRun | undefined>((a, b) => (a && rate(a) >= rate(b) ? a : b), undefined)
const fixed = (values: number[], digits = 2) => values.map((value) => value.toFixed(digits)).join(', ')

/** The rows of one load against the baseline's runs. */
function rateRow(load: Load, baseline: Load, group: 'add' | 'history' | 'park', what: string, limit: number): void {
  const top = best(load)
  const pairs = load.runs.map((run, i) => rate(run) / rate(baseline.runs[i] ?? best(baseline)!))
  const bestRatio = top && best(baseline) ? rate(top) / rate(best(baseline)!) : NaN
  addRow({
    group,
    what,
    value: top && rate(top),
    unit: 'req/s',
    target: { op: '>=', limit, relative: true },
    ratio: median(pairs),
    detail: `median of ${pairs.length} paired ratio(s) [${fixed(pairs)}], best/best ${bestRatio.toFixed(2)}; runs ${load.runs.map((run) => Math.round(rate(run))).join(', ')} req/s; p50 ${top?.result.latency.p50} ms, p99 ${top?.result.latency.p99} ms`,
  })
}

function report(loads: Load[]): void {
  const [baseline] = loads
  const top = best(baseline)
  addRow({
    group: 'add',
    what: 'baseline: bare Fastify + pg, same validation, record + outbox in one statement',
    value: top && rate(top),
    unit: 'req/s',
    detail: `runs ${baseline.runs.map((run) => Math.round(rate(run))).join(', ')} req/s; p50 ${top?.result.latency.p50} ms, p99 ${top?.result.latency.p99} ms`,
  })
  const byName = new Map(loads.map((load) => [load.name, load]))
  const service = byName.get('service')
  if (service) {
    rateRow(service, baseline, 'add', 'service, enterprise edition without park: monitorEquip/add', 0.85)
    // At 64 connections a p99 follows from the rate: the baseline's own, in the same rounds, tells
    // what this machine allows.
    const p99s = service.runs.map((run) => run.result.latency.p99)
    const baselineP99s = baseline.runs.map((run) => run.result.latency.p99)
    addRow({
      group: 'add',
      what: 'service p99 latency',
      value: median(p99s),
      unit: 'ms',
      target: { op: '<=', limit: 25, relative: false },
      detail: `median of runs [${p99s.join(', ')}] ms; the baseline's in the same rounds [${baselineP99s.join(', ')}] ms: ${(median(p99s) / median(baselineP99s)).toFixed(2)} × its median`,
    })
  }
  const history = byName.get('baseline+history')
  const prepared = byName.get('baseline prepared')
  if (history && prepared)
    rateRow(
      history,
      prepared,
      'history',
      "the service's add statement (resource-sql.ts insert and its event; its history entry is the record's first version), both prepared",
      0.9,
    )
  const pushing = byName.get('service+park')
  if (pushing) {
    rateRow(pushing, baseline, 'park', 'service with its park on the same machine: monitorEquip/add', 0.55)
    const { seconds, pendingAtEnd } = pushing.synced!
    addRow({
      group: 'park',
      what: 'all records written synced, after the load stopped',
      value: seconds.length ? Math.max(...seconds) : undefined,
      unit: 's',
      target: { op: '<=', limit: 2, relative: false },
      detail: `worst of runs [${fixed(seconds)}] s; not yet synced when the load stopped: ${pendingAtEnd.join(', ')} records`,
    })
  }
}

function memoryRows(measured: { proc: Proc; used: ReturnType<typeof memory> }[]): void {
  for (const { proc, used } of measured) {
    if (proc.name === 'baseline') continue
    const group = proc.name === 'enterprise' ? 'add' : 'park'
    addRow({
      group,
      what: `RSS of the ${proc.name} edition after the load`,
      value: used?.rss,
      unit: 'MB',
      target: { op: '<=', limit: 200, relative: false },
      detail: used ? `peak ${used.peak.toFixed(0)} MB (VmHWM)` : 'unreadable /proc status',
    })
  }
}

export async function writeGroups(databases: Databases): Promise<void> {
  const procs: Proc[] = []
  try {
    const loads = await setUp(databases, procs)
    note(`write loads: ${loads.map((load) => load.name).join(', ')}`)
    await runRounds(loads)
    if (halted()) return
    const used = procs.map((proc) => ({ proc, used: memory(proc) }))
    await checkRows(loads)
    const pushing = loads.find((load) => load.synced)
    if (pushing) await checkPark(pushing)
    report(loads)
    memoryRows(used)
    const service = loads.find((load) => load.name === 'service')
    if (service) await updateRows(service, loads[0])
  } finally {
    for (const proc of procs.reverse()) await stop(proc)
  }
}

/**
 * Info, after the add loads: `monitorEquip/update` of one field on the service's own records (the
 * first half of those it added: all stored), in runs of its own, against the baseline's add rate.
 */
async function updateRows(service: Load, baseline: Load): Promise<void> {
  const records = Math.floor(service.bodies.issued / 2)
  let sent = 0
  const body = () => {
    sent++
    return JSON.stringify({ id: `${service.bodies.prefix}${(sent % records) + 1}`, monitorName: `renamed ${sent}` })
  }
  const spec = { name: 'service update', url: service.proc.url, path: '/hazard/monitorEquip/update', headers: service.headers, body }
  note(`update: ${settings.rounds} run(s) of ${settings.seconds} s`)
  if (settings.warmupSeconds > 0) await runLoad({ ...spec, checkAnswers: true }, Math.min(settings.warmupSeconds, 3))
  const runs: LoadRun[] = []
  for (let round = 0; round < settings.rounds && !halted(); round++) runs.push(await runLoad(spec, settings.seconds))
  const seen = rejected.get(spec.name)
  if (seen) return fail(`${spec.name}: ${seen.count} warm-up answers were not code 0, e.g. ${seen.example}`)
  if (runs.length === 0) return
  const top = runs.reduce((a, b) => (rate(a) >= rate(b) ? a : b))
  addRow({
    group: 'add',
    what: 'service: monitorEquip/update of one field (its own runs, after the adds)',
    value: rate(top),
    unit: 'req/s',
    detail: `runs ${runs.map((run) => Math.round(rate(run))).join(', ')} req/s, ${(median(runs.map(rate)) / median(baseline.runs.map(rate))).toFixed(2)} × the baseline's add; p50 ${top.result.latency.p50} ms, p99 ${top.result.latency.p99} ms`,
  })
}

/** The park holds every record the enterprise holds (all synced by now). */
async function checkPark(pushing: Load): Promise<void> {
  const count = async (url: string) => (await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM monitor_equip`))[0].n
  const [held, parked] = [await count(pushing.databaseUrl), await count(pushing.synced!.parkDatabaseUrl)]
  if (held !== parked) fail(`the park holds ${parked} records, the enterprise pushing to it ${held}`)
}
