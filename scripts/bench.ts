// `npm run bench`: every figure of docs/performance.md in one run, each with its target, printed as one table
// (stdout) and as JSON (BENCH_JSON=<file>); progress on stderr. Machines are shared and noisy: the
// write targets are ratios to a baseline measured in the same run, rounds alternating.
//
// Row groups (BENCH_ONLY=<group,...> runs some), each on fresh databases (scripts/bench/*.ts):
//   add         baseline (bare Fastify + pg, same validation, record + outbox in one statement) and
//               the enterprise edition without park: monitorEquip/add rate, p99, RSS after the load
//   history     the baseline statement with the service's history entry (its own SQL) against it
//   park        the enterprise edition pushing to a park edition on the same machine: add rate, time
//               until all written is synced after the load, RSS of both editions
//   drain       a backlog of pending records drained once the park is up: records/s, at the
//               enterprise's start, and with the enterprise up when the park comes back
//   reads       reads on generated tables of BENCH_ROWS records, add on the filled table
//   park-reads  reads on the park's generated table of BENCH_PARK_ROWS records
//   indicators  /system/indicators of a year and a task's periods of a year, BENCH_INDICATOR_RECORDS periods
//   park-indicators  /system/indicators of 100 enterprises, BENCH_PARK_INDICATOR_RECORDS periods
//   ingest      monitoring readings over HTTP against a bare multi-row insert of the same rows
//   alarms      how soon alarms are readable (enterprise, park, offline) under a load of readings,
//               and the enterprise's RSS under that load
//   readings    reads of readings (latest, aggregate, list) on BENCH_READINGS readings, their bytes on disk
//   events      webhook delivery to one endpoint under the add load: time until all delivered, rate,
//               the add rate against none; feed pages of 500 on BENCH_EVENTS events
// The add baseline runs whenever add, history or park does.
//
// PostgreSQL: DATABASE_URL (an admin URL) when set, else a throw-away embedded server.
// Exit code: 0 whatever the figures; 1 when something broke (a 5xx or other non-2xx, a crash, a
// row missing, an answer not code 0); 2 for a bad setting.
import os from 'node:os'
import { EmbeddedPostgresError } from './dev/embedded-postgres/index.ts'
import { fail, failures, note, state } from './bench/common.ts'
import { Databases } from './bench/database.ts'
import { drainGroup } from './bench/drain.ts'
import { eventsGroup } from './bench/events.ts'
import { indicatorGroups } from './bench/indicators.ts'
import { ingestGroup } from './bench/ingest.ts'
import { alarmGroup } from './bench/alarms.ts'
import { readingsGroup } from './bench/readings.ts'
import { readGroups } from './bench/reads.ts'
import { table, writeJson } from './bench/report.ts'
import { settings, wants } from './bench/settings.ts'
import { writeGroups } from './bench/writes.ts'

process.on('SIGINT', () => {
  if (state.interrupted) return
  state.interrupted = true
  note('SIGINT: stopping the current run and cleaning up')
  fail('interrupted')
})

const started = new Date()
let shown = '(not started)'
try {
  const databases = await Databases.open()
  shown = databases.shown
  try {
    if (wants('add') || wants('history') || wants('park')) await writeGroups(databases)
    if (wants('drain') && failures.length === 0) await drainGroup(databases)
    if ((wants('reads') || wants('park-reads')) && failures.length === 0) await readGroups(databases)
    if ((wants('indicators') || wants('park-indicators')) && failures.length === 0) await indicatorGroups(databases)
    if (wants('ingest') && failures.length === 0) await ingestGroup(databases)
    if (wants('alarms') && failures.length === 0) await alarmGroup(databases)
    if (wants('readings') && failures.length === 0) await readingsGroup(databases)
    if (wants('events') && failures.length === 0) await eventsGroup(databases)
  } finally {
    await databases.close()
  }
} catch (error) {
  // A known reason (the embedded PostgreSQL cannot start) in its one line; anything else with its stack.
  fail(error instanceof EmbeddedPostgresError ? error.message : ((error as Error).stack ?? String(error)))
}

const { groups, json, cpuProfDir, ...numbers } = settings
const heading =
  `Benchmark, ${started.toISOString()}: ${os.cpus().length} CPUs; ${numbers.seconds} s per load run, ${numbers.connections} connections, ` +
  `${numbers.rounds} round(s) alternated; ${numbers.rows.toLocaleString('en-US')} rows, park ${numbers.parkRows.toLocaleString('en-US')}; PostgreSQL ${shown}`
process.stdout.write('\n' + table(heading))
if (json) {
  writeJson(
    json,
    { started: started.toISOString(), cpus: os.cpus().length, database: shown, settings: { ...numbers, groups: [...groups] } },
    failures,
  )
  note(`JSON written to ${json}`)
}
if (cpuProfDir) note(`CPU profiles written under ${cpuProfDir}`)
if (failures.length) {
  process.stderr.write(`\nbench: something broke:\n${failures.map((reason) => `  - ${reason}`).join('\n')}\n`)
  process.exitCode = 1
}
