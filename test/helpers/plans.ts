// What a statement's plan reads, planned on a real database: for the tests that a statement over a
// large table costs the rows it touches, not the table.
import type pg from 'pg'

/** A statement as a store sent it: its text and values. */
export interface Sent {
  text: string
  values: unknown[]
}

/** The pool or client, with every statement sent through `query` recorded in `sent` (it still answers). */
export function recording<T extends pg.Pool | pg.PoolClient>(db: T, sent: Sent[]): T {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver)
      return (text: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
        sent.push(typeof text === 'string' ? { text, values: values ?? [] } : { text: text.text, values: values ?? text.values ?? [] })
        return values === undefined ? target.query(text as string) : target.query(text as string, values)
      }
    },
  })
}

type PlanNode = Record<string, unknown>

function* nodesOf(node: PlanNode): Generator<PlanNode> {
  yield node
  for (const child of (node.Plans as PlanNode[] | undefined) ?? []) yield* nodesOf(child)
}

/** The nodes of the statement's plan (EXPLAIN with these options), between two statements of the same connection. */
async function planOf(pool: pg.Pool, statement: Sent, options: string, before: string, after: string): Promise<PlanNode[]> {
  const client = await pool.connect()
  try {
    await client.query(before)
    const { rows } = await client.query(`EXPLAIN (${options}FORMAT JSON) ${statement.text}`, statement.values)
    return [...nodesOf(rows[0]['QUERY PLAN'][0].Plan)]
  } finally {
    await client.query(after)
    client.release()
  }
}

/**
 * Every table a plan reads in full (sequential scans), by name, planned with PostgreSQL's default
 * cost of a random page read (4), not the service's (1.1): the plan must not depend on it.
 */
export async function scannedInFull(pool: pg.Pool, statement: Sent): Promise<string[]> {
  const nodes = await planOf(pool, statement, '', 'SET random_page_cost = 4', 'RESET random_page_cost')
  return nodes.filter((node) => node['Node Type'] === 'Seq Scan').map((node) => String(node['Relation Name']))
}

/**
 * The rows a statement reads from these tables (each scan's rows, those its filters removed
 * included, over all its loops), run for real (EXPLAIN ANALYZE) in a transaction rolled back.
 */
export async function rowsRead(pool: pg.Pool, statement: Sent, tables: readonly string[]): Promise<number> {
  const nodes = await planOf(pool, statement, 'ANALYZE, ', 'BEGIN', 'ROLLBACK')
  let read = 0
  for (const node of nodes)
    if (String(node['Node Type']).endsWith('Scan') && tables.includes(String(node['Relation Name']))) {
      const removed = Number(node['Rows Removed by Filter'] ?? 0) + Number(node['Rows Removed by Index Recheck'] ?? 0)
      read += (Number(node['Actual Rows']) + removed) * Number(node['Actual Loops'])
    }
  return read
}
