// Row group `drain`: a backlog of BENCH_DRAIN_RECORDS (20 000) pending monitorEquip records, written
// by SQL into a stopped enterprise's database (as a write does: the record with sync_status
// 'pending'), then the park edition started, then the enterprise edition pushing to it (its
// start-up sweep pushes what is pending). The figure: records per second from the park being
// ready (its enterprise account set) to every record `synced`, the enterprise's start-up included.
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

/** Resolves with performance.now() once no record is other than synced; undefined past the timeout. */
async function allSynced(databaseUrl: string, since: number): Promise<number | undefined> {
  const client = await connect(databaseUrl)
  try {
    for (;;) {
      // Whether any is left, not how many: counting 20 000 pending rows every 20 ms cost PostgreSQL
      // as much CPU as the settles being measured.
      const { rows } = await client.query<{ left: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM monitor_equip WHERE sync_status <> 'synced') AS left`,
      )
      if (!rows[0].left) return performance.now()
      if (performance.now() - since > settings.syncTimeoutSeconds * 1000 || halted()) return undefined
      await delay(20)
    }
  } finally {
    await client.end().catch(() => {})
  }
}

export async function drainGroup(databases: Databases): Promise<void> {
  const count = settings.drainRecords
  const enterpriseUrl = await databases.create('drain_enterprise', 'enterprise')
  const parkUrl = await databases.create('drain_park')
  note(`drain: ${count} pending records written by SQL`)
  await fillMonitorEquip(enterpriseUrl, { count, status: 'pending', companyCode: COMPANY_CODE })
  const procs: Proc[] = []
  try {
    const park = await startEdition('drain-park', 'park', parkUrl, { raisedLimits: false })
    procs.push(park)
    await ensureEnterpriseAccount(park.url, EDITION_PASSWORD, account)
    const parkReady = performance.now()
    const parkCpuAtReady = cpuSeconds(park)
    const enterprise = await startEdition('drain-enterprise', 'enterprise', enterpriseUrl, {
      raisedLimits: false,
      extra: { PARK_URL: park.url, PARK_USER: account.userName, PARK_PASSWORD: account.password },
    })
    procs.push(enterprise)
    const enterpriseReady = performance.now()
    const done = await allSynced(enterpriseUrl, parkReady)
    if (done === undefined) return fail(`drain: records still pending ${settings.syncTimeoutSeconds} s after the park was ready`)
    const [{ n: parked }] = await query<{ n: number }>(parkUrl, `SELECT count(*)::int AS n FROM monitor_equip`)
    if (parked !== count) fail(`drain: the park holds ${parked} records of the ${count} pushed`)
    const seconds = (done - parkReady) / 1000
    // CPU used from the park ready to the end (the enterprise's from its spawn): steadier than the
    // time on a shared machine, for comparing changes.
    const used = [cpuSeconds(enterprise), cpuSeconds(park)]
    const cpu =
      used[0] !== undefined && used[1] !== undefined && parkCpuAtReady !== undefined
        ? `; CPU used: enterprise ${used[0].toFixed(2)} s, park ${(used[1] - parkCpuAtReady).toFixed(2)} s`
        : ''
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
