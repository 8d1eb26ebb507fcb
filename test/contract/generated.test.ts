// The served document openapi/openapi.yaml is bundled from its parts under openapi/src/, and generated/ is
// rebuilt from that document, both by `npm run generate` and committed: neither may drift.

import { readFile } from 'node:fs/promises'
import t from 'tap'
import { renderBundledOpenApi, renderOpenApiJson } from '../../scripts/openapi-bundle.ts'
import { renderOpenApiTypes } from '../../scripts/openapi-types.ts'
import { OPENAPI_JSON_PATH, OPENAPI_PATH } from '../../src/contract/openapi-document.ts'

t.test('openapi/openapi.yaml is the bundle of openapi/src/ (run `npm run generate` when this fails)', async (t) => {
  const committed = await readFile(OPENAPI_PATH, 'utf8')
  t.ok(committed === (await renderBundledOpenApi()), 'openapi/openapi.yaml is up to date')
})

t.test('generated/openapi.ts matches openapi/openapi.yaml (run `npm run generate` when this fails)', async (t) => {
  const committed = await readFile(new URL('../../generated/openapi.ts', import.meta.url), 'utf8')
  t.ok(committed === (await renderOpenApiTypes()), 'generated/openapi.ts is up to date')
})

t.test(
  'generated/openapi.json, which the service reads, is openapi/openapi.yaml as JSON (run `npm run generate` when this fails)',
  async (t) => {
    const committed = await readFile(OPENAPI_JSON_PATH, 'utf8')
    t.ok(committed === renderOpenApiJson(await readFile(OPENAPI_PATH, 'utf8')), 'generated/openapi.json is up to date')
  },
)

t.end()
