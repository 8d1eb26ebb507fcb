// The layer check (.dependency-cruiser.mjs, run by `npm test`) passes on src/ as it is, and fails on
// a copy of src/ with one upward import, or with two modules importing each other.
import { execFile } from 'node:child_process'
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs')
const CONFIG = path.join(ROOT, '.dependency-cruiser.mjs')

function depcruise(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG], { cwd }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    )
  })
}

/** A copy of the project's src/ (and what it imports outside it), changed by `change`. */
async function copyWith(change: (dir: string) => Promise<void>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'layers-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  for (const entry of ['src', 'generated', 'tsconfig.json']) await cp(path.join(ROOT, entry), path.join(dir, entry), { recursive: true })
  await change(dir)
  return dir
}

t.test('src/ as it is keeps its layers', async (t) => {
  const { code, output } = await depcruise(ROOT)
  t.equal(code, 0, output)
})

t.test('an upward import fails the check: store importing http', async (t) => {
  const dir = await copyWith((dir) =>
    writeFile(path.join(dir, 'src/store/upward.ts'), "import { operationOf } from '../http/routing.ts'\nexport const up = operationOf\n"),
  )
  const { code, output } = await depcruise(dir)
  t.not(code, 0)
  t.match(output, /store-looks-down: src\/store\/upward\.ts → src\/http\/routing\.ts/)
})

t.test('errors.ts importing anything but the messages fails the check', async (t) => {
  const dir = await copyWith(async (dir) => {
    const file = path.join(dir, 'src/errors.ts')
    await writeFile(file, "import { EOL } from 'node:os'\nexport const eol = EOL\n", { flag: 'a' })
  })
  const { code, output } = await depcruise(dir)
  t.not(code, 0)
  t.match(output, /errors-imports-only-messages/)
})

t.test('the messages importing anything outside themselves fails the check', async (t) => {
  const dir = await copyWith(async (dir) => {
    const file = path.join(dir, 'src/messages/catalogue.ts')
    await writeFile(file, "import { Code } from '../errors.ts'\nexport const code = Code\n", { flag: 'a' })
  })
  const { code, output } = await depcruise(dir)
  t.not(code, 0)
  t.match(output, /messages-import-nothing/)
})

t.test('a cycle fails the check', async (t) => {
  const dir = await copyWith(async (dir) => {
    await writeFile(path.join(dir, 'src/domain/ping.ts'), "import { pong } from './pong.ts'\nexport const ping = () => pong\n")
    await writeFile(path.join(dir, 'src/domain/pong.ts'), "import { ping } from './ping.ts'\nexport const pong = () => ping\n")
  })
  const { code, output } = await depcruise(dir)
  t.not(code, 0)
  t.match(output, /no-cycle/)
})
