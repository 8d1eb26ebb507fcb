// Builds the SDK package (sdk/package.json) from the service's own source, src/sdk/client.ts: one
// ESM and one CommonJS file with their declarations, the generated types of the document inlined in
// them. openapi-fetch stays a dependency the installer resolves, not bundled code.
import { defineConfig, type UserConfig } from 'tsdown'

type Plugin = Extract<NonNullable<UserConfig['plugins']>, { name: string }>

/**
 * The source lives in a `"type": "module"` package, so the bundler gives its default imports Node's
 * ESM meaning (the default of a CommonJS module is its whole `module.exports`). The CommonJS build
 * loads each dependency through its `require` entry, whose default is `exports.default` when it
 * says `__esModule`: openapi-fetch's is. Without this, `require()` of the SDK fails on its first
 * call (`createClient` would be openapi-fetch's exports object).
 */
const commonJsInterop: Plugin = {
  name: 'sdk:commonjs-interop',
  renderChunk(code, _chunk, options) {
    if (options.format !== 'cjs') return null
    return code.replace(/__toESM\(([\w$]+), 1\)/g, '__toESM($1)')
  },
}

export default defineConfig({
  cwd: import.meta.dirname,
  entry: { index: '../src/sdk/client.ts' },
  format: ['esm', 'cjs'],
  platform: 'neutral',
  target: 'es2022',
  fixedExtension: true,
  dts: true,
  outDir: 'dist',
  clean: true,
  tsconfig: '../tsconfig.json',
  plugins: [commonJsInterop],
  // The declarations inline the whole document's types: their build is slow by nature, not news.
  checks: { pluginTimings: false },
})
