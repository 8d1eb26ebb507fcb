// Row group `drain`: a backlog of BENCH_DRAIN_RECORDS (20 000) pending monitorEquip records, written
// by SQL into an enterprise's database (as a write does: the record with sync_status 'pending'),
// pushed to a park edition. Two ways the park may find it:
// - at the enterprise's start: the park started, then the enterprise edition pushing to it (its
//   start-up sweep pushes what is pending). Records per second from the park being ready (its
//   enterprise account set) to every record `synced`, the enterprise's start-up included;
// - the park coming back: the enterprise up, its pushes failing while the park is stopped, then
//   the park started again on its port and database. Records per second from the park being ready
//   again to every record `synced` (the enterprise's probe finds it: SYNC_PARK_PROBE_MS).
import { ensureEnterpriseAccount } from '../dev/park-account.ts'
import { delay, fail, halted, note } from './common.ts'
import { connect, type Databases, query } from './database.ts'
import { fillMonitorEquip } from './fill.ts'
import { COMPANY_CODE, cpuSeconds, EDITION_PASSWORD, type Proc, startEdition, stop } from './processes.ts'
import { addRow } from './report.ts'
import { settings } from './settings.ts'

const account = {
  userName: `enterprise-${COMPANY_CODE}`,
  password: `bench-drain-${Math.random().toString(36).slice(2)}`,
  companyCode: COMPANY_CODE,
}

/** Resolves with performance.now() once `condition` (a boolean `answer` column) holds; undefined past the timeout. */
async function whenHolds(databaseUrl: string, condition: string, since: number): Promise<number | undefined> {
  const client = await connect(databaseUrl)
  try {
    for (;;) {
      const { rows } = await client.query<{ answer: boolean }>(condition)
      if (rows[0].answer) return performance.now()
      if (performance.now() - since > settings.syncTimeoutSeconds * 1000 || halted()) return undefined
      await delay(20)
    }
  } finally {
    await client.end().catch(() => {})
  }
}

// Whether any is left, not how many: counting the pending rows at every poll would cost PostgreSQL
// as much as the settles being measured.
const ALL_SYNCED = `SELECT NOT EXISTS (SELECT 1 FROM monitor_equip WHERE sync_status <> 'synced') AS answer`

/** Fails the run unless the park holds every record pushed. */
async function checkParkHoldsAll(parkUrl: string, count: number): Promise<void> {
  const [{ n: parked }] = await query<{ n: number }>(parkUrl, `SELECT count(*)::int AS n FROM monitor_equip`)
  if (parked !== count) fail(`drain: the park holds ${parked} records of the ${count} pushed`)
}

/** The CPU each process used since its `from` figure, as the row's words ('' when /proc has not told). */
function cpuUsed(used: [string, Proc, number | undefined][]): string {
  const figures = used.map(([name, proc, from]) => {
    const now = cpuSeconds(proc)
    return now === undefined || from === undefined ? undefined : `${name} ${(now - from).toFixed(2)} s`
  })
  return figures.includes(undefined) ? '' : `; CPU used: ${figures.join(', ')}`
}

/** Fresh databases `<name>_enterprise` and `<name>_park`, the enterprise's holding `count` pending records. */
async function withBacklog(databases: Databases, name: string, count: number): Promise<{ enterpriseUrl: string; parkUrl: string }> {
  const enterpriseUrl = await databases.create(`${name}_enterprise`, 'enterprise')
  const parkUrl = await databases.create(`${name}_park`)
  note(`${name}: ${count} pending records written by SQL`)
  await fillMonitorEquip(enterpriseUrl, { count, status: 'pending', companyCode: COMPANY_CODE })
  return { enterpriseUrl, parkUrl }
}

/** A park edition started on `parkUrl` (into `procs`, which the caller stops), the enterprise's account on it. */
async function parkWithAccount(name: string, parkUrl: string, procs: Proc[]): Promise<Proc> {
  const park = await startEdition(name, 'park', parkUrl, { raisedLimits: false })
  procs.push(park)
  await ensureEnterpriseAccount(park.url, EDITION_PASSWORD, account)
  return park
}

