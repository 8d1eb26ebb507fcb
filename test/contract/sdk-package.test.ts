// The SDK as an installable package (sdk/): a plain `npm pack` in sdk/ builds it first (its
// `prepack`), so the package never ships without its code; `npm run sdk:pack` packs it; a plain Node
// project outside the repository installs the tarball and runs sdk/README.md's ES module and CommonJS
// examples, word for word, against the real service, each printing what its `// prints:` comments
// say; a bundler bundles the ES module example into a file that runs on its own; a TypeScript
// project type-checks against the declarations the package ships.
//
// The install is offline with an empty npm cache: the SDK's dependencies are packed from this
// repository's node_modules and installed beside the tarball, so npm resolves the SDK's declared
// dependencies with them and never asks a registry.
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { build } from 'rolldown'
import t from 'tap'
import { readSdkManifest, SDK_DIR } from '../../scripts/sdk/build.ts'
import { packSdk } from '../../scripts/sdk/pack.ts'
import { ADMIN_PASSWORD, startService } from '../helpers/service.ts'

const run = promisify(execFile)
const ROOT = path.resolve(import.meta.dirname, '..', '..')
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
const manifest = readSdkManifest()

/** Where Node would find package `name` from directory `from` (inside this repository). */
function installedDir(name: string, from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name)
    if (existsSync(path.join(candidate, 'package.json'))) return candidate
    if (dir === ROOT) throw new Error(`${name} is not installed in ${ROOT}/node_modules`)
  }
}

/** The SDK's dependencies and theirs, as installed in this repository. */
function dependencyClosure(): string[] {
  const found = new Set<string>()
  const visit = (dependencies: Record<string, string> | undefined, from: string) => {
    for (const name of Object.keys(dependencies ?? {})) {
      const dir = installedDir(name, from)
      if (found.has(dir)) continue
      found.add(dir)
      visit(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies, dir)
    }
  }
  visit(manifest.dependencies, ROOT)
  return [...found]
}

/** `lang` blocks' text after a `## heading` of the README. */
function readmeBlock(readme: string, heading: string, lang: string): string {
  const section = readme.indexOf(`\n## ${heading}\n`)
  const open = readme.indexOf(`\n\`\`\`${lang}\n`, section)
  const close = readme.indexOf('\n```\n', open + 1)
  if (section < 0 || open < 0 || close < 0) throw new Error(`sdk/README.md has no \`\`\`${lang} block under "## ${heading}"`)
  return readme.slice(open + `\n\`\`\`${lang}\n`.length, close + 1)
}

/** What an example says it prints, line by line (its `// prints: …` comments, in order). */
function printed(example: string): string[] {
  return [...example.matchAll(/\/\/ prints: (.*)$/gm)].map((match) => match[1])
}

const npm = (args: string[], cwd: string) => run('npm', args, { cwd, encoding: 'utf8' })

const project = mkdtempSync(path.join(os.tmpdir(), 'sdk-consumer-'))
t.teardown(() => rmSync(project, { recursive: true, force: true }))
const readme = readFileSync(path.join(SDK_DIR, 'README.md'), 'utf8')

t.test('a plain npm pack in sdk/ builds the package first: from a clean sdk/ it packs the compiled code', async (t) => {
  rmSync(path.join(SDK_DIR, 'dist'), { recursive: true, force: true })
  const { stdout } = await npm(['pack', '--dry-run', '--json'], SDK_DIR)
  const [packed] = JSON.parse(stdout) as [{ files: { path: string }[] }]
  const files = packed.files.map((file) => file.path).sort()
  t.same(
    files,
    ['README.md', 'dist/index.cjs', 'dist/index.d.cts', 'dist/index.d.mts', 'dist/index.mjs', 'package.json'],
    'the compiled files are packed',
  )
})

