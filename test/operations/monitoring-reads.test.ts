// Reads of readings: one point's readings in keyset pages, aggregates by bucket aligned to the
// configured zone (decimal strings as sent, avg rounded half away from zero), and the live board.
import t from 'tap'
import { record } from '../helpers/fixtures.ts'
import { startService } from '../helpers/service.ts'

const service = await startService(t)
const token = await service.login()
const call = async (path: string, body: unknown) => (await service.call(path, body, { token })).body
const must = async (path: string, body: unknown) => {
  const answer = await call(path, body)
  if (answer.code !== 0) throw new Error(`${path} answered ${answer.code}: ${answer.msg}`)
  return answer.data
}
// Yesterday's midnight in +08:00 (the default zone), as UTC milliseconds.
const local = new Date(Date.now() + 8 * 3600_000)
const midnight = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() - 1) - 8 * 3600_000
const at = (seconds: number) => new Date(midnight + seconds * 1000).toISOString()
const send = (id: string, readings: [number, string][]) =>
  must('/hazard/monitorData/add-batch', { list: readings.map(([seconds, value]) => ({ monitorEquipId: id, time: at(seconds), value })) })

await must('/hazard/monitorEquip/add', record('monitorEquip', 'R-1'))
await must('/hazard/monitorEquip/add', record('monitorEquip', 'R-2'))

t.test('list: from <= time < to, ascending, in keyset pages until next is null', async (t) => {
  await send('R-1', [
    [4, '4'],
    [1, '1'],
    [3, '3'],
    [2, '2'],
    [5, '5'],
    [6, '6'],
  ])
  const seen: string[] = []
  let after: string | undefined
  let pages = 0
  do {
    const page = await must('/hazard/monitorData/list', {
      monitorEquipId: 'R-1',
      from: at(1),
      to: at(6),
      pageSize: 2,
      ...(after ? { after } : {}),
    })
    seen.push(...page.list.map((item: any) => item.value))
    after = page.next ?? undefined
    pages++
  } while (after)
  t.same(seen, ['1', '2', '3', '4', '5'])
  t.equal(pages, 3)
  const first = (await must('/hazard/monitorData/list', { monitorEquipId: 'R-1', from: at(0), to: at(2) })).list[0]
  t.same(first, {
    monitorEquipId: 'R-1',
    time: new Date(midnight + 1000 + 8 * 3600_000).toISOString().replace('.000Z', '+08:00'),
    value: '1',
    quality: 0,
  })
  t.equal((await call('/hazard/monitorData/list', { monitorEquipId: 'R-1', from: at(0), to: at(9), after: 'bm90IGEgY3Vyc29y' })).code, 1002)
  t.equal((await call('/hazard/monitorData/list', { monitorEquipId: 'R-1', from: at(0), to: at(9), pageSize: 5001 })).code, 1002)
})

t.test('aggregate: a 1d bucket is a local day; min, max, last as sent (earliest spelling); avg to 6 decimals', async (t) => {
  await send('R-2', [
    [-30, '7'],
    [30, '2.0'],
    [40, '2'],
    [50, '1.50'],
    [3600, '1.0000005'],
  ])
  const data = await must('/hazard/monitorData/aggregate', {
    monitorEquipIds: ['R-2', 'R-404'],
    from: at(-86_400),
    to: at(86_400),
    bucket: '1d',
  })
  const day = (offsetDays: number) => new Date(midnight + offsetDays * 86_400_000 + 8 * 3600_000).toISOString().replace('.000Z', '+08:00')
  t.same(data.list, [
    {
      monitorEquipId: 'R-2',
      buckets: [
        { time: day(-1), min: '7', max: '7', avg: '7', last: '7', count: 1 },
        { time: day(0), min: '1.0000005', max: '2.0', avg: '1.625', last: '1.0000005', count: 4 },
      ],
    },
    { monitorEquipId: 'R-404', buckets: [] },
  ])
  const hourly = await must('/hazard/monitorData/aggregate', { monitorEquipIds: ['R-2'], from: at(3600), to: at(7200), bucket: '1h' })
  t.same(
    hourly.list[0].buckets.map((bucket: any) => bucket.avg),
    ['1.000001'],
    'half away from zero',
  )
  const tens = await must('/hazard/monitorData/aggregate', { monitorEquipIds: ['R-2'], from: at(0), to: at(600), bucket: '10m' })
  t.same(tens.list[0].buckets, [{ time: day(0), min: '1.50', max: '2.0', avg: '1.833333', last: '1.50', count: 3 }])
})

