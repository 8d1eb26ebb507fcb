// Row group `alarms`: how soon alarms are readable, on an enterprise edition pushing to a park
// edition (both on the machine), while a load of readings keeps the enterprise busy: 3 000 points
// sending a reading a second each (hazard/monitorData/add-batch, a call of 1 000 readings per
// gateway), in normal range. Measured over HTTP, as a client sees it:
// - BENCH_ALARMS probe points, one after the other, each sent one reading above its high threshold:
//   from the add-batch call's answer until hazard/monitorAlarm/search on the enterprise answers the
//   alarm, and until the park's search answers it (a poller of the park's newest alarms);
// - points that stop sending (offlineAfterSeconds 10, one reading each): from their deadline (the
//   reading sent plus 10 s) until the enterprise's search answers their offline alarm;
// - the enterprise's resident memory, sampled every second while the load runs.
import { delay, fail, halted, median, note } from './common.ts'
import { type Databases, query } from './database.ts'
import { monitorEquipExample } from './bodies.ts'
import { login, ok } from './http.ts'
import { COMPANY_CODE, EDITION_PASSWORD, memory, type Proc, startPushingPair, stop } from './processes.ts'
import { addRow } from './report.ts'
import { settings } from './settings.ts'

const LOAD_POINTS = 3000
const GATEWAY_POINTS = 1000
const OFFLINE_POINTS = 20
const OFFLINE_AFTER_SECONDS = 10
/** A probe's reading: above the example equipment's oneLevelHigh (1.6), below twoLevelHigh. */
const ABOVE_HIGH = '1.8'
/** How long an alarm may take to show before the bench calls it missing. */
const GIVE_UP_MS = 60_000
/** How long after the last probe alarm the park may take to show them all, under the load. */
const PARK_GIVE_UP_MS = 20_000

