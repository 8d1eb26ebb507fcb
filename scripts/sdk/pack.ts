// `npm run sdk:pack`: packs the SDK package (sdk/package.json) with `npm pack` into sdk/pack/,
// printing the tarball's path. The package's `prepack` builds it first (scripts/sdk/build.ts),
// refusing when its version is not the document's `info.version`.
import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { SDK_DIR } from './build.ts'

export const SDK_PACK_DIR = path.join(SDK_DIR, 'pack')

/** Builds and packs the SDK; answers the tarball's absolute path. */
export function packSdk(): string {
  mkdirSync(SDK_PACK_DIR, { recursive: true })
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', SDK_PACK_DIR], {
    cwd: SDK_DIR,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const [packed] = JSON.parse(output) as [{ filename: string }]
  return path.join(SDK_PACK_DIR, packed.filename)
}

if (import.meta.main) {
  try {
    console.log(packSdk())
  } catch (error) {
    // npm failed and has said why on stderr (the prepack's own message among it).
    const { status } = error as { status?: number | null }
    if (typeof status !== 'number') throw error
    process.exitCode = status
  }
}
