// Starts one edition (enterprise or park) from the environment; `node src/main.ts` loads it.
// `npm start` (scripts/start.ts) runs it once with DATABASE_URL set, or twice against an embedded
// PostgreSQL without it.
// A start that cannot proceed (a bad setting, the port taken, the database unreachable) prints
// one line naming the cause and the fix, and exits with code 1.
import { type Config, ConfigError, loadConfig } from './config.ts'
import { buildApp } from './app.ts'
import { describeStartFailure } from './start-failure.ts'
import { type Database, openDatabase } from './store/database.ts'

type App = Awaited<ReturnType<typeof buildApp>>

/** Prints the reason (the stack too with LOG_LEVEL debug or trace) and exits 1 once it is written. */
function cannotStart(line: string, error?: unknown): Promise<never> {
  if (error instanceof Error && /^(debug|trace)$/.test(process.env.LOG_LEVEL ?? '')) console.error(error)
  return new Promise<never>(() => process.stderr.write(`${line}\n`, () => process.exit(1)))
}

async function readConfig(): Promise<Config> {
  try {
    return loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return cannotStart(error.message)
  }
}

/** Builds the app and listens; on failure, releases what was started and exits with one line. */
async function start(config: Config, database: Database): Promise<{ app: App; address: string }> {
  let app: App | undefined
  try {
    app = await buildApp({ config, database })
    return { app, address: await app.fastify.listen({ port: config.port, host: config.host }) }
  } catch (error) {
    const line = describeStartFailure(error, config)
    // Bounded: the database may be what failed.
    const released = (app ? app.close() : Promise.resolve()).then(() => database.close())
    await Promise.race([released.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000).unref())])
    return cannotStart(line, error)
  }
}

const config = await readConfig()
const database = openDatabase(config.databaseUrl, {
  statementTimeoutMs: config.dbStatementTimeoutMs,
  connectTimeoutMs: config.dbConnectTimeoutMs,
  max: config.dbPoolMax,
})
const { app, address } = await start(config, database)
const shown = address.replace('0.0.0.0', 'localhost')
console.log(`${config.edition} edition listening on ${shown} (Swagger UI: ${shown}/docs, contract: ${shown}/openapi.yaml)`)
if (app.generatedAdminPassword) {
  console.log(
    `first start: created user "admin" with password ${app.generatedAdminPassword} (shown once; change it with /system/user/update)`,
  )
}
// Under `npm start`, the supervisor learns that this edition started (a later exit is a crash).
if (process.send) {
  process.send('ready')
  process.channel?.unref()
}

let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    // Stop taking requests, let those in flight finish, then release the database.
    void app
      .close()
      .then(() => database.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      )
  })
}
