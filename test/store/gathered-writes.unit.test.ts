// Unit tier (no database): writes gathered under load (src/store/gathered-writes.ts). Statements
// here are promises the test settles itself, so every step is in the test's hands: which writes run
// at once, which wait and go together, and what each is answered when a statement fails.
import t from 'tap'
import { GatheredWrites } from '../../src/store/gathered-writes.ts'

interface Statement {
  items: string[]
  /** Ends the statement; each write's answer is `ok <write>`. */
  finish: () => void
  fail: (error: unknown) => void
}

/**
 * Gathered writes whose statements wait for the test to finish or fail them. A write is a string;
 * with `keyed`, its key is the part before a colon (`x:1` and `x:2` are of one key).
 */
function gathering(options: { concurrency?: number; most?: number; mostSize?: number; keyed?: boolean } = {}) {
  const statements: Statement[] = []
  const statement = (items: string[]) =>
    new Promise<string[]>((resolve, reject) =>
      statements.push({ items, finish: () => resolve(items.map((item) => `ok ${item}`)), fail: reject }),
    )
  const writes = new GatheredWrites<string, string>({
    concurrency: options.concurrency ?? 2,
    most: options.most ?? 100,
    mostSize: options.mostSize ?? 1_000,
    size: (item) => item.length,
    key: options.keyed ? (item) => item.split(':')[0] : undefined,
    alone: async (item) => (await statement([item]))[0],
    together: (items) => statement(items),
  })
  const answers = new Map<string, string>()
  const run = (item: string) =>
    writes.run(item).then(
      (answer) => answers.set(item, answer === `ok ${item}` ? 'ok' : `answered ${answer}`),
      (error: Error) => answers.set(item, error.message),
    )
  return { statements, run, answers }
}

/** Lets every settled statement's continuations run (promise jobs only: no timer). */
const settled = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

const refusal = (state: string) => Object.assign(new Error(`refused ${state}`), { code: state, severity: 'ERROR' })

t.test('alone, a write runs at once; beyond the concurrency, writes wait and go together', async (t) => {
  const { statements, run, answers } = gathering({ concurrency: 2 })
  const all = ['a', 'b', 'c', 'd', 'e'].map(run)
  t.same(
    statements.map((s) => s.items),
    [['a'], ['b']],
    'two run at once, alone; the others wait',
  )
  statements[1].finish()
  await settled()
  t.same(statements[2].items, ['c', 'd', 'e'], 'the waiting writes go together once one statement ends')
  t.equal(answers.get('b'), 'ok')
  t.equal(answers.size, 1, 'nothing else is answered before its statement ends')
  statements[0].finish()
  statements[2].finish()
  await Promise.all(all)
  t.same(Object.fromEntries(answers), { a: 'ok', b: 'ok', c: 'ok', d: 'ok', e: 'ok' })
  t.equal(statements.length, 3)
})

t.test('a statement carries at most `most` writes, and at most `mostSize` but for a first larger one', async (t) => {
  const byCount = gathering({ concurrency: 1, most: 2 })
  const all = ['a', 'b', 'c', 'd', 'e'].map(byCount.run)
  byCount.statements[0].finish()
  await settled()
  t.same(byCount.statements[1].items, ['b', 'c'])
  byCount.statements[1].finish()
  await settled()
  t.same(byCount.statements[2].items, ['d', 'e'])
  byCount.statements[2].finish()
  await Promise.all(all)

  const bySize = gathering({ concurrency: 1, mostSize: 5 })
  const sized = ['first', 'xxxxxxx', 'aa', 'bb', 'cc'].map(bySize.run)
  bySize.statements[0].finish()
  await settled()
  t.same(bySize.statements[1].items, ['xxxxxxx'], 'a write larger than the bound goes, alone')
  bySize.statements[1].finish()
  await settled()
  t.same(bySize.statements[2].items, ['aa', 'bb'], 'then as many as fit')
  bySize.statements[2].finish()
  await settled()
  t.same(bySize.statements[3].items, ['cc'])
  bySize.statements[3].finish()
  await Promise.all(sized)
  t.equal(bySize.answers.size, 5)
})

