// The embedded PostgreSQL of `npm start` / `npm test` started from a private directory (mode 700,
// as home directories are), with its binaries there too. As root the server runs as the
// `postgres` OS user, which cannot reach that directory: binaries and data are then placed where
// it can. As another user the server runs as that user, in place.
import { cp, mkdir, mkdtemp, rm, stat, copyFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import t from 'tap'
import { installedNative } from '../../scripts/dev/embedded-postgres/binaries.ts'
import { startEmbeddedPostgres } from '../../scripts/dev/embedded-postgres/index.ts'
import { freePort } from '../../scripts/dev/ports.ts'

t.test('starts from a private directory, as root or not', async (t) => {
  const privateDir = await mkdtemp(path.join(os.tmpdir(), 'private-clone-'))
  t.teardown(() => rm(privateDir, { recursive: true, force: true }))
  t.equal((await stat(privateDir)).mode & 0o777, 0o700, 'the directory is private')
  // A copy of the platform package inside it, as node_modules of a clone there would hold.
  const { nativeDir } = installedNative()
  const packageCopy = path.join(privateDir, 'node_modules', 'platform')
  await mkdir(packageCopy, { recursive: true })
  await copyFile(path.join(nativeDir, '..', 'package.json'), path.join(packageCopy, 'package.json'))
  await cp(nativeDir, path.join(packageCopy, 'native'), { recursive: true, verbatimSymlinks: true })

  const asked = path.join(privateDir, '.data', 'pg')
  const db = await startEmbeddedPostgres({
    dataDir: asked,
    port: await freePort(),
    persistent: false,
    nativeDir: path.join(packageCopy, 'native'),
  })
  t.teardown(() => db.stop())
  const client = new pg.Client({ connectionString: db.adminUrl })
  await client.connect()
  t.teardown(() => client.end())
  await client.query('CREATE TABLE probe (id int PRIMARY KEY)')
  await client.query('INSERT INTO probe VALUES (1)')
  t.same((await client.query('SELECT count(*)::int AS n FROM probe')).rows, [{ n: 1 }], 'it stores and answers')
  const { rows } = await client.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir")
  t.equal(rows[0]!.dir, db.dataDir)
  if (process.getuid?.() === 0) {
    t.notOk(db.dataDir.startsWith(privateDir + path.sep), `as root the data is placed out of the private directory (${db.dataDir})`)
  } else {
    t.equal(db.dataDir, asked, 'as another user the data is where asked')
  }
  await client.end()
  await db.stop()
  await t.rejects(stat(db.dataDir), { code: 'ENOENT' }, 'a throw-away cluster is removed by stop()')
})
