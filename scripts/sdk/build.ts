// Builds the SDK package: sdk/tsdown.config.ts compiles src/sdk/client.ts to ESM and CommonJS with
// declarations, into sdk/dist/. It is sdk/package.json's `prepack`, so a plain `npm pack` in sdk/
// (and `npm run sdk:pack`, which calls it) never packs a package without its code. Refuses before
// building when the package's version is not the document's `info.version`: the SDK is versioned
// with the API it types.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
export const SDK_DIR = path.join(ROOT, 'sdk')
const TSDOWN = path.join(ROOT, 'node_modules', 'tsdown', 'dist', 'run.mjs')

export interface SdkManifest {
  name: string
  version: string
  dependencies: Record<string, string>
}

export function readSdkManifest(): SdkManifest {
  return JSON.parse(readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8')) as SdkManifest
}

export function buildSdk(): void {
  const { version } = readSdkManifest()
  const documented = loadOpenApi().document.info.version
  if (version !== documented)
    throw new Error(`sdk/package.json has version ${version}, the OpenAPI document's info.version is ${documented}: make them equal`)
  // stdout stays quiet: `npm pack --json` passes it on, and its answer must stay JSON.
  execFileSync(process.execPath, [TSDOWN, '--config', path.join(SDK_DIR, 'tsdown.config.ts'), '--log-level', 'warn'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  typeOpenapiFetchAsModule(path.join(SDK_DIR, 'dist', 'index.d.cts'))
}

/**
 * openapi-fetch's CommonJS declarations (`export =` beside named exports) are refused by TypeScript
 * 7, which then resolves none of their types: a `require` consumer's client would be untyped. The
 * SDK's CommonJS declarations take openapi-fetch's types from its ES module declarations instead,
 * which TypeScript reads from a CommonJS file by `resolution-mode` (5.3 and later).
 */
export function typeOpenapiFetchAsModule(file: string): void {
  const declarations = readFileSync(file, 'utf8')
  const imported = /^import \* as ([\w$]+) from "openapi-fetch";$/m
  if (!imported.test(declarations)) throw new Error(`${file}: no namespace import of openapi-fetch to give its resolution mode`)
  writeFileSync(file, declarations.replace(imported, 'import type * as $1 from "openapi-fetch" with { "resolution-mode": "import" };'))
}

if (import.meta.main) {
  try {
    buildSdk()
  } catch (error) {
    console.error((error as Error).message)
    process.exitCode = 1
  }
}
