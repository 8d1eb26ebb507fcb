// `npm run generate`: bundles the contract's parts (openapi/src/) into the served document
// openapi/openapi.yaml, then writes generated/openapi.ts (openapi-typescript types of that document),
// generated/openapi.json (the same document as JSON, which the service reads at start) and
// the Prisma client (into node_modules, from prisma/schema.prisma). Never edit openapi/openapi.yaml or
// generated/ by hand.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { OPENAPI_JSON_PATH, OPENAPI_PATH } from '../src/contract/openapi-document.ts'
import { renderBundledOpenApi, renderOpenApiJson } from './openapi-bundle.ts'
import { renderOpenApiTypes } from './openapi-types.ts'

const bundled = await renderBundledOpenApi()
writeFileSync(OPENAPI_PATH, bundled)
console.log(`wrote ${OPENAPI_PATH}`)

writeFileSync(OPENAPI_JSON_PATH, renderOpenApiJson(bundled))
console.log(`wrote ${OPENAPI_JSON_PATH}`)

const target = fileURLToPath(new URL('../generated/openapi.ts', import.meta.url))
writeFileSync(target, await renderOpenApiTypes(bundled))
console.log(`wrote ${target}`)

// The Prisma CLI needs some DATABASE_URL to read the schema; it does not connect for `generate`.
execFileSync(fileURLToPath(new URL('../node_modules/.bin/prisma', import.meta.url)), ['generate', '--config', 'prisma/prisma.config.ts'], {
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://localhost/unused' },
  stdio: 'inherit',
})
