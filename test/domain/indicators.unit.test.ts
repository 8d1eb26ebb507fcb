// Unit tier (no database): how indicator figures are made from counts: rates rounded half up to
// four decimals (null over nothing), medians (the lower middle of an even count), breakdowns with
// every code, and the order of entries (nulls last, ties by companyCode).
import t from 'tap'
import { breakdown, checkedOrder, inspectionFigures, median, orderEntries, rate } from '../../src/domain/supervision/indicators.ts'
import { Code } from '../../src/errors.ts'

t.test('rates are four decimals rounded half up, null when the denominator is 0', async (t) => {
  t.equal(rate(7, 8), '0.8750')
  t.equal(rate(2, 3), '0.6667')
  t.equal(rate(1, 3), '0.3333')
  t.equal(rate(1, 80000), '0.0000')
  t.equal(rate(1, 20000), '0.0001', '0.00005 rounds up')
  t.equal(rate(3, 3), '1.0000')
  t.equal(rate(0, 5), '0.0000')
  t.equal(rate(0, 0), null)
})

t.test('a median of an even count is the lower middle; of nothing, null', async (t) => {
  t.equal(median([30, 10, 20]), 20)
  t.equal(median([40, 10, 30, 20]), 20)
  t.equal(median([5]), 5)
  t.equal(median([]), null)
})

t.test('inspections: due = done + missed; rates over due; every task work type 0..3, zeros included', async (t) => {
  const figures = inspectionFigures([
    { workType: '0', done: 3, doneLate: 1, missed: 1, open: 2 },
    { workType: '2', done: 1, doneLate: 0, missed: 3, open: 0 },
  ])
  t.same(
    { due: figures.due, done: figures.done, completionRate: figures.completionRate, onTimeRate: figures.onTimeRate, open: figures.open },
    { due: 8, done: 4, completionRate: '0.5000', onTimeRate: '0.3750', open: 2 },
  )
  t.same(
    figures.byWorkType.map((entry) => [entry.workType, entry.due, entry.completionRate]),
    [
      ['0', 4, '0.7500'],
      ['1', 0, null],
      ['2', 4, '0.2500'],
      ['3', 0, null],
    ],
  )
})

t.test('a breakdown lists every code in order, zeros included, and leaves other codes out', async (t) => {
  t.same(
    breakdown(
      'riskLevel',
      ['1', '2', '3', '4'],
      [
        { code: '3', count: 2 },
        { code: '9', count: 5 },
        { code: '3', count: 1 },
      ],
    ),
    [
      { riskLevel: '1', count: 0 },
      { riskLevel: '2', count: 0 },
      { riskLevel: '3', count: 3 },
      { riskLevel: '4', count: 0 },
    ],
  )
})

t.test('entries are ordered by the figures asked (rates as numbers), nulls last either way, ties by companyCode', async (t) => {
  const entries = [
    { companyCode: 'C', inspections: { completionRate: '0.9000', missed: 1 } },
    { companyCode: 'A', inspections: { completionRate: null, missed: 1 } },
    { companyCode: 'B', inspections: { completionRate: '10.0000', missed: 4 } },
    { companyCode: 'D', inspections: { completionRate: '0.9000', missed: 0 } },
  ]
  const codes = (keys: Parameters<typeof orderEntries>[1]) => orderEntries(entries, keys).map((entry) => entry.companyCode)
  t.same(codes([{ field: 'inspections.completionRate' }]), ['C', 'D', 'B', 'A'])
  t.same(codes([{ field: 'inspections.completionRate', direction: 'desc' }]), ['B', 'C', 'D', 'A'])
  t.same(codes([{ field: 'inspections.missed', direction: 'desc' }, { field: 'inspections.completionRate' }]), ['B', 'C', 'A', 'D'])
  t.same(codes([]), ['A', 'B', 'C', 'D'])
})

t.test('ordering by a figure that does not exist (or a breakdown) answers 1002 naming it', async (t) => {
  t.throws(() => checkedOrder([{ field: 'inspections.late' }]), {
    code: Code.badParameter,
    message: /orderBy\[0\]\.field: unknown figure inspections\.late/,
  })
  t.throws(() => checkedOrder([{ field: 'riskUnits' }]), { code: Code.badParameter })
  t.same(checkedOrder([{ field: 'sync.pending', direction: 'desc' }]), [{ field: 'sync.pending', direction: 'desc' }])
  t.throws(() => checkedOrder([{ field: 'sync.pending' }], new Set(['sync.pending'])), {
    code: Code.badParameter,
    message: /unknown figure sync\.pending/,
  })
})
