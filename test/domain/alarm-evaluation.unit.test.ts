// Unit tier (no database): how readings raise, change and clear alarms, judged one by one in
// reading-time order against the equipment's thresholds, deadband, on-delay and timeouts.
import fc from 'fast-check'
import t from 'tap'
import {
  type AlarmChange,
  checkOffline,
  initialState,
  judgeReading,
  offlineDeadline,
  type PointSettings,
  type PointState,
  type Reading,
} from '../../src/domain/monitoring/alarm-evaluation.ts'

const settings = (over: Partial<PointSettings> = {}): PointSettings => ({
  oneLevelHigh: '80',
  twoLevelHigh: '90',
  oneLevelLow: '20',
  twoLevelLow: '10',
  rangeMin: '0',
  rangeMax: '100',
  alarmDeadband: '0',
  alarmDelaySeconds: 0,
  offlineAfterSeconds: 300,
  frozenAfterSeconds: 0,
  ...over,
})

const T0 = Date.parse('2026-11-28T00:00:00Z')
const at = (seconds: number) => T0 + seconds * 1000

/** Judges readings `[seconds, value, quality?]` in order, each received at its own reading time. */
function run(point: PointSettings, readings: [number, string, (0 | 1)?][], start: PointState = initialState()) {
  let state = start
  const changes: AlarmChange[] = []
  for (const [seconds, value, quality = 0] of readings) {
    const outcome = judgeReading(state, point, { time: at(seconds), value, quality }, at(seconds))
    state = outcome.state
    changes.push(...outcome.changes)
  }
  return { state, changes }
}

const summary = (changes: AlarmChange[]) =>
  changes.map((change) =>
    change.type === 'clear'
      ? `clear ${change.alarm.kind} ${change.endValue}`
      : change.type === 'raise'
        ? `raise ${change.alarm.kind} ${change.alarm.level ?? '-'} ${change.alarm.startValue}`
        : `update ${change.alarm.kind} ${Object.keys(change.changes).sort().join(',')}`,
  )

t.test('a value at the level-1 high threshold raises high at level 1 with that threshold', async (t) => {
  const { state, changes } = run(settings(), [[0, '80']])
  t.same(summary(changes), ['raise high 1 80'])
  t.match(state.open.high, { level: 1, maxLevel: 1, threshold: '80', startTime: at(0), startValue: '80', peakValue: '80' })
})

t.test('a value at the level-2 low threshold raises low at level 2 with maxLevel 2', async (t) => {
  const { state } = run(settings(), [[0, '10']])
  t.match(state.open.low, { kind: 'low', level: 2, maxLevel: 2, threshold: '10' })
})

t.test('escalation and de-escalation stay within one alarm; clearing ends it with its end value', async (t) => {
  const { state, changes } = run(settings(), [
    [0, '85'],
    [1, '95'],
    [2, '85'],
    [3, '50'],
  ])
  t.same(summary(changes), [
    'raise high 1 85',
    'update high level,maxLevel,peakValue,threshold',
    'update high level,threshold',
    'clear high 50',
  ])
  const cleared = changes[3]
  t.ok(cleared.type === 'clear' && cleared.endTime === at(3))
  t.match(cleared.alarm, { level: 1, maxLevel: 2, threshold: '80', peakValue: '95' })
  t.equal(state.open.high, undefined)
})

t.test('thresholds set to "" raise nothing; only the set level applies', async (t) => {
  t.same(
    run(settings({ oneLevelHigh: '', twoLevelHigh: '' }), [[0, '99']]).changes.map((c) => c.alarm.kind),
    [],
  )
  const { state } = run(settings({ oneLevelHigh: '' }), [
    [0, '85'],
    [1, '91'],
  ])
  t.match(state.open.high, { level: 2, threshold: '90' })
})

t.test('deadband: a high alarm leaves a level only strictly below threshold minus deadband', async (t) => {
  const point = settings({ alarmDeadband: '0.1', oneLevelHigh: '1.6', twoLevelHigh: '2.0', rangeMax: '', oneLevelLow: '', twoLevelLow: '' })
  // 1.6 - 0.1 is exactly 1.5: a value of 1.5 stays in the alarm (no binary rounding).
  const held = run(point, [
    [0, '1.6'],
    [1, '1.5'],
  ])
  t.same(summary(held.changes), ['raise high 1 1.6'])
  const left = run(point, [
    [0, '1.6'],
    [1, '1.49'],
  ])
  t.same(summary(left.changes), ['raise high 1 1.6', 'clear high 1.49'])
  const level2 = run(point, [
    [0, '2.0'],
    [1, '1.9'],
    [2, '1.89'],
  ])
  t.same(summary(level2.changes), ['raise high 2 2.0', 'update high level,threshold'])
  t.match(level2.state.open.high, { level: 1, maxLevel: 2, threshold: '1.6' })
})

