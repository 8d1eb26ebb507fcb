// Starts one edition (enterprise or park) from the environment. `npm start` (scripts/start.ts)
// runs this once with DATABASE_URL set, or twice against an embedded PostgreSQL without it.
import { type Config, ConfigError, loadConfig } from './config.ts'
import { buildApp } from './app.ts'
import { openDatabase } from './store/database.ts'

let config: Config
try {
  config = loadConfig()
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(error.message)
  process.exit(1)
}

const database = openDatabase(config.databaseUrl)
const app = await buildApp({ config, database })
const address = await app.fastify.listen({ port: config.port, host: config.host })
const shown = address.replace('0.0.0.0', 'localhost')
console.log(`${config.edition} edition listening on ${shown} (Swagger UI: ${shown}/docs, contract: ${shown}/openapi.yaml)`)
if (app.generatedAdminPassword) {
  console.log(
    `first start: created user "admin" with password ${app.generatedAdminPassword} (shown once; change it with /system/user/update)`,
  )
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