/** The park started, then the enterprise with its backlog. */
async function backlogAtStart(databases: Databases, count: number): Promise<void> {
  const { enterpriseUrl, parkUrl } = await withBacklog(databases, 'drain', count)
  const procs: Proc[] = []
  try {
    const park = await parkWithAccount('drain-park', parkUrl, procs)
    const parkReady = performance.now()
    const parkCpuAtReady = cpuSeconds(park)
    const enterprise = await startEdition('drain-enterprise', 'enterprise', enterpriseUrl, {
      raisedLimits: false,
      extra: { PARK_URL: park.url, PARK_USER: account.userName, PARK_PASSWORD: account.password },
    })
    procs.push(enterprise)
    const enterpriseReady = performance.now()
    const done = await whenHolds(enterpriseUrl, ALL_SYNCED, parkReady)
    if (done === undefined) return fail(`drain: records still pending ${settings.syncTimeoutSeconds} s after the park was ready`)
    const seconds = (done - parkReady) / 1000
    // CPU used from the park ready to the end (the enterprise's from its spawn): steadier than the
    // time on a shared machine, for comparing changes.
    const cpu = cpuUsed([
      ['enterprise', enterprise, 0],
      ['park', park, parkCpuAtReady],
    ])
    await checkParkHoldsAll(parkUrl, count)
    addRow({
      group: 'drain',
      what: `backlog of ${count.toLocaleString('en-US')} pending records drained, from the park ready (enterprise start-up included)`,
      value: count / seconds,
      unit: 'records/s',
      target: { op: '>=', limit: 5000, relative: false },
      detail: `all synced ${seconds.toFixed(2)} s after the park was ready; the enterprise started in ${((enterpriseReady - parkReady) / 1000).toFixed(2)} s, then ${(count / ((done - enterpriseReady) / 1000)).toFixed(0)} records/s${cpu}`,
    })
  } finally {
    for (const proc of procs.reverse()) await stop(proc)
  }
}

/** The enterprise up with its backlog while the park is stopped, then the park started again. */
async function parkComingBack(databases: Databases, count: number): Promise<void> {
  const { enterpriseUrl, parkUrl } = await withBacklog(databases, 'drain_back', count)
  const procs: Proc[] = []
  try {
    const first = await parkWithAccount('drain-back-park', parkUrl, procs)
    const port = Number(new URL(first.url).port)
    await stop(first)
    const enterprise = await startEdition('drain-back-enterprise', 'enterprise', enterpriseUrl, {
      raisedLimits: false,
      extra: { PARK_URL: first.url, PARK_USER: account.userName, PARK_PASSWORD: account.password },
    })
    procs.push(enterprise)
    // Its start-up sweep has pushed and failed: the park is known down, the probe looks for it.
    const failed = await whenHolds(
      enterpriseUrl,
      `SELECT EXISTS (SELECT 1 FROM monitor_equip WHERE sync_attempts > 0) AS answer`,
      performance.now(),
    )
    if (failed === undefined) return fail(`drain: the enterprise did not try to push within ${settings.syncTimeoutSeconds} s`)
    const park = await startEdition('drain-back-park', 'park', parkUrl, { raisedLimits: false, port })
    procs.push(park)
    const parkReady = performance.now()
    const cpuAtReady = [cpuSeconds(enterprise), cpuSeconds(park)]
    const done = await whenHolds(enterpriseUrl, ALL_SYNCED, parkReady)
    if (done === undefined) return fail(`drain: records still pending ${settings.syncTimeoutSeconds} s after the park was back`)
    const seconds = (done - parkReady) / 1000
    const cpu = cpuUsed([
      ['enterprise', enterprise, cpuAtReady[0]],
      ['park', park, cpuAtReady[1]],
    ])
    await checkParkHoldsAll(parkUrl, count)
    addRow({
      group: 'drain',
      what: `backlog of ${count.toLocaleString('en-US')} records written while the park was down, drained once it is back (enterprise up)`,
      value: count / seconds,
      unit: 'records/s',
      target: { op: '>=', limit: 5000, relative: false },
      detail: `all synced ${seconds.toFixed(2)} s after the park was ready again${cpu}`,
    })
  } finally {
    for (const proc of procs.reverse()) await stop(proc)
  }
}

export async function drainGroup(databases: Databases): Promise<void> {
  await backlogAtStart(databases, settings.drainRecords)
  await parkComingBack(databases, settings.drainRecords)
}
