// For the tests of writes gathered under load (test/store/gathered-*.test.ts): a resource store on a
// real service's database, each write's answer, and which rows one statement wrote.
import type pg from 'pg'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'
import { BusinessError } from '../../src/errors.ts'
import { ResourceRegistry } from '../../src/resources/resource-registry.ts'
import { instantFormatter } from '../../src/store/instant-format.ts'
import { ResourceStore } from '../../src/store/resource-store.ts'
import { startService } from './service.ts'

/** A ResourceStore of its own on a started service's database (the test's `t` stops the service). */
export async function storeOnService(t: Parameters<typeof startService>[0]) {
  const service = await startService(t)
  const registry = new ResourceRegistry(loadOpenApi().document)
  const store = new ResourceStore({
    pool: service.database.pool,
    registry,
    companyCode: service.config.companyCode,
    format: instantFormatter(service.config.timeZone),
  })
  return { service, pool: service.database.pool, registry, store }
}

/** Each write's answer, in order: `ok`'s name for what it resolved to, or its business code. */
export function answersOf<T>(writes: Promise<T>[], ok: (value: T) => string): Promise<(string | number)[]> {
  return Promise.all(
    writes.map((write) => write.then(ok, (error: unknown) => (error instanceof BusinessError ? error.code : String(error)))),
  )
}

/** How many of these rows each statement last wrote (rows of one transaction share its xmin), in increasing order. */
export async function statementSizes(pool: pg.Pool, table: string, ids: string[]): Promise<number[]> {
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE id = ANY($1) GROUP BY xmin::text ORDER BY 1`, [ids])
  return rows.map((row) => row.n)
}
