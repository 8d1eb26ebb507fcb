// `npm run sdk:pack`: builds the SDK package (sdk/package.json; sdk/tsdown.config.ts compiles
// src/sdk/client.ts to ESM and CommonJS with declarations, into sdk/dist/) and packs it with
// `npm pack` into sdk/pack/, printing the tarball's path. Refuses before building when the
// package's version is not the document's `info.version`: the SDK is versioned with the API it types.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
export const SDK_DIR = path.join(ROOT, 'sdk')
export const SDK_PACK_DIR = path.join(SDK_DIR, 'pack')
const TSDOWN = path.join(ROOT, 'node_modules', 'tsdown', 'dist', 'run.mjs')

export interface SdkManifest {
  name: string
  version: string
  dependencies: Record<string, string>
}

export function readSdkManifest(): SdkManifest {
  return JSON.parse(readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8')) as SdkManifest
}

/** Builds and packs the SDK; answers the tarball's absolute path. */
export function packSdk(): string {
  const { version } = readSdkManifest()
  const documented = loadOpenApi().document.info.version
  if (version !== documented)
    throw new Error(`sdk/package.json has version ${version}, the OpenAPI document's info.version is ${documented}: make them equal`)
  execFileSync(process.execPath, [TSDOWN, '--config', path.join(SDK_DIR, 'tsdown.config.ts'), '--log-level', 'warn'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  mkdirSync(SDK_PACK_DIR, { recursive: true })
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', SDK_PACK_DIR], { cwd: SDK_DIR, encoding: 'utf8' })
  const [packed] = JSON.parse(output) as [{ filename: string }]
  return path.join(SDK_PACK_DIR, packed.filename)
}

if (import.meta.main) console.log(packSdk())