t.test('npm run sdk:pack makes a tarball that a plain Node project installs offline', async (t) => {
  const tarball = packSdk()
  t.equal(path.basename(tarball), `safety-platform-sdk-${manifest.version}.tgz`)

  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true }))
  const deps = path.join(project, 'deps')
  mkdirSync(deps)
  for (const dir of dependencyClosure()) await npm(['pack', '--ignore-scripts', '--pack-destination', deps, dir], project)
  const packed = readdirSync(deps).map((file) => `./deps/${file}`)
  t.ok(
    packed.some((file) => file.includes('openapi-fetch')),
    'openapi-fetch is a dependency, installed beside the SDK',
  )

  const offline = ['--offline', '--cache', path.join(project, '.npm-cache'), '--no-audit', '--no-fund', '--ignore-scripts']
  await npm(['install', ...offline, tarball, ...packed], project)
  const listed = JSON.parse((await npm(['ls', '--all', '--json', '--offline'], project)).stdout)
  t.same(listed.problems, undefined, 'every dependency of the SDK is met (npm ls)')
  t.equal(listed.dependencies['@safety-platform/sdk'].version, manifest.version)
  t.ok(listed.dependencies['@safety-platform/sdk'].dependencies['openapi-fetch'], 'the SDK depends on openapi-fetch')

  const installed = path.join(project, 'node_modules', '@safety-platform', 'sdk')
  t.same(readdirSync(path.join(installed, 'dist')).sort(), ['index.cjs', 'index.d.cts', 'index.d.mts', 'index.mjs'])
  const esm = readFileSync(path.join(installed, 'dist', 'index.mjs'), 'utf8')
  t.match(esm, /^import \w+ from "openapi-fetch";$/m, 'openapi-fetch is imported, not bundled')
  t.notMatch(esm, /createFinalURL/, 'no openapi-fetch code in the build')
  // TypeScript 7 refuses openapi-fetch's own CommonJS declarations: the SDK's take its ES module ones.
  const commonJsTypes = readFileSync(path.join(installed, 'dist', 'index.d.cts'), 'utf8')
  t.match(commonJsTypes, /^import type \* as [\w$]+ from "openapi-fetch" with \{ "resolution-mode": "import" \};$/m)
  t.notMatch(commonJsTypes, /^import (?!type \* as [\w$]+ from "openapi-fetch" with).*from "openapi-fetch"/m, 'no other import of it')

  // Node picks the ESM file for import and the CommonJS file for require.
  const resolved = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module'
console.log(import.meta.resolve('@safety-platform/sdk'))
console.log(createRequire(import.meta.url + '/').resolve('@safety-platform/sdk'))`,
    ],
    { cwd: project, encoding: 'utf8' },
  )
  const [imported, required] = resolved.stdout.trim().split('\n')
  t.match(imported, /\/dist\/index\.mjs$/)
  t.match(required, /\/dist\/index\.cjs$/)
})

t.test("the README's ES module and CommonJS examples run as plain JavaScript against the service", async (t) => {
  const service = await startService(t)
  const env = { PATH: process.env.PATH, SAFETY_URL: service.url, SAFETY_USER: 'admin', SAFETY_PASSWORD: ADMIN_PASSWORD }
  const examples = [
    { file: 'example.mjs', source: readmeBlock(readme, 'Use it from an ES module', 'js') },
    // A .js file in a project without `"type": "module"`: CommonJS, as in an older code base.
    { file: 'example.js', source: readmeBlock(readme, 'Use it from CommonJS', 'js') },
  ]
  for (const { file, source } of examples) {
    t.ok(printed(source).length > 0, `${file} says what it prints`)
    writeFileSync(path.join(project, file), source)
    const { stdout, stderr } = await run(process.execPath, [file], { cwd: project, env, encoding: 'utf8' })
    t.equal(stderr, '', `${file} wrote nothing to stderr`)
    t.same(stdout.trimEnd().split('\n'), printed(source), `${file} printed what its comments say`)
  }

  // The calls reached the service: the records are there.
  const token = await service.login()
  for (const [id, name] of [
    ['RU-TANK-1', 'Tank farm'],
    ['RU-TANK-2', 'Loading bay'],
  ]) {
    const stored = await service.call('/prevent/riskUnit/getById', { id }, { token })
    t.equal(stored.body.data?.riskUnitName, name, `${id} stored`)
  }
})

t.test('a bundler takes the ES module example, the SDK and openapi-fetch into one file that runs on its own', async (t) => {
  const service = await startService(t)
  const example = readmeBlock(readme, 'Use it from an ES module', 'js')
  writeFileSync(path.join(project, 'bundled-example.mjs'), example)
  const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'sdk-bundle-'))
  t.teardown(() => rmSync(elsewhere, { recursive: true, force: true }))
  const bundle = path.join(elsewhere, 'example.mjs')
  await build({
    input: path.join(project, 'bundled-example.mjs'),
    cwd: project,
    platform: 'node',
    logLevel: 'silent',
    output: { file: bundle, format: 'esm' },
  })
  t.notMatch(readFileSync(bundle, 'utf8'), /from ["'](openapi-fetch|@safety-platform\/sdk)["']/, 'nothing left to import')
  const env = { PATH: process.env.PATH, SAFETY_URL: service.url, SAFETY_USER: 'admin', SAFETY_PASSWORD: ADMIN_PASSWORD }
  const { stdout } = await run(process.execPath, [bundle], { cwd: elsewhere, env, encoding: 'utf8' })
  t.same(stdout.trimEnd().split('\n'), printed(example))
})

t.test('a TypeScript project type-checks against the declarations, for import and require', async (t) => {
  const consumer = `
