// The layers of src/, checked by dependency-cruiser in `npm test` (`npm run layers`). Each layer
// imports only itself and the layers listed for it; nothing may form a cycle.
//
//   app.ts, editions/, main.ts  the composition root (app.ts choosing one of editions/), the process (edition.ts): may import anything
//   http/                     plugins, handlers, routing                 → everything below
//   operations/               what each operation does                   → domain, store, auth
//   auth/, park/              beside operations                          → store (park: and the SDK, its client)
//   domain/                   rules, state machines, search conditions   → store (its types)
//   store/                    SQL and the database                       → resources
//   resources/                the resource registry, read from the contract
//   contract/, config.ts, errors.ts, messages/, generated/   usable from anywhere; errors.ts imports
//                             only messages/, which imports nothing
const below = {
  http: ['operations', 'domain', 'store', 'auth', 'park', 'resources'],
  operations: ['domain', 'store', 'auth', 'resources'],
  auth: ['store'],
  park: ['store', 'resources', 'sdk'],
  domain: ['store', 'resources'],
  store: ['resources'],
  resources: [],
  contract: [],
  sdk: [],
}
const neutral = ['^src/contract/', '^src/errors\\.ts$', '^src/messages/', '^src/config\\.ts$', '^generated/']

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    { name: 'no-cycle', comment: 'Modules must not import each other in a circle.', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'errors-imports-only-messages',
      comment: 'src/errors.ts is the one module every layer may use: it imports only the messages.',
      severity: 'error',
      from: { path: '^src/errors\\.ts$' },
      to: { pathNot: '^src/messages/' },
    },
    {
      name: 'messages-import-nothing',
      comment: 'src/messages/ (the catalogue of every msg, in every language) imports nothing outside itself.',
      severity: 'error',
      from: { path: '^src/messages/' },
      to: { pathNot: '^src/messages/' },
    },
    {
      name: 'config-imports-no-layer',
      comment: 'src/config.ts reads the environment; it knows no layer.',
      severity: 'error',
      from: { path: '^src/config\\.ts$' },
      to: { path: '^src/', pathNot: '^src/config\\.ts$' },
    },
    {
      name: 'only-the-root-imports-the-root',
      comment:
        'The composition root (src/app.ts, src/editions/) and the process (src/main.ts, src/edition.ts) are imported by nothing in src/ but the root and the process.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(main|edition|app)\\.ts$', '^src/editions/'] },
      to: { path: ['^src/(app|edition|main)\\.ts$', '^src/editions/'] },
    },
    {
      name: 'src-stands-alone',
      comment: 'src/ never imports tests or dev scripts.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|scripts)/' },
    },
    ...Object.entries(below).map(([layer, allowed]) => ({
      name: `${layer}-looks-down`,
      comment: `src/${layer}/ imports only ${[layer, ...allowed].join(', ')} and the neutral modules (contract, config, errors, generated).`,
      severity: 'error',
      from: { path: `^src/${layer}/` },
      to: { path: '^(src|generated)/', pathNot: [`^src/${layer}/`, ...allowed.map((name) => `^src/${name}/`), ...neutral] },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
}
