// The cluster (PGDATA): where it lives, and its creation by initdb with a generated admin password.
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, statSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { EmbeddedPostgresError } from './errors.ts'
import { baseCandidates, canReach, chownTree, type Ids, placeBase } from './os-user.ts'

const PASSWORD_FILE = 'embedded-admin-password'
export const ADMIN_USER = 'postgres'

/**
 * The directory the cluster lives in: `dataDir`, unless we are root and the postgres OS user
 * cannot reach it; then a directory under placeBase() keyed by dataDir's path (the same on every
 * start from the same clone). A cluster already placed there is used whatever dataDir's reach.
 */
export async function placeCluster(
  dataDir: string,
  ids: Ids | undefined,
  persistent: boolean,
  log: (line: string) => void,
): Promise<string> {
  if (ids === undefined) return dataDir
  const name = `cluster-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`
  const placedBefore = baseCandidates(persistent)
    .map((base) => path.join(base, name))
    .find((placed) => existsSync(path.join(placed, 'PG_VERSION')))
  if (placedBefore) {
    log(`PostgreSQL's data for ${dataDir} is in ${placedBefore} (out of reach of the 'postgres' OS user where asked)`)
    return placedBefore
  }
  if (canReach(ids, dataDir)) return dataDir
  const placed = path.join(await placeBase(ids, persistent), name)
  log(`the 'postgres' OS user cannot reach ${dataDir}: PostgreSQL's data goes to ${placed}`)
  return placed
}

/** Creates the directory (owned by the server's OS user) and the cluster if absent; answers the admin password. */
export async function ensureCluster(initdb: string, dataDir: string, ids: Ids | undefined, persistent: boolean): Promise<string> {
  await fs.mkdir(path.dirname(dataDir), { recursive: true })
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 })
  if (ids && statSync(dataDir).uid !== ids.uid) await chownTree(dataDir, ids)
  const passwordFile = path.join(dataDir, PASSWORD_FILE)
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) {
    try {
      return (await fs.readFile(passwordFile, 'utf8')).trim()
    } catch {
      throw new EmbeddedPostgresError(
        `${dataDir} holds a PostgreSQL cluster but not its password file ${PASSWORD_FILE}: remove the directory to start afresh`,
      )
    }
  }
  if ((await fs.readdir(dataDir)).length > 0) {
    throw new EmbeddedPostgresError(
      `${dataDir} is not empty and holds no PostgreSQL cluster (an interrupted first start?): remove it to start afresh`,
    )
  }
  const password = randomBytes(18).toString('base64url')
  await runInitdb(initdb, dataDir, ids, password, persistent)
  await fs.writeFile(passwordFile, password + '\n', { mode: 0o600 })
  return password
}

async function runInitdb(initdb: string, dataDir: string, ids: Ids | undefined, password: string, persistent: boolean): Promise<void> {
  // initdb reads the password from a file: beside the cluster, readable by the server's OS user only.
  const pwFile = path.join(path.dirname(dataDir), `.initdb-pw-${randomBytes(6).toString('hex')}`)
  await fs.writeFile(pwFile, password + '\n', { mode: 0o600 })
  try {
    if (ids) await fs.chown(pwFile, ids.uid, ids.gid)
    const args = [`--pgdata=${dataDir}`, '--auth=scram-sha-256', `--username=${ADMIN_USER}`, `--pwfile=${pwFile}`]
    args.push('--encoding=UTF8', '--locale=C', ...(persistent ? [] : ['--no-sync']))
    const { code, stderr } = await run(initdb, args, ids)
    if (code !== 0) {
      const last = stderr.trim().split('\n').filter(Boolean).at(-1) ?? ''
      throw new EmbeddedPostgresError(`initdb failed (${code}): ${last}`)
    }
  } finally {
    await fs.rm(pwFile, { force: true })
  }
}

function run(file: string, args: string[], ids: Ids | undefined): Promise<{ code: number | string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { ...(ids ?? {}), stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } })
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.once('error', (err) => resolve({ code: err.message, stderr }))
    child.once('close', (code, signal) => resolve({ code: code ?? signal ?? 'killed', stderr }))
  })
}