t.test('deadband: a low alarm leaves only strictly above threshold plus deadband; a new alarm needs the threshold itself', async (t) => {
  const point = settings({ alarmDeadband: '2' })
  const { changes } = run(point, [
    [0, '20'],
    [1, '22'],
    [2, '22.01'],
    [3, '21'],
    [4, '20'],
  ])
  t.same(summary(changes), ['raise low 1 20', 'clear low 22.01', 'raise low 1 20'])
})

t.test('on-delay: raised once the condition held for alarmDelaySeconds, starting at its first reading', async (t) => {
  const point = settings({ alarmDelaySeconds: 10 })
  const early = run(point, [
    [0, '85'],
    [9, '86'],
  ])
  t.same(early.changes, [])
  const { state, changes } = run(point, [
    [0, '85'],
    [5, '95'],
    [10, '88'],
  ])
  t.same(summary(changes), ['raise high 1 85'])
  t.match(state.open.high, { level: 1, maxLevel: 2, threshold: '80', startTime: at(0), startValue: '85', peakValue: '95' })
})

t.test('on-delay: a reading that does not meet the condition starts the delay again', async (t) => {
  const { changes } = run(settings({ alarmDelaySeconds: 10 }), [
    [0, '85'],
    [5, '50'],
    [10, '85'],
    [19, '85'],
    [20, '85'],
  ])
  t.same(summary(changes), ['raise high 1 85'])
  t.equal(changes[0].alarm.startTime, at(10))
})

t.test('on-delay: rising to level 2 within an open alarm is not delayed', async (t) => {
  const { state } = run(settings({ alarmDelaySeconds: 10 }), [
    [0, '85'],
    [10, '85'],
    [11, '95'],
  ])
  t.match(state.open.high, { level: 2, maxLevel: 2 })
})

t.test('outOfRange: one alarm on either side, threshold the crossed bound, peak the farthest outside', async (t) => {
  const point = settings({ oneLevelHigh: '', twoLevelHigh: '', oneLevelLow: '', twoLevelLow: '' })
  const { changes, state } = run(point, [
    [0, '101'],
    [1, '-5'],
    [2, '-2'],
    [3, '50'],
  ])
  // -2 is nearer the range than -5: neither the bound nor the peak changes.
  t.same(summary(changes), ['raise outOfRange - 101', 'update outOfRange peakValue,threshold', 'clear outOfRange 50'])
  t.match(changes[2].alarm, { peakValue: '-5', threshold: '0', level: null })
  t.equal(state.open.outOfRange, undefined)
})

t.test('fault: quality 1 raises fault only and a good reading clears it', async (t) => {
  const { changes } = run(settings(), [
    [0, '99', 1],
    [1, '99', 1],
    [2, '50'],
  ])
  t.same(summary(changes), ['raise fault - 99', 'clear fault 50'])
  t.match(changes[0].alarm, { peakValue: null, threshold: null, level: null })
})

t.test('fault: a faulty reading neither clears nor raises threshold alarms', async (t) => {
  const { state } = run(settings(), [
    [0, '85'],
    [1, '50', 1],
  ])
  t.ok(state.open.high)
  t.ok(state.open.fault)
})

t.test('frozen: one value (as numbers) spanning frozenAfterSeconds, two readings at least; another value clears', async (t) => {
  const point = settings({ frozenAfterSeconds: 60 })
  t.same(run(point, [[0, '50']]).changes, [])
  const { changes } = run(point, [
    [0, '50'],
    [30, '50.0'],
    [59, '50'],
    [60, '50.00'],
    [61, '50'],
    [62, '51'],
  ])
  t.same(summary(changes), ['raise frozen - 50.00', 'clear frozen 51'])
  t.match(changes[0].alarm, { startTime: at(60), peakValue: '50', threshold: null })
})

t.test('frozen: off when frozenAfterSeconds is 0', async (t) => {
  t.same(
    run(settings(), [
      [0, '50'],
      [100_000, '50'],
    ]).changes,
    [],
  )
})

t.test('values are compared as numbers but kept as sent', async (t) => {
  const { state } = run(settings(), [
    [0, '80.000'],
    [1, '95.0'],
    [2, '95'],
  ])
  t.match(state.open.high, { startValue: '80.000', peakValue: '95.0' })
})