const account = {
  userName: `enterprise-${COMPANY_CODE}`,
  password: `bench-alarms-${Math.random().toString(36).slice(2)}`,
  companyCode: COMPANY_CODE,
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

const spread = (values: number[]) =>
  `p50 ${median(values).toFixed(0)}, p99 ${percentile(values, 99).toFixed(0)}, max ${Math.max(...values).toFixed(0)} ms over ${values.length}`

/** The document's example equipment under another id, with its own offline setting. */
function point(id: string, offlineAfterSeconds: number | null): Record<string, unknown> {
  return { ...monitorEquipExample(), id, monitorCode: `MC-${id}`, monitorName: `bench ${id}`, offlineAfterSeconds }
}

interface Edition {
  proc: Proc
  token: string
}

const post = (edition: Edition, path: string, body: unknown, what: string) => ok(`${edition.proc.url}${path}`, body, edition.token, what)

/** The newest alarms of a kind (or of a point): monitorEquipId → the alarm. */
async function alarms(edition: Edition, conditions: unknown[], pageSize: number): Promise<Map<string, { id: string; startTime: string }>> {
  const data = await post(edition, '/hazard/monitorAlarm/search', { pageNum: 1, pageSize, conditions }, 'reading alarms')
  return new Map(data.list.map((alarm: any) => [alarm.monitorEquipId, alarm]))
}

/**
 * The load: gateways of GATEWAY_POINTS points each, every point a reading in normal range a second
 * (stamped with the current second, or the next one when a call came back within the same second).
 */
async function loadReadings(enterprise: Edition, until: { done: boolean }): Promise<number> {
  let sent = 0
  const gateway = async (g: number) => {
    let second = 0
    while (!until.done && !halted()) {
      const now = Date.now()
      if (Math.floor(now / 1000) <= second) {
        await delay(1000 - (now % 1000))
        continue
      }
      second = Math.floor(now / 1000)
      const list = Array.from({ length: GATEWAY_POINTS }, (_, i) => ({
        monitorEquipId: `LP-${g * GATEWAY_POINTS + i}`,
        time: new Date(second * 1000).toISOString(),
        value: (0.5 + ((second + i) % 100) / 100).toFixed(2),
      }))
      const data = await post(enterprise, '/hazard/monitorData/add-batch', { list }, 'the load of readings')
      if (data.accepted !== GATEWAY_POINTS) return fail(`alarms: the load had ${data.accepted} of ${GATEWAY_POINTS} readings accepted`)
      sent += GATEWAY_POINTS
    }
  }
  await Promise.all(Array.from({ length: LOAD_POINTS / GATEWAY_POINTS }, (_, g) => gateway(g)))
  return sent
}

/** Polls `read` every `everyMs` until `done`, noting when each monitorEquipId was first answered. */
async function watch(read: () => Promise<Map<string, unknown>>, everyMs: number, seen: Map<string, number>, until: () => boolean) {
  while (!until() && !halted()) {
    const found = await read().catch((error: unknown) => {
      fail(`alarms: polling: ${(error as Error).message}`)
      return new Map<string, unknown>()
    })
    const at = performance.now()
    for (const id of found.keys()) if (!seen.has(id)) seen.set(id, at)
    await delay(everyMs)
  }
}

interface Probes {
  enterpriseMs: number[]
  answered: Map<string, number>
}

/** Each probe point in turn: one reading above its threshold, then the enterprise's search until it answers the alarm. */
async function probe(enterprise: Edition, count: number): Promise<Probes> {
  const enterpriseMs: number[] = []
  const answered = new Map<string, number>()
  for (let i = 0; i < count && !halted(); i++) {
    const id = `AP-${i}`
    const reading = { monitorEquipId: id, time: new Date().toISOString(), value: ABOVE_HIGH }
    await post(enterprise, '/hazard/monitorData/add-batch', { list: [reading] }, 'a probe reading')
    const at = performance.now()
    answered.set(id, at)
    const conditions = [{ field: 'monitorEquipId', op: 'eq', value: id }]
    while (!(await alarms(enterprise, conditions, 20)).has(id)) {
      if (performance.now() - at > GIVE_UP_MS || halted()) return { enterpriseMs, answered }
      await delay(5)
    }
    enterpriseMs.push(performance.now() - at)
  }
  return { enterpriseMs, answered }
}

/** The offline points' one reading each, half a second apart: when each was sent. */
async function stopSending(enterprise: Edition): Promise<Map<string, number>> {
  const sent = new Map<string, number>()
  for (let i = 0; i < OFFLINE_POINTS && !halted(); i++) {
    const id = `OP-${i}`
    const at = performance.now()
    await post(
      enterprise,
      '/hazard/monitorData/add-batch',
      { list: [{ monitorEquipId: id, time: new Date().toISOString(), value: '1.0' }] },
      'an offline point reading',
    )
    sent.set(id, at)
    await delay(500)
  }
  return sent
}

/** Waits until every id was seen or `giveUpAt`: the ids not seen. */
async function waitFor(seen: Map<string, number>, ids: string[], giveUpAt: number): Promise<string[]> {
  for (;;) {
    const missing = ids.filter((id) => !seen.has(id))
    if (missing.length === 0 || halted() || performance.now() > giveUpAt) return missing
    await delay(100)
  }
}

export async function alarmGroup(databases: Databases): Promise<void> {
  const count = settings.alarms
  const procs: Proc[] = []
  try {
    const enterpriseUrl = await databases.create('alarms_enterprise')
    const { park, enterprise: enterpriseProc } = await startPushingPair(
      { park: 'alarms-park', enterprise: 'alarms-enterprise' },
      { park: await databases.create('alarms_park'), enterprise: enterpriseUrl },
      account,
      procs,
    )
    const enterprise = { proc: enterpriseProc, token: await login(enterpriseProc.url, 'admin', EDITION_PASSWORD) }
    const parkEdition = { proc: park, token: await login(park.url, 'admin', EDITION_PASSWORD) }
    const ids = [
      ...Array.from({ length: LOAD_POINTS }, (_, i) => point(`LP-${i}`, null)),
      ...Array.from({ length: count }, (_, i) => point(`AP-${i}`, null)),
      ...Array.from({ length: OFFLINE_POINTS }, (_, i) => point(`OP-${i}`, OFFLINE_AFTER_SECONDS)),
    ]
    for (let from = 0; from < ids.length; from += 500) {
      await post(enterprise, '/hazard/monitorEquip/add-batch', { list: ids.slice(from, from + 500) }, 'adding the points')
    }

    note(`alarms: ${count} probe alarms and ${OFFLINE_POINTS} offline points under a load of readings`)
    const stopped = { done: false }
    const rss: number[] = []
    const sampler = setInterval(() => {
      const used = memory(enterpriseProc)
      if (used) rss.push(used.rss)
    }, 1000)
    const loadStarted = performance.now()
    const load = loadReadings(enterprise, stopped)
    await delay(2000)
    const onPark = new Map<string, number>()
    const offline = new Map<string, number>()
    const parkWatch = watch(
      () => alarms(parkEdition, [{ field: 'kind', op: 'eq', value: 'high' }], 100),
      100,
      onPark,
      () => stopped.done,
    )
    const offlineWatch = watch(
      () => alarms(enterprise, [{ field: 'kind', op: 'eq', value: 'offline' }], 100),
      250,
      offline,
      () => stopped.done,
    )
    const [sentOffline, probes] = await Promise.all([stopSending(enterprise), probe(enterprise, count)])
    const probed = performance.now()
    const offlineMissing = await waitFor(offline, [...sentOffline.keys()], probed + GIVE_UP_MS)
    const parkMissing = await waitFor(onPark, [...probes.answered.keys()], probed + PARK_GIVE_UP_MS)
    const pushState = parkMissing.length
      ? await query(
          enterpriseUrl,
          `SELECT sync_status, max(sync_attempts) AS attempts, count(*)::int AS n FROM monitor_alarm WHERE "monitorEquipId" = ANY($1) GROUP BY 1`,
          [parkMissing],
        )
      : []
    stopped.done = true
    const readings = await load
    const loadStopped = performance.now()
    const loadSeconds = (loadStopped - loadStarted) / 1000
    clearInterval(sampler)
    const peak = memory(enterpriseProc)?.peak
    // What the park had not received under the load: how long after the load stopped it came.
    const parkWatchAfter = watch(
      () => alarms(parkEdition, [{ field: 'kind', op: 'eq', value: 'high' }], 500),
      100,
      onPark,
      () => parkMissing.every((id) => onPark.has(id)) || performance.now() > loadStopped + GIVE_UP_MS,
    )
    await Promise.all([parkWatch, offlineWatch])
    await parkWatchAfter
    if (probes.enterpriseMs.length < count || offlineMissing.length) {
      if (!halted())
        fail(
          `alarms: readable on the enterprise in time: ${probes.enterpriseMs.length} of ${count} probe alarms, ` +
            `${OFFLINE_POINTS - offlineMissing.length} of ${OFFLINE_POINTS} offline alarms`,
        )
      return
    }

    const offlineMs = [...sentOffline].map(([id, at]) => offline.get(id)! - (at + OFFLINE_AFTER_SECONDS * 1000))
    const loadRate = `under ${Math.round(readings / loadSeconds).toLocaleString('en-US')} readings/s`
    addRow({
      group: 'alarms',
      what: `a reading's call answered → its alarm read on the enterprise (p99 of ${count}, readings loading it)`,
      value: percentile(probes.enterpriseMs, 99),
      unit: 'ms',
      target: { op: '<=', limit: 1000, relative: false },
      detail: `${spread(probes.enterpriseMs)}; ${loadRate}`,
    })
    addRow({
      group: 'alarms',
      what: `an offline alarm read after its deadline (worst of ${OFFLINE_POINTS} points, offline after ${OFFLINE_AFTER_SECONDS} s)`,
      value: Math.max(...offlineMs) / 1000,
      unit: 's',
      target: { op: '<=', limit: 15, relative: false },
      detail: `median ${(median(offlineMs) / 1000).toFixed(1)} s; polled every 250 ms, deadline counted from the reading's call sent`,
    })
    const parkMs = [...probes.answered].filter(([id]) => !parkMissing.includes(id)).map(([id, at]) => onPark.get(id)! - at)
    const late = parkMissing.filter((id) => onPark.has(id)).map((id) => (onPark.get(id)! - loadStopped) / 1000)
    addRow({
      group: 'alarms',
      what: `an alarm read on the park after its reading's call answered on the enterprise (worst of ${count}, under the load)`,
      value: parkMissing.length ? undefined : Math.max(...parkMs) / 1000,
      unit: 's',
      target: { op: '<=', limit: 3, relative: false },
      met: parkMissing.length ? false : undefined,
      detail: parkMissing.length
        ? `${parkMissing.length} of ${count} not on the park ${PARK_GIVE_UP_MS / 1000} s after the last was raised ` +
          `(on the enterprise: ${pushState.map((row: any) => `${row.n} ${row.sync_status}, ${row.attempts} attempts`).join('; ')}); ` +
          `${late.length} came ${late.length ? `${Math.min(...late).toFixed(1)}–${Math.max(...late).toFixed(1)} s ` : ''}after the load stopped` +
          (parkMs.length ? `; the others: ${spread(parkMs)}` : '')
        : `${spread(parkMs)}; park polled every 100 ms`,
    })
    addRow({
      group: 'alarms',
      what: 'RSS of the enterprise edition (pushing to a park) under the load of readings',
      value: rss.length ? Math.max(...rss) : undefined,
      unit: 'MB',
      target: { op: '<=', limit: 200, relative: false },
      detail: `highest of ${rss.length} samples a second apart; peak ${peak?.toFixed(0) ?? '?'} MB (VmHWM); ${loadRate}`,
    })
  } finally {
    for (const proc of procs.reverse()) await stop(proc)
  }
}
