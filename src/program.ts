import { Command, Help, Option, type CommandUnknownOpts } from './commands/commander.js';
import { columnNames, makeDeps, type Deps, type RunState } from './commands/action.js';
import { TIMEOUT, timeoutSeconds } from './commands/flag-values.js';
import type { IO } from './io.js';
import { redact } from './redact.js';
import { named, Said, said } from './said.js';
import { VERSION } from './version.js';
import { COMMANDS, commandNamed, completion } from './commands/declarations.js';

const HELP_WIDTH = 80;

/**
 * The commander tree. Declaring commands costs little; each command's module (and its
 * dependencies: undici, zod, conf...) is imported only when that command runs.
 *
 * @param argv when given, and it names a top-level command, only that command is declared and
 *   only its declaration loaded (see commandNamed); without it, the whole tree (help pages,
 *   completion, tests).
 */
export async function buildProgram(
  io: IO,
  state: RunState,
  deps: Deps = makeDeps(io, state),
  argv?: readonly string[],
): Promise<Command> {
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
    // Every subcommand's page lists the global flags too (--json, -p, --timeout...), after its
    // own commands: a group's page starts with what it can do.
    .configureHelp({
      showGlobalOptions: true,
      formatHelp: (cmd, helper) => commandsFirst(Help.prototype.formatHelp.call(helper, cmd, helper)),
    })
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Help is laid out for 80 columns whatever the terminal, like git's and npm's: the same
      // text everywhere, so that the build can render it once (src/help/pages.ts).
      getOutHelpWidth: () => HELP_WIDTH,
      getErrHelpWidth: () => HELP_WIDTH,
      // One line per error: commander puts its suggestion on a line of its own.
      outputError: (s, write) =>
        write(redact(commanderMessage(program, s.replace(/\n\(Did you mean (.+)\?\)/, ' (did you mean $1?)')))),
    })
    .addHelpText(
      'after',
      `
Exit codes, for scripts and cron jobs:
  0  success (an empty list included)
  1  the service refused (unknown or cancelled workflow, invalid data), or what you
     named does not exist: fix what the error names; running again will not help
  2  usage: unknown flag, missing argument, bad flag value; or the same upload
     already running
  3  invalid input data (CSV rows, JSON files, variables): nothing was sent
  4  authentication: no token, token or credentials rejected (401/403), or a token
     that belongs to another base URL: log in
  5  may pass by itself (network, timeout, 429, 5xx after retries): run again later;
     also uncertain rows or batches (the answer was lost: they may have reached
     people): a run again sends the rest, never them
  6  local trouble: a config, journal or log file or folder cannot be read or written
  130 interrupted (Ctrl-C) or a prompt declined; a --watch or --follow ended by
      Ctrl-C exits 130 with no message

Start here:
  callctl sandbox                 # a local simulator of the service
  callctl auth login --base-url http://127.0.0.1:8780
  callctl robots`,
    );
  const only = argv === undefined ? undefined : commandNamed(argv);
  const declarations = only ? [COMMANDS[only]] : [...Object.values(COMMANDS), completion];
  // Loaded together, declared in this order (the order of the help page).
  for (const { register } of await Promise.all(declarations.map((load) => load()))) register(program, deps);
  return program;
}

/**
 * commander's error as callctl's words and what the user typed: its flags and commands, quoted or
 * suggested, are the program's own (shown as written, whatever a secret spells); everything else
 * is redacted as outside text, since it may hold what was typed (a value, a mistyped flag).
 */
function commanderMessage(program: CommandUnknownOpts, text: string): Said {
  const names = new Set<string>();
  const walk = (cmd: CommandUnknownOpts) => {
    names.add(cmd.name());
    for (const o of cmd.options) for (const n of [o.flags, o.long, o.short]) if (n) names.add(n);
    cmd.commands.forEach(walk);
  };
  walk(program);
  const pieces = text.split(/('[^'\n]*'|\(did you mean [^?\n]+\?\))/);
  return Said.join(
    pieces.map((piece, i) => {
      if (i % 2 === 0) return piece.startsWith('error: ') ? said`error: ${piece.slice(7)}` : piece;
      const quoted = /^'(.*)'$/.exec(piece)?.[1];
      if (quoted !== undefined) return names.has(quoted) ? said`'${named(quoted, names)}'` : piece;
      const suggested = /^\(did you mean (.+)\?\)$/.exec(piece)![1]!;
      return said`(did you mean ${named(suggested, names)}?)`;
    }),
    said``,
  );
}

/** A help page with its Commands section moved before its Options (commander puts it last). */
function commandsFirst(page: string): string {
  const end = /\n*$/.exec(page)![0];
  const blocks = page.slice(0, page.length - end.length).split('\n\n');
  const commands = blocks.findIndex((b) => b.startsWith('Commands:'));
  const options = blocks.findIndex((b) => b.startsWith('Options:') || b.startsWith('Global Options:'));
  if (commands < 0 || options < 0 || commands < options) return page;
  const [moved] = blocks.splice(commands, 1);
  blocks.splice(options, 0, moved!);
  return blocks.join('\n\n') + end;
}
