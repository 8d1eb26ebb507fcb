// PostgreSQL refuses to run as root. Run as root, the server (and initdb) run as the `postgres` OS
// user instead, which must then reach the binaries and own the data directory. A clone inside a
// private directory (mode 700, as home directories are) is out of its reach: the binaries are then
// copied, and the data placed, under a directory it can reach (placeBase()).
import { execFile, spawnSync } from 'node:child_process'
import { lstatSync } from 'node:fs'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { EmbeddedPostgresError } from './errors.ts'

const execFileAsync = promisify(execFile)

/** The OS user the server runs as when we are root. */
export interface Ids {
  uid: number
  gid: number
}

async function lookupPostgresUser(): Promise<Ids> {
  const [uid, gid] = await Promise.all([
    execFileAsync('id', ['-u', 'postgres']).then((r) => Number.parseInt(r.stdout, 10)),
    execFileAsync('id', ['-g', 'postgres']).then((r) => Number.parseInt(r.stdout, 10)),
  ])
  return { uid, gid }
}

/** As root: the postgres OS user's ids, creating the user if missing. Otherwise undefined. */
export async function postgresUser(): Promise<Ids | undefined> {
  if (process.getuid?.() !== 0) return undefined
  try {
    return await lookupPostgresUser()
  } catch {
    try {
      await execFileAsync('groupadd', ['postgres']).catch(() => undefined)
      await execFileAsync('useradd', ['-g', 'postgres', 'postgres'])
      return await lookupPostgresUser()
    } catch (err) {
      const why = (err as Error).message.split('\n')[0]
      throw new EmbeddedPostgresError(
        `running as root, and the 'postgres' OS user (which must run the server) could not be created: ${why}`,
      )
    }
  }
}

/** `test FLAG path` as the given user: -x (can run / traverse), -w (can write), -r (can read). */
export function canAs(ids: Ids, flag: '-x' | '-w' | '-r', target: string): boolean {
  return spawnSync('/bin/sh', ['-c', `test ${flag} "$1"`, 'sh', target], { uid: ids.uid, gid: ids.gid }).status === 0
}

/** True when the user can get to `target`: every existing directory on the way is traversable. */
export function canReach(ids: Ids, target: string): boolean {
  let existing = target
  while (!pathExists(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing)
  const dir = isDirectory(existing) ? existing : path.dirname(existing)
  return canAs(ids, '-x', dir)
}

function pathExists(p: string): boolean {
  try {
    lstatSync(p)
    return true
  } catch {
    return false
  }
}

function isDirectory(p: string): boolean {
  try {
    return lstatSync(p).isDirectory()
  } catch {
    return false
  }
}

export async function chownTree(dir: string, ids: Ids): Promise<void> {
  await fs.lchown(dir, ids.uid, ids.gid)
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name)
    if (entry.isDirectory()) await chownTree(p, ids)
    else await fs.lchown(p, ids.uid, ids.gid)
  }
}

/** Where placeBase() looks, in order: persistent data first under /var/lib, throw-away data first under the temporary directory. */
export function baseCandidates(persistent: boolean): string[] {
  const temporary = [path.join(os.tmpdir(), 'safety-platform'), '/tmp/safety-platform']
  return [...new Set(persistent ? ['/var/lib/safety-platform', ...temporary] : [...temporary, '/var/lib/safety-platform'])]
}

/** A root-owned directory, not writable by others, that the user can traverse: for binaries and data. */
export async function placeBase(ids: Ids, persistent: boolean): Promise<string> {
  const candidates = baseCandidates(persistent)
  for (const base of candidates) {
    try {
      await fs.mkdir(base, { recursive: true, mode: 0o755 })
      const stat = await fs.lstat(base)
      // Refuse a directory someone else prepared (a symlink, or writable by others).
      if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) continue
      if (canAs(ids, '-x', base)) return base
    } catch {
      // not usable: try the next one
    }
  }
  throw new EmbeddedPostgresError(
    `running as root, and no directory the 'postgres' OS user can reach was found for PostgreSQL (tried ${candidates.join(', ')}): ` +
      `run as another user, or make one of them reachable (chmod o+x)`,
  )
}
