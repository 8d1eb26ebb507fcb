// Unit tier (no database): the failing assertions `npm test` names before its closing count
// (scripts/tap-failures.ts), read from tap's plain TAP output.
import t from 'tap'
import { TapFailures } from '../../scripts/tap-failures.ts'

const read = (output: string) => {
  const failures = new TapFailures()
  for (const line of output.split('\n')) failures.line(line)
  return failures.paths()
}

t.test('each failing assertion is named by its file and subtests, its parents not again', async (t) => {
  const output = [
    'TAP version 14',
    '# Subtest: test/a.test.ts',
    '    # Subtest: first',
    '        ok 1 - should be equal',
    '        not ok 2 - the alarm is cleared',
    '          ---',
    '          at:',
    '            fileName: test/a.test.ts',
    '          ...',
    '        1..2',
    '    not ok 1 - first # time=12.5ms',
    '    # Subtest: second',
    '        ok 1 - should be equal',
    '    ok 2 - second # time=1ms',
    '    1..2',
    'not ok 1 - test/a.test.ts # time=30ms',
    '# Subtest: test/b.test.ts',
    '    ok 1 - fine',
    'ok 2 - test/b.test.ts # time=3ms',
    '# Subtest: test/c.test.ts',
    '    # Subtest: outer',
    '        # Subtest: inner',
    '            not ok 1 - should be equivalent',
    '        not ok 1 - inner',
    '        not ok 2 - timeout!',
    '    not ok 1 - outer',
    'not ok 3 - test/c.test.ts',
    '# Subtest: test/d.test.ts',
    'not ok 4 - test/d.test.ts # time=1ms',
    '1..4',
  ].join('\n')
  t.strictSame(read(output), [
    'test/a.test.ts > first > the alarm is cleared',
    'test/c.test.ts > outer > inner > should be equivalent',
    'test/c.test.ts > outer > timeout!',
    'test/d.test.ts',
  ])
})

t.test('a passing run names nothing', async (t) => {
  t.strictSame(read('# Subtest: test/b.test.ts\n    ok 1 - fine\nok 1 - test/b.test.ts # time=3ms\n1..1'), [])
})
