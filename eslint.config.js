// ESLint (flat config): typescript-eslint's recommended rules for every TypeScript file;
// formatting is Prettier's (.prettierrc.json), so eslint-config-prettier turns off the style rules.
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'generated/', 'coverage/', '.tap/', '.data/', 'test/artifacts/', 'sdk/dist/', 'sdk/pack/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests and dev scripts read JSON answers of every shape.
    files: ['test/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // No function over about a screenful in the service. (src/embedded-postgres.ts is dev-only
    // code on its way out of src/.)
    files: ['src/**'],
    ignores: ['src/embedded-postgres.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  prettier,
)