t.test('writes of one key never go in one statement; a later one keeps its place for the next', async (t) => {
  const { statements, run, answers } = gathering({ concurrency: 1, keyed: true })
  const all = ['a:0', 'x:1', 'y:1', 'x:2', 'z:1', 'x:3', 'y:2'].map(run)
  statements[0].finish()
  await settled()
  t.same(statements[1].items, ['x:1', 'y:1', 'z:1'], 'one write of each key, in arrival order')
  statements[1].finish()
  await settled()
  t.same(statements[2].items, ['x:2', 'y:2'], 'the next of each key, before writes that arrived after them')
  statements[2].finish()
  await settled()
  t.same(statements[3].items, ['x:3'])
  statements[3].finish()
  await Promise.all(all)
  t.same([...answers.values()], ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok'], 'each write answered with its own answer')
})

t.test('a write whose key is in a running statement waits for it to end, while writes of other keys go', async (t) => {
  const { statements, run, answers } = gathering({ concurrency: 2, keyed: true })
  const all = ['x:1', 'x:2', 'y:1'].map(run)
  t.same(
    statements.map((s) => s.items),
    [['x:1'], ['y:1']],
    'x:2 waits for x:1 although a statement could start; y:1 takes that place',
  )
  statements[1].finish()
  await settled()
  t.equal(statements.length, 2, 'x:2 still waits: x:1 runs')
  statements[0].finish()
  await settled()
  t.same(statements[2].items, ['x:2'])
  statements[2].finish()
  await Promise.all(all)
  t.same(Object.fromEntries(answers), { 'x:1': 'ok', 'x:2': 'ok', 'y:1': 'ok' })
})

t.test('refused for the data of one write, or for running together (a deadlock): each runs again alone, in arrival order', async (t) => {
  for (const state of ['23505', '23503', '22003', '54000', '40P01']) {
    const { statements, run, answers } = gathering({ concurrency: 1 })
    const all = ['a', 'b', 'c', 'd'].map(run)
    statements[0].finish()
    await settled()
    t.same(statements[1].items, ['b', 'c', 'd'])
    statements[1].fail(refusal(state))
    await settled()
    t.same(statements[2].items, ['b'], `${state}: the first waiting write, alone`)
    t.equal(statements.length, 3, 'one at a time')
    statements[2].finish()
    await settled()
    t.same(statements[3].items, ['c'])
    statements[3].fail(refusal(state))
    await settled()
    t.same(statements[4].items, ['d'])
    statements[4].finish()
    await Promise.all(all)
    t.same(Object.fromEntries(answers), { a: 'ok', b: 'ok', c: `refused ${state}`, d: 'ok' })
  }
})

t.test('any other failure (database out of reach, too slow) answers every gathered write, run once', async (t) => {
  for (const error of [refusal('57014'), refusal('08006'), new Error('Connection terminated unexpectedly')]) {
    const { statements, run, answers } = gathering({ concurrency: 1 })
    const all = ['a', 'b', 'c'].map(run)
    statements[0].finish()
    await settled()
    statements[1].fail(error)
    await Promise.all(all)
    t.equal(statements.length, 2, 'nothing is run again')
    t.same(Object.fromEntries(answers), { a: 'ok', b: error.message, c: error.message })
  }
})

t.test('a write alone that fails is answered with its error, and the next waiting writes still run', async (t) => {
  const { statements, run, answers } = gathering({ concurrency: 1 })
  const all = ['a', 'b', 'c'].map(run)
  statements[0].fail(refusal('57014'))
  await settled()
  t.same(statements[1].items, ['b', 'c'])
  statements[1].finish()
  await Promise.all(all)
  t.same(Object.fromEntries(answers), { a: 'refused 57014', b: 'ok', c: 'ok' })
})
