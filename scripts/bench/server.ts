// One server under load for `npm run bench` (scripts/bench.ts), in its own process so that the load
// generator does not share its event loop:
//   node scripts/bench/server.ts baseline   bare Fastify 5 + pg: POST /bench/add inserts {id, riskUnitName}
//                                           in one statement; POST /bench/getById reads one row
//   node scripts/bench/server.ts service    the real service (buildApp) on its own database
// The database URL comes in BENCH_SERVER_DATABASE_URL, the service's admin password in
// BENCH_SERVER_ADMIN_PASSWORD. Once listening, it sends {url} over IPC;
// it closes and exits on the message 'stop' (or when the parent goes away).
import Fastify from 'fastify'
import pg from 'pg'
import { loadConfig } from '../../src/config.ts'
import { buildApp } from '../../src/app.ts'
import { openDatabase } from '../../src/store/database.ts'
import { migrate } from '../../src/store/migrate.ts'

/** The service's pool size (openDatabase's default), used by the baseline too. */
const POOL_SIZE = 20

const OK = { msg: '', code: 0, data: null, success: true }

async function startBaseline(databaseUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE, connectionTimeoutMillis: 5000 })
  pool.on('error', () => {})
  // The service's own schema (its migrations): the same table, constraints and indexes.
  await migrate(pool)
  const app = Fastify({ logger: false })
  app.post('/bench/add', async (request) => {
    const { id, riskUnitName } = request.body as { id: string; riskUnitName: string }
    await pool.query(
      `INSERT INTO risk_unit (id, "riskUnitName", "companyCode", "createTime", "updateTime", "createBy", "updateBy") ` +
        `VALUES ($1, $2, '000000000', now(), now(), 'admin', 'admin')`,
      [id, riskUnitName],
    )
    return OK
  })
  app.post('/bench/getById', async (request) => {
    const { id } = request.body as { id: string }
    const { rows } = await pool.query(
      'SELECT id, "riskUnitName", "hazardCode", "hazardDep", "hazardLiablePerson", "riskLevel", longitude, latitude, ' +
        '"companyCode", "createTime", "updateTime", "createBy", "updateBy", sync_status, sync_time FROM risk_unit WHERE id = $1 AND live',
      [id],
    )
    return { ...OK, data: rows[0] ?? null }
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

async function startService(databaseUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    ADMIN_PASSWORD: process.env.BENCH_SERVER_ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '1000000000',
    RATE_LIMIT_LOGIN_MAX: '1000',
    HOST: '127.0.0.1',
    PORT: '0',
  })
  const database = openDatabase(databaseUrl, { max: POOL_SIZE })
  const app = await buildApp({ config, database })
  const url = await app.fastify.listen({ port: 0, host: '127.0.0.1' })
  return {
    url,
    async close() {
      await app.close()
      await database.close()
    },
  }
}

async function main(): Promise<void> {
  const kind = process.argv[2]
  const databaseUrl = process.env.BENCH_SERVER_DATABASE_URL
  if ((kind !== 'baseline' && kind !== 'service') || !databaseUrl || !process.send) {
    throw new Error(
      'usage: BENCH_SERVER_DATABASE_URL=... node scripts/bench/server.ts baseline|service (started by scripts/bench.ts over IPC)',
    )
  }
  const server = kind === 'baseline' ? await startBaseline(databaseUrl) : await startService(databaseUrl)
  let closing = false
  const close = () => {
    if (closing) return
    closing = true
    // A normal exit, so that --cpu-prof writes its profile.
    server.close().then(
      () => process.exit(0),
      (error) => {
        console.error(`bench ${kind} server: close failed: ${(error as Error).message}`)
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
  console.error(`bench ${process.argv[2]} server: ${(error as Error).stack ?? error}`)
  process.exit(1)
})
