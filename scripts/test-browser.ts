// `npm run test:browser [-- tap options]`: the Swagger UI at /docs driven in a real headless
// Chromium (test/browser/*.browser.ts; not matched by `npm test`, since not every machine has a
// browser). Needs Debian's chromium at /usr/bin/chromium (`apt-get install chromium`); no browser
// is ever downloaded. Like `npm test`: a throw-away embedded PostgreSQL unless DATABASE_URL is set,
// and `N passed, N failed` as the last line.

import { existsSync } from 'node:fs'
import { runTapSuite } from './tap-suite.ts'

const CHROMIUM = '/usr/bin/chromium'

if (!existsSync(CHROMIUM)) {
  process.stderr.write(`# test: ${CHROMIUM} not found: install Debian's chromium (apt-get install chromium)\n`)
  process.stdout.write('0 passed, 1 failed\n', () => process.exit(1))
} else {
  await runTapSuite({ typecheck: false, tapArgs: ['test/browser/swagger-ui.browser.ts', ...process.argv.slice(2)] })
}
