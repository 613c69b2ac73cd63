/*
 * Where each top-level command is declared, loaded only when needed: src/program.ts declares the
 * one a command line names (or all of them), and src/main.ts starts loading it at once, while
 * the program's own module loads.
 */

/**
 * The declarations of the top-level commands, by name, each loaded when needed (a read command
 * loads its own, not the 13 others). Completion is not among them: it completes from the whole
 * tree, so `completion` and `__complete` declare every command.
 */
export const COMMANDS = {
  auth: () => import('./auth/index.js'),
  config: () => import('./config/index.js'),
  robots: () => import('./robots/list.js'),
  task: () => import('./task/index.js'),
  plan: () => import('./plan/index.js'),
  workflow: () => import('./workflow/index.js'),
  push: () => import('./push/push.js'),
  template: () => import('./template/index.js'),
  'serve-hooks': () => import('./serve-hooks/serve.js'),
  hooks: () => import('./hooks/index.js'),
  store: () => import('./store/index.js'),
  sandbox: () => import('./sandbox/run.js'),
  api: () => import('./api/run.js'),
};
export const completion = () => import('./completion/index.js');

/** The root's options that take a value (the next word is that value, not a command). */
const ROOT_VALUE_OPTIONS = new Set(['-p', '--profile', '--base-url', '--config-dir', '--timeout', '--columns']);

/**
 * The top-level command `argv` runs, when it surely names one: then only that command is
 * declared (its declaration is all commander needs to run it; declaring the whole tree was a
 * tenth of a read command's start-up). Anything else (help, an unknown word, clustered short
 * flags) gets the whole tree, for help and suggestions.
 */
export function commandNamed(argv: readonly string[]): keyof typeof COMMANDS | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return undefined;
    if (word.startsWith('-')) {
      if (!word.startsWith('--') && word.length > 2) return undefined; // -vp: which takes a value?
      if (ROOT_VALUE_OPTIONS.has(word)) i++;
      continue;
    }
    return Object.hasOwn(COMMANDS, word) ? (word as keyof typeof COMMANDS) : undefined;
  }
  return undefined;
}
