// ESLint flat config: JavaScript's and typescript-eslint's recommended rules over the sources,
// tests, benchmarks and scripts. Formatting is Prettier's job (`npm run format`), not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The errors that end a command with its exit code (src/errors.ts): their messages are printed, redacted. */
const CLI_ERRORS = [
  'CliError',
  'UsageError',
  'InputError',
  'AuthError',
  'NetworkError',
  'ServiceError',
  'WrongSchemeError',
  'NotFoundError',
  'OldStateError',
  'LocalError',
  'InterruptedError',
  'ServiceUnavailableError',
].join('|');
/** A message given as a plain string. */
const PLAIN = ':matches(TemplateLiteral, Literal, BinaryExpression)';

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
    // A message is written with `said` (src/said.ts): its literal words are callctl's, shown as
    // written, and only what it interpolates is redacted. A plain string would be redacted whole,
    // callctl's own flag names and words with it.
    files: ['src/**/*.ts'],
    ignores: ['src/sandbox/**', 'src/hooks/ui/client/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          // new UsageError(`...`), new UsageError('...' + x), new UsageError(c ? 'a' : `b`)
          `NewExpression[callee.name=/^(${CLI_ERRORS})$/] > ${PLAIN}.arguments:first-child`,
          `NewExpression[callee.name=/^(${CLI_ERRORS})$/] > ConditionalExpression.arguments:first-child > ${PLAIN}:matches(.consequent, .alternate)`,
          // out.warn(`...`), shown.line('...'): the output's and the progress renderer's messages
          `CallExpression[callee.property.name=/^(warn|info|success|line|warning|error)$/][callee.object.name!="console"] > ${PLAIN}.arguments:first-child`,
        ].map((selector) => ({
          selector,
          message:
            "write the message as said`...` (src/said.ts): a plain string is redacted whole, callctl's words with it",
        })),
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
