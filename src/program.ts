import { Command, Option } from './commands/commander.js';
import { columnNames, makeDeps, type Deps, type RunState } from './commands/action.js';
import { TIMEOUT, timeoutSeconds } from './commands/flag-values.js';
import type { IO } from './io.js';
import { redact } from './redact.js';
import { VERSION } from './version.js';
import { register as auth } from './commands/auth/index.js';
import { register as config } from './commands/config/index.js';
import { register as robots } from './commands/robots/index.js';
import { register as task } from './commands/task/index.js';
import { register as plan } from './commands/plan/index.js';
import { register as workflow } from './commands/workflow/index.js';
import { register as push } from './commands/push/index.js';
import { register as template } from './commands/template/index.js';
import { register as serveHooks } from './commands/serve-hooks/index.js';
import { register as hooks } from './commands/hooks/index.js';
import { register as store } from './commands/store/index.js';
import { register as sandbox } from './commands/sandbox/index.js';
import { register as completion } from './commands/completion/index.js';
import { register as api } from './commands/api/index.js';

const HELP_WIDTH = 80;

/**
 * The commander tree. Declaring commands costs little; each command's module (and its
 * dependencies: undici, zod, conf...) is imported only when that command runs.
 */
/**
 * @param argv when given, and it names a top-level command, only that command is declared
 *   (see commandNamed); without it, the whole tree (help pages, completion, tests).
 */
export function buildProgram(
  io: IO,
  state: RunState,
  deps: Deps = makeDeps(io, state),
  argv?: readonly string[],
): Command {
  const program = new Command('callctl')
    .description(
      'Drive robot outbound-calling campaigns: robots, tasks, plans, workflows, contact uploads, call pushes, template messages and webhook notifications.',
    )
    .version(VERSION, '--version', 'print the version')
    .option('-p, --profile <name>', 'profile to use (env CALLCTL_PROFILE)', undefined)
    .option('--base-url <url>', "the service's base URL (env CALLCTL_BASE_URL)")
    .option('--config-dir <dir>', 'config folder (env CALLCTL_CONFIG_DIR)')
    .option('--json', 'print JSON only on stdout')
    .option(
      '--no-color',
      'no colour, whatever the environment says (NO_COLOR, FORCE_COLOR=0, CLICOLOR=0, TERM=dumb also turn it off)',
    )
    .option('-v, --verbose', 'show each HTTP exchange on stderr, secrets redacted')
    .addOption(
      new Option('--timeout <seconds>', `request timeout in seconds, ${TIMEOUT.min} to ${TIMEOUT.max}`)
        .default(TIMEOUT.default)
        .argParser(timeoutSeconds),
    )
    .option('--no-input', 'never prompt; a missing value is a usage error')
    .option('--wide', 'tables show every cell in full, however wide the terminal')
    .addOption(
      new Option('--columns <names>', 'only these table columns, by header name (e.g. id,name)').argParser(columnNames),
    )
    .option('--header', 'a header line before tab-separated (piped) rows')
    .showSuggestionAfterError(true)
    // Every subcommand's page lists the global flags too (--json, -p, --timeout...).
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Help is laid out for 80 columns whatever the terminal, like git's and npm's: the same
      // text everywhere, so that the build can render it once (src/help/pages.ts).
      getOutHelpWidth: () => HELP_WIDTH,
      getErrHelpWidth: () => HELP_WIDTH,
      // One line per error: commander puts its suggestion on a line of its own.
      outputError: (s, write) => write(redact(s).replace(/\n\(Did you mean (.+)\?\)/, ' (did you mean $1?)')),
    })
    .addHelpText(
      'after',
      `
Exit codes, for scripts and cron jobs:
  0  success (an empty list included)
  1  the service refused (unknown or cancelled workflow, invalid data): fix what the
     error names; running again will not help
  2  usage: unknown flag, missing argument, bad flag value; or the same upload
     already running
  3  invalid input data (CSV rows, JSON files, variables): nothing was sent
  4  authentication: no token, token or credentials rejected (401/403), or a token
     that belongs to another base URL: log in
  5  may pass by itself (network, timeout, 429, 5xx after retries): run again later
  6  local trouble: a config, journal or log file or folder cannot be read or written
  130 interrupted (Ctrl-C) or a prompt declined

Start here:
  callctl sandbox                 # a local simulator of the service
  callctl auth login --base-url http://127.0.0.1:8780
  callctl robots`,
    );
  const only = argv === undefined ? undefined : commandNamed(argv);
  for (const register of only ? [COMMANDS[only]] : [...Object.values(COMMANDS), completion]) register(program, deps);
  return program;
}

/**
 * The top-level commands, by name. Completion is not among them: it completes from the whole
 * tree, so `completion` and `__complete` declare every command.
 */
const COMMANDS = {
  auth,
  config,
  robots,
  task,
  plan,
  workflow,
  push,
  template,
  'serve-hooks': serveHooks,
  hooks,
  store,
  sandbox,
  api,
};

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