t.test('list and aggregate: to before from answers 1002; to equal to from, nothing', async (t) => {
  const reversed = { from: at(10), to: at(5) }
  const empty = { from: at(1), to: at(1) }
  for (const [path, body] of [
    ['/hazard/monitorData/list', { monitorEquipId: 'R-1' }],
    ['/hazard/monitorData/aggregate', { monitorEquipIds: ['R-1'], bucket: '1m' }],
  ] as const) {
    t.match(await call(path, { ...body, ...reversed }), { code: 1002, msg: 'to: must not be before from' }, path)
    const answer = await call(path, { ...body, ...empty })
    t.equal(answer.code, 0, path)
    t.same(path.endsWith('list') ? answer.data.list : answer.data.list[0].buckets, [], `${path}: an empty window`)
  }
})

t.test('latest: each live point with its newest reading by time, or nulls before the first', async (t) => {
  await must('/hazard/monitorEquip/add', record('monitorEquip', 'R-3'))
  const data = await must('/hazard/monitorData/latest', { monitorEquipIds: ['R-1', 'R-3', 'R-404'] })
  t.equal(data.total, 2)
  t.same(
    data.list.map((item: any) => [item.monitorEquipId, item.value, item.quality]),
    [
      ['R-1', '6', 0],
      ['R-3', null, null],
    ],
  )
  t.equal((await must('/hazard/monitorData/latest', {})).total, 3, 'every live point without ids')
})

t.test('aggregate: a negative zero chosen as min, max or last is given back as sent', async (t) => {
  await must('/hazard/monitorEquip/add', record('monitorEquip', 'R-4'))
  await send('R-4', [
    [100, '-0.0'],
    [110, '0'],
    [120, '-0'],
  ])
  const data = await must('/hazard/monitorData/aggregate', { monitorEquipIds: ['R-4'], from: at(0), to: at(600), bucket: '10m' })
  const time = new Date(midnight + 8 * 3600_000).toISOString().replace('.000Z', '+08:00')
  t.same(data.list[0].buckets, [{ time, min: '-0.0', max: '-0.0', avg: '0', last: '-0.0', count: 3 }])
})

t.test('aggregate: last is spelled as the earliest reading of its number, as min and max are', async (t) => {
  await must('/hazard/monitorEquip/add', record('monitorEquip', 'R-5'))
  await send('R-5', [
    [0, '3.00'],
    [10, '3'],
    [20, '3.0'],
    [600, '1'],
    [610, '2.0'],
    [620, '5'],
    [630, '2'],
    [1200, '99999999999999999999.1'],
    [1210, '0.2'],
  ])
  const data = await must('/hazard/monitorData/aggregate', { monitorEquipIds: ['R-5'], from: at(0), to: at(1800), bucket: '10m' })
  t.same(
    data.list[0].buckets.map(({ min, max, avg, last }: any) => ({ min, max, avg, last })),
    [
      { min: '3.00', max: '3.00', avg: '3', last: '3.00' },
      { min: '1', max: '5', avg: '2.5', last: '2.0' },
      { min: '0.2', max: '99999999999999999999.1', avg: '49999999999999999999.65', last: '0.2' },
    ],
    'a number between min and max too; avg exact for long values',
  )
})
t.end()
