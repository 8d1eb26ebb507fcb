// Row groups `reads` and `park-reads`: reads over HTTP on tables filled by SQL (fill.ts), as the
// document says to make them (openapi/src: list and search bodies, `after` keyset paging). Each
// read is called BENCH_READ_CALLS (20) times in a row after one checked call; the median counts.
// `reads` also loads `monitorEquip/add` on the filled table against an enterprise on an empty one
// (rounds alternating): the filled table's rate should stay within 10 % of the empty one's.
import { fail, halted, median, note } from './common.ts'
import { Bodies } from './bodies.ts'
import type { Databases } from './database.ts'
import { fillMonitorEquip, fillRiskEvents, monitorName, settle, UNITS } from './fill.ts'
import { call, login, type Reply } from './http.ts'
import { type LoadRun, runLoad } from './load.ts'
import { COMPANY_CODE, EDITION_PASSWORD, type Proc, startEdition, stop } from './processes.ts'
import { addRow, type Target } from './report.ts'
import { type Group, settings, wants } from './settings.ts'

export interface Read {
  what: string
  method?: 'GET' | 'POST'
  path: string
  /** The body; a function gives each call its own (a read at another place each time). */
  body?: unknown
  target?: number
  /** What the answer must hold; a message when it does not. */
  check?: (data: any) => string | undefined
}

const atMost = (limit: number): Target => ({ op: '<=', limit, relative: false })

/** Times one read; its first answer is checked (HTTP 200, code 0, `check`), every answer's status too. */
export async function timeRead(group: Group, baseUrl: string, token: string, read: Read): Promise<void> {
  if (halted()) return
  const method = read.method ?? 'POST'
  const body = () => (typeof read.body === 'function' ? (read.body as () => unknown)() : (read.body ?? {}))
  const once = () => call(baseUrl + read.path, method, method === 'POST' ? body() : undefined, token)
  const first = await once()
  const problem = answerProblem(first, read)
  if (problem) return fail(`${group}: ${read.what}: ${problem}`)
  const times: number[] = []
  for (let i = 0; i < settings.readCalls; i++) {
    const started = performance.now()
    const reply = await once()
    times.push(performance.now() - started)
    if (reply.status !== 200) return fail(`${group}: ${read.what}: HTTP ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`)
  }
  const sorted = [...times].sort((a, b) => a - b)
  addRow({
    group,
    what: read.what,
    value: median(times),
    unit: 'ms',
    target: read.target === undefined ? undefined : atMost(read.target),
    detail: `median of ${times.length}; min ${sorted[0].toFixed(1)}, max ${sorted[sorted.length - 1].toFixed(1)} ms`,
  })
}

function answerProblem(reply: Reply, read: Read): string | undefined {
  if (reply.status !== 200) return `HTTP ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`
  if (read.method === 'GET') return undefined
  if (reply.body?.code !== 0) return `code ${reply.body?.code}: ${reply.body?.msg}`
  return read.check?.(reply.body.data)
}

const count = (expected: number | ((n: number) => boolean)) => (data: any) => {
  const n = data?.list?.length
  const fits = typeof expected === 'number' ? n === expected : expected(n)
  return fits
    ? undefined
    : `answered ${n} records (total ${data?.total}), expected ${typeof expected === 'number' ? expected : 'otherwise'}`
}

/**
 * The `after` cursor of page `page` (pages of 20) of `list`, reached by following `next` (pages of
 * 500 while the distance allows, then of 20): the documented way to page deep.
 */