t.test('a late reading changes no alarm but is received (offline clears)', async (t) => {
  const point = settings()
  const first = run(point, [[10, '50']])
  const late = judgeReading(first.state, point, { time: at(5), value: '95', quality: 0 }, at(20))
  t.same(late.changes, [])
  t.equal(late.state.newestJudged, at(10))
  t.equal(late.state.lastReceived, at(20))
  const offline = checkOffline(first.state, point, at(10 + 300))
  t.same(summary(offline.changes), ['raise offline - null'])
  const cleared = judgeReading(offline.state, point, { time: at(5), value: '95', quality: 0 }, at(400))
  t.same(summary(cleared.changes), ['clear offline null'])
  t.ok(cleared.changes[0].type === 'clear' && cleared.changes[0].endTime === at(400))
})

t.test('offline: due at the last reception plus offlineAfterSeconds, starting at that deadline, never with 0', async (t) => {
  const point = settings({ offlineAfterSeconds: 30 })
  t.equal(offlineDeadline(initialState(), point), null)
  const { state } = run(point, [[0, '50']])
  t.equal(offlineDeadline(state, point), at(30))
  t.same(checkOffline(state, point, at(29)).changes, [])
  const raised = checkOffline(state, point, at(44))
  t.match(raised.changes[0].alarm, { kind: 'offline', startTime: at(30), startValue: null, peakValue: null })
  t.equal(offlineDeadline(raised.state, point), null, 'raised once')
  t.same(checkOffline(raised.state, point, at(99)).changes, [])
  t.equal(offlineDeadline(state, settings({ offlineAfterSeconds: 0 })), null)
})

const decimal = fc
  .tuple(fc.integer({ min: -2000, max: 2000 }), fc.constantFrom(0, 1, 2))
  .map(([units, scale]) => (units / 10 ** scale).toFixed(scale))
const readings = fc.array(fc.tuple(decimal, fc.constantFrom<0 | 1>(0, 0, 0, 1)), { maxLength: 40 })
const anySettings = fc.record({
  deadband: fc.constantFrom('0', '0.5', '3'),
  delay: fc.constantFrom(0, 5, 30),
  frozen: fc.constantFrom(0, 60),
})

t.test('properties: state stays plain JSON, levels are ordered, at most one open alarm a kind', async () => {
  fc.assert(
    fc.property(readings, anySettings, (values, knobs) => {
      const point = settings({ alarmDeadband: knobs.deadband, alarmDelaySeconds: knobs.delay, frozenAfterSeconds: knobs.frozen })
      let state = initialState()
      values.forEach(([value, quality], index) => {
        const outcome = judgeReading(state, point, { time: at(index * 10), value, quality }, at(index * 10))
        for (const change of outcome.changes) {
          const { level, maxLevel } = change.alarm
          if (change.type === 'raise' && state.open[change.alarm.kind]) throw new Error('raised twice')
          if (level !== null && (maxLevel === null || maxLevel < level)) throw new Error('maxLevel below level')
        }
        state = JSON.parse(JSON.stringify(outcome.state)) as PointState
      })
    }),
  )
})

t.test('properties: without deadband and delay, high is open exactly when the last good value reaches oneLevelHigh', async () => {
  fc.assert(
    fc.property(readings, (values) => {
      const point = settings({ twoLevelHigh: '' })
      let state = initialState()
      values.forEach(([value, quality], index) => {
        state = judgeReading(state, point, { time: at(index), value, quality }, at(index)).state
      })
      const good = values.filter(([, quality]) => quality === 0).at(-1)
      const expected = good !== undefined && Number(good[0]) >= 80
      return (state.open.high !== undefined) === expected
    }),
  )
})

t.test('properties: a high alarm peak is at least every value judged since it opened; late readings change nothing', async () => {
  fc.assert(
    fc.property(
      readings.filter((values) => values.length > 0),
      decimal,
      (values, lateValue) => {
        const point = settings()
        let state = initialState()
        const since: number[] = []
        values.forEach(([value, quality], index) => {
          const outcome = judgeReading(state, point, { time: at(index + 1), value, quality }, at(index + 1))
          state = outcome.state
          if (!state.open.high) since.length = 0
          else if (quality === 0) since.push(Number(value))
        })
        if (state.open.high && since.some((value) => value > Number(state.open.high?.peakValue))) return false
        const late: Reading = { time: at(0), value: lateValue, quality: 0 }
        return judgeReading(state, point, late, at(1000)).changes.every((change) => change.alarm.kind === 'offline')
      },
    ),
  )
})
