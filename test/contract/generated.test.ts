// generated/ is rebuilt from the document by `npm run generate` and committed: it must not drift.

import { readFile } from 'node:fs/promises'
import t from 'tap'
import { renderOpenApiTypes } from '../../scripts/openapi-types.ts'

t.test('generated/openapi.ts matches openapi/openapi.yaml (run `npm run generate` when this fails)', async (t) => {
  const committed = await readFile(new URL('../../generated/openapi.ts', import.meta.url), 'utf8')
  t.ok(committed === (await renderOpenApiTypes()), 'generated/openapi.ts is up to date')
})

t.end()