async function deepCursor(baseUrl: string, path: string, token: string, page: number): Promise<string | undefined> {
  let remaining = (page - 1) * 20
  let after: string | undefined
  const started = performance.now()
  while (remaining > 0 && !halted()) {
    const pageSize = remaining >= 500 ? 500 : 20
    const reply = await call(baseUrl + path, 'POST', { pageSize, ...(after ? { after } : {}) }, token)
    if (reply.status !== 200 || reply.body?.code !== 0 || !reply.body.data.next) {
      fail(`following next towards page ${page}: HTTP ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`)
      return undefined
    }
    after = reply.body.data.next
    remaining -= pageSize
  }
  note(`page ${page} reached by following next in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  return after
}

/** The deep page: as far as BENCH_DEEP_PAGE, but within the table. */
const deepPageOf = (rows: number) => Math.max(2, Math.min(settings.deepPage, Math.floor(rows / 20 / 2)))

function monitorEquipReads(rows: number, after: string | undefined, deepPage: number, park: boolean): Read[] {
  const path = '/hazard/monitorEquip'
  const middle = Math.floor(rows / 2)
  const selective = `储罐${Math.floor(middle / 6)}#`
  const search = (conditions: unknown[]) => ({ pageNum: 1, pageSize: 20, conditions })
  // Record i (1 to rows) belongs to enterprise 320115000 + i % 100 (fill.ts).
  const oneEnterprise = rows >= 42 ? Math.floor((rows - 42) / 100) + 1 : 0
  return [
    { what: 'list page 1 (20 records)', path: `${path}/list`, body: { pageNum: 1, pageSize: 20 }, target: 20, check: count(20) },
    {
      what: `search page 1, eq monitorType (a quarter of the records)`,
      path: `${path}/search`,
      body: search([{ field: 'monitorType', op: 'eq', value: '压力' }]),
      target: 20,
      check: count(20),
    },
    {
      what: `list page ${deepPage} by the after cursor (following next)`,
      path: `${path}/list`,
      body: { pageSize: 20, after },
      target: 30,
      check: count(20),
    },
    {
      what: `list page ${deepPage} by pageNum (offset)`,
      path: `${path}/list`,
      body: { pageNum: deepPage, pageSize: 20 },
      check: count(20),
    },
    {
      what: `search eq monitorCode (unique${park ? ' on each enterprise' : ''})`,
      path: `${path}/search`,
      body: search([{ field: 'monitorCode', op: 'eq', value: `PT-${middle}` }]),
      target: 5,
      check: count(1),
    },
    {
      what: `search like monitorName '${selective}' (selective)`,
      path: `${path}/search`,
      body: search([{ field: 'monitorName', op: 'like', value: selective }]),
      target: 50,
      check: count((n) => n >= 1 && n <= 20),
    },
    {
      what: `search like monitorName '${UNITS[1]}' (a sixth of the records)`,
      path: `${path}/search`,
      body: search([{ field: 'monitorName', op: 'like', value: UNITS[1] }]),
      target: 50,
      check: count(20),
    },
    ...(park
      ? [
          {
            what: 'search eq companyCode (one enterprise of 100, its exact total)',
            path: `${path}/search`,
            body: search([{ field: 'companyCode', op: 'eq', value: '320115042' }]),
            target: 5,
            check: (data: any) =>
              data?.total === oneEnterprise && data.totalExact === true && data.list.length === 20
                ? undefined
                : `total ${data?.total} (exact: ${data?.totalExact}), expected ${oneEnterprise}, exact`,
          },
          {
            what: '/system/enterprise/list (100 enterprises, their records counted)',
            path: '/system/enterprise/list',
            body: {},
            target: 20,
            check: (data: any) => (data?.list?.length === 100 ? undefined : `${data?.list?.length} enterprises, expected 100`),
          },
        ]
      : [
          {
            what: 'search sync_status eq failed (1 000 matches)',
            path: `${path}/search`,
            body: search([{ field: 'sync_status', op: 'eq', value: 'failed' }]),
            target: 20,
            check: (data: any) => (data?.total === 1000 && data.list.length === 20 ? undefined : `total ${data?.total}, expected 1000`),
          },
        ]),
    {
      what: 'getById',
      path: `${path}/getById`,
      body: park ? { id: `ME-${middle}`, companyCode: `${320115000 + (middle % 100)}` } : { id: `ME-${middle}` },
      check: (data: any) => (data?.monitorName === monitorName(middle) ? undefined : `answered ${JSON.stringify(data).slice(0, 200)}`),
    },
    { what: '/system/sync/status', path: '/system/sync/status', body: {}, target: 20 },
    { what: 'GET /metrics', method: 'GET', path: '/metrics', target: 20 },
  ]
}

/** Enterprise reads: monitorEquip, riskEvents by its reference field, and add on the filled table. */
async function enterpriseReads(databases: Databases, procs: Proc[]): Promise<void> {
  const rows = settings.rows
  const url = await databases.create('reads', 'enterprise')
  note(`reads: filling ${rows.toLocaleString('en-US')} monitorEquip and riskEvents records`)
  await fillMonitorEquip(url, { count: rows, status: 'synced', failedEvery: Math.floor(rows / 1000), companyCode: COMPANY_CODE })
  const parents = Math.min(10_000, Math.floor(rows / 10))
  await fillRiskEvents(url, rows, parents)
  await settle(url, ['monitor_equip', 'risk_unit', 'risk_events'])
  const filled = await startEdition('reads-enterprise', 'enterprise', url, { raisedLimits: true })
  procs.push(filled)
  const token = await login(filled.url, 'admin', EDITION_PASSWORD)
  const deepPage = deepPageOf(rows)
  const after = await deepCursor(filled.url, '/hazard/monitorEquip/list', token, deepPage)
  const reads = monitorEquipReads(rows, after, deepPage, false)
  reads.splice(5, 0, {
    what: `search eq riskEvents.riskUnitId (reference field; ${Math.round(rows / parents)} matches)`,
    path: '/prevent/riskEvents/search',
    body: { pageNum: 1, pageSize: 20, conditions: [{ field: 'riskUnitId', op: 'eq', value: `RU-${Math.floor(parents / 2)}` }] },
    target: 5,
    check: count((n) => n === Math.min(20, Math.floor(rows / parents))),
  })
  for (const read of reads) await timeRead('reads', filled.url, token, read)
  if (!halted()) await addOnFilledTable(databases, procs, filled, token)
}

/** monitorEquip/add on the filled table against an enterprise on an empty one, rounds alternating. */
async function addOnFilledTable(databases: Databases, procs: Proc[], filled: Proc, filledToken: string): Promise<void> {
  const empty = await startEdition('empty-enterprise', 'enterprise', await databases.create('reads_empty'), { raisedLimits: true })
  procs.push(empty)
  const targets = [
    {
      name: 'add on an empty table',
      proc: empty,
      token: await login(empty.url, 'admin', EDITION_PASSWORD),
      bodies: new Bodies('e-'),
      runs: [] as LoadRun[],
    },
    { name: 'add on the filled table', proc: filled, token: filledToken, bodies: new Bodies('w-'), runs: [] as LoadRun[] },
  ]
  for (let round = 0; round <= settings.rounds && !halted(); round++) {
    for (const target of targets) {
      const seconds = round === 0 ? settings.warmupSeconds : settings.seconds
      if (seconds === 0 || halted()) continue
      note(`${round === 0 ? 'warm-up' : `round ${round}/${settings.rounds}`}: ${target.name} (${seconds} s)`)
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${target.token}` }
      const spec = {
        name: target.name,
        url: target.proc.url,
        path: '/hazard/monitorEquip/add',
        headers,
        body: () => target.bodies.next(),
        checkAnswers: round === 0,
      }
      const run = await runLoad(spec, seconds)
      if (round > 0) target.runs.push(run)
    }
  }
  if (halted()) return
  const rate = (run: LoadRun) => run.result.requests.average
  const [onEmpty, onFilled] = targets
  const pairs = onFilled.runs.map((run, i) => rate(run) / rate(onEmpty.runs[i]))
  addRow({
    group: 'reads',
    what: `monitorEquip/add on the filled table (${settings.rows.toLocaleString('en-US')} records) against an empty one`,
    value: Math.max(...onFilled.runs.map(rate)),
    unit: 'req/s',
    target: { op: '>=', limit: 0.9, relative: true, of: 'empty' },
    ratio: median(pairs),
    detail: `median of paired ratios [${pairs.map((pair) => pair.toFixed(2)).join(', ')}]; empty: ${onEmpty.runs.map((run) => Math.round(rate(run))).join(', ')} req/s, filled: ${onFilled.runs.map((run) => Math.round(rate(run))).join(', ')} req/s`,
  })
}

async function parkReads(databases: Databases, procs: Proc[]): Promise<void> {
  const rows = settings.parkRows
  const url = await databases.create('park_reads', 'park')
  note(`park reads: filling ${rows.toLocaleString('en-US')} monitorEquip records of 100 enterprises`)
  await fillMonitorEquip(url, { count: rows, status: 'synced', companyCode: { enterprises: 100 } })
  await settle(url, ['monitor_equip'])
  const park = await startEdition('reads-park', 'park', url, { raisedLimits: true })
  procs.push(park)
  const token = await login(park.url, 'admin', EDITION_PASSWORD)
  const deepPage = deepPageOf(rows)
  const after = await deepCursor(park.url, '/hazard/monitorEquip/list', token, deepPage)
  for (const read of monitorEquipReads(rows, after, deepPage, true)) await timeRead('park-reads', park.url, token, read)
}

export async function readGroups(databases: Databases): Promise<void> {
  const procs: Proc[] = []
  try {
    if (wants('reads')) await enterpriseReads(databases, procs)
    for (const proc of procs.splice(0).reverse()) await stop(proc)
    if (wants('park-reads') && !halted()) await parkReads(databases, procs)
  } finally {
    for (const proc of procs.reverse()) await stop(proc)
  }
}
