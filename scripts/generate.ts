// `npm run generate`: writes generated/openapi.ts (openapi-typescript types of openapi/openapi.yaml)
// and the Prisma client (into node_modules, from prisma/schema.prisma). Never edit generated/ by hand.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { renderOpenApiTypes } from './openapi-types.ts'

const target = fileURLToPath(new URL('../generated/openapi.ts', import.meta.url))
writeFileSync(target, await renderOpenApiTypes())
console.log(`wrote ${target}`)

// The Prisma CLI needs some DATABASE_URL to read the schema; it does not connect for `generate`.
execFileSync(fileURLToPath(new URL('../node_modules/.bin/prisma', import.meta.url)), ['generate', '--config', 'prisma/prisma.config.ts'], {
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://localhost/unused' },
  stdio: 'inherit',
})
