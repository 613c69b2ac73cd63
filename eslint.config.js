// ESLint flat config: JavaScript's and typescript-eslint's recommended rules over the sources,
// tests, benchmarks and scripts. Formatting is Prettier's job (`npm run format`), not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'dist.next/', 'dist.old/', 'coverage/', 'node_modules/', 'fixtures/', 'bench/data/', '.tmp/'] },
  // Written by the build (scripts/validators.mjs).
  { ignores: ['generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A leading underscore marks a name taken only to leave it out (`const { a: _a, ...rest } = x`)
      // or a parameter a signature needs but the body does not.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Terminal control characters are what these patterns are about: output is cleaned of them
      // and tests strip colour codes. The rule exists to catch them by accident, which is not a risk here.
      'no-control-regex': 'off',
    },
  },
  {
    // One temporary-folder helper in the tests, which removes what it makes (test/helpers/temp.ts).
    files: ['test/**/*.ts'],
    ignores: ['test/helpers/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['fs', 'node:fs'].map((name) => ({
            name,
            importNames: ['mkdtempSync', 'mkdtemp'],
            message: 'use tempDir() from test/helpers/temp.ts: it removes the folder after the test or the file',
          })),
        },
      ],
    },
  },
  {
    // CommonJS on purpose: the bin entry (started without Node's ESM loader) and the build's undici shim.
    files: ['bin/**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