import { createSafetyClient, type components, type SafetyClient } from '@safety-platform/sdk'

const safety: SafetyClient = createSafetyClient({ baseUrl: 'http://localhost:3000' })

export async function riskUnitName(id: string): Promise<string | undefined> {
  const read = await safety.POST('/prevent/riskUnit/getById', { body: { id } })
  const unit: components['schemas']['RiskUnitRecord'] | null | undefined = read.data?.data
  return unit?.riskUnitName
}

export async function wrongUses() {
  // @ts-expect-error: the API has no such path
  await safety.POST('/prevent/riskUnit/nowhere', { body: {} })
  // @ts-expect-error: getById takes an id
  await safety.POST('/prevent/riskUnit/getById', { body: { name: 'x' } })
  // @ts-expect-error: riskUnitName is text
  await safety.POST('/prevent/riskUnit/add', { body: { id: 'RU-1', riskUnitName: 1 } })
  // @ts-expect-error: riskLevel is one of '1' to '4'
  await safety.POST('/prevent/riskUnit/add', { body: { id: 'RU-1', riskUnitName: 'x', riskLevel: '9' } })
  const read = await safety.POST('/prevent/riskUnit/getById', { body: { id: 'RU-1' } })
  // @ts-expect-error: the answer has no such field
  read.data?.data?.nowhere
  // Not a type error, as sdk/README.md says: the service answers it with 1002.
  await safety.POST('/prevent/riskUnit/add', { body: { id: 'RU-1', riskUnitName: 'x', extra: 1 } })
}
`
  writeFileSync(path.join(project, 'consumer.mts'), consumer)
  writeFileSync(path.join(project, 'consumer.cts'), consumer)
  const compilerOptions = {
    strict: true,
    noEmit: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2022', 'dom'],
    types: [],
    skipLibCheck: false,
  }
  writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.mts', 'consumer.cts'] }))
  const checked = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--listFilesOnly'], { cwd: project, encoding: 'utf8' })
  t.match(checked.stdout, /sdk\/dist\/index\.d\.mts/, 'import reads index.d.mts')
  t.match(checked.stdout, /sdk\/dist\/index\.d\.cts/, 'require reads index.d.cts')
  const errors = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' }).then(
    () => '',
    (failure: { stdout: string }) => failure.stdout,
  )
  t.equal(errors, '', 'tsc found no error (and each @ts-expect-error met one)')
})
