// The baseline of `npm run bench`, in its own process so that the load generator does not share its
// event loop: bare Fastify 5 + pg, the same validation as the service's `monitorEquip/add` (the
// MonitorEquip schema of openapi/openapi.yaml compiled by Ajv), on the service's own schema (its
// migrations, src/store/migrate.ts: the same table, constraints and indexes).
//   POST /bench/add          the record with all its fields and sync_status 'pending' (the outbox)
//                            in ONE statement: the limit of this stack for the write
//   POST /bench/add-prepared the same, as a prepared statement
//   POST /bench/add-history  the same write as the service's own statement (resource-sql.ts
//                            insert: the record, whose first version is its add's history entry,
//                            and its event), prepared as the service prepares it, to weigh what
//                            history and the event cost an add
// The database URL comes in BENCH_SERVER_DATABASE_URL. Once listening it sends {url} over IPC; it
// closes and exits on the message 'stop' (or when the parent goes away).
import Ajv2020Module from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import Fastify from 'fastify'
import pg from 'pg'
import { ResourceRegistry } from '../../src/resources/resource-registry.ts'
import { migrate } from '../../src/store/migrate.ts'
import { ResourceTable } from '../../src/store/resource-sql.ts'
import { document } from './bodies.ts'

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module
const addFormats = 'default' in addFormatsModule ? addFormatsModule.default : addFormatsModule

/** The service's pool size (openDatabase's default). */
const POOL_SIZE = 20
const COMPANY_CODE = '000000000'
const USER = 'admin'
const OK = '{"msg":"","code":0,"data":null,"success":true}'

const resource = new ResourceRegistry(document).get('monitorEquip')
const names = resource.fields.map((field) => field.name)

/** The baseline statement: every field, the server-kept ones and the outbox (sync_status 'pending'). */
const plainInsert =
  `INSERT INTO monitor_equip (${names.map((name) => `"${name}"`).join(', ')}, "companyCode", "createTime", "updateTime", "createBy", "updateBy", sync_status) ` +
  `VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}, '${COMPANY_CODE}', now(), now(), '${USER}', '${USER}', 'pending')`

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, strictNumbers: true })
  addFormats(ajv)
  ajv.addSchema({ $id: 'openapi.json', components: document.components })
  return ajv.compile({ $ref: 'openapi.json#/components/schemas/MonitorEquip' })
}

async function start(databaseUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE, connectionTimeoutMillis: 5000 })
  pool.on('error', () => {})
  await migrate(pool)
  const table = new ResourceTable(resource)
  const validate = validator()
  const app = Fastify({ logger: false })
  app.setValidatorCompiler(() => validate)
  const schema = { body: { type: 'object' } }
  app.post('/bench/add', { schema }, async (request, reply) => {
    const record = request.body as Record<string, unknown>
    await pool.query(
      plainInsert,
      names.map((name) => record[name] ?? null),
    )
    return reply.type('application/json').send(OK)
  })
  // The same insert prepared: what the history route is weighed against.
  app.post('/bench/add-prepared', { schema }, async (request, reply) => {
    const record = request.body as Record<string, unknown>
    await pool.query({ name: 'add', text: plainInsert, values: names.map((name) => record[name] ?? null) })
    return reply.type('application/json').send(OK)
  })
  app.post('/bench/add-history', { schema }, async (request, reply) => {
    const [sql, values] = table.insert(request.body as Record<string, unknown>, COMPANY_CODE, USER)
    // A prepared statement, as the service runs it (resource-store.ts): parsed and planned once per connection.
    const { rowCount } = await pool.query({ name: 'add-history', text: sql, values })
    if (rowCount !== 1) throw new Error('the insert wrote no row')
    return reply.type('application/json').send(OK)
  })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return {
    url,
    async close() {
      await app.close()
      await pool.end()
    },
  }
}

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_SERVER_DATABASE_URL
  if (!databaseUrl || !process.send) {
    throw new Error('usage: BENCH_SERVER_DATABASE_URL=... node scripts/bench/baseline-server.ts (started by scripts/bench.ts over IPC)')
  }
  const server = await start(databaseUrl)
  let closing = false
  const close = () => {
    if (closing) return
    closing = true
    // A normal exit, so that --cpu-prof writes its profile.
    server.close().then(
      () => process.exit(0),
      (error) => {
        console.error(`bench baseline server: close failed: ${(error as Error).message}`)
        process.exit(1)
      },
    )
  }
  process.on('message', (message) => {
    if (message === 'stop') close()
  })
  process.on('disconnect', close)
  process.on('SIGINT', () => {}) // a terminal Ctrl+C: the parent decides when this stops
  process.send({ url: server.url })
}

main().catch((error) => {
  console.error(`bench baseline server: ${(error as Error).stack ?? error}`)
  process.exit(1)
})
