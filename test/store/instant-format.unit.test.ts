// Unit tier (no database): instants written back in the configured zone, to the second, and
// instants sent by callers kept to the second.
import t from 'tap'
import { instantFormatter, toSecond } from '../../src/store/instant-format.ts'

const instant = new Date('2026-11-21T05:02:35.789Z')

t.test('fixed offsets', async (t) => {
  t.equal(instantFormatter('+08:00')(instant), '2026-11-21T13:02:35+08:00')
  t.equal(instantFormatter('-03:30')(instant), '2026-11-21T01:32:35-03:30')
  t.equal(instantFormatter('Z')(instant), '2026-11-21T05:02:35+00:00')
  t.equal(instantFormatter('UTC')(instant), '2026-11-21T05:02:35+00:00')
  t.equal(instantFormatter('+08:00')(new Date('2026-12-31T16:00:00Z')), '2027-01-01T00:00:00+08:00', 'across midnight and the year')
})

t.test('IANA zones, with their offset of the day (daylight saving)', async (t) => {
  t.equal(instantFormatter('Asia/Shanghai')(instant), '2026-11-21T13:02:35+08:00')
  t.equal(instantFormatter('Europe/Berlin')(new Date('2026-07-01T12:00:00Z')), '2026-07-01T14:00:00+02:00')
  t.equal(instantFormatter('Europe/Berlin')(new Date('2026-01-01T12:00:00Z')), '2026-01-01T13:00:00+01:00')
  t.equal(instantFormatter('Asia/Kolkata')(instant), '2026-11-21T10:32:35+05:30')
})

t.test('toSecond drops a fraction and keeps the rest', async (t) => {
  t.equal(toSecond('2026-11-21T13:02:35.999+08:00'), '2026-11-21T13:02:35+08:00')
  t.equal(toSecond('2026-11-21t13:02:35.1z'), '2026-11-21t13:02:35z')
  t.equal(toSecond('2026-11-21T13:02:35+08:00'), '2026-11-21T13:02:35+08:00')
})
