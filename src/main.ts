import { CliError, ExitCode, InputError, UsageError, localTrouble } from './errors.js';
import { redact } from './redact.js';
import { said, type Said } from './said.js';
import type { IO } from './io.js';
import type { RunState } from './commands/action.js';
import { helpPageKey, readHelpPage } from './help/request.js';
import type { ErrorJson } from './schemas/local-output.js';
import { COMMANDS, commandNamed } from './commands/declarations.js';

export { nodeIO } from './io.js';

/**
 * The pages the build rendered (dist/help.json): the build puts this module in a chunk
 * (dist/chunks/), one folder below; the sources have none (commander renders every page).
 */
const HELP_FILES = [new URL('../help.json', import.meta.url), new URL('./help.json', import.meta.url)];

/**
 * Runs callctl with `argv` (without node and the script) and returns the exit code. Every error
 * becomes one line on stderr (and `{"error": {...}}` with `--json`); only an unexpected error
 * (a bug) adds its stack trace, with `--verbose`.
 */
export async function main(argv: string[], io: IO): Promise<number> {
  const state: RunState = { exitCode: ExitCode.OK };
  const wantsJson = argv.includes('--json');
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  try {
    // The one answer that needs no command tree.
    if (argv.length === 1 && argv[0] === '--version') {
      const { VERSION } = await import('./version.js');
      io.stdout.write(`${VERSION}\n`);
      return ExitCode.OK;
    }
    // Help comes from the pages the build rendered, without the command tree (commander renders
    // it when there is no such page).
    const key = argv.length === 0 ? '' : helpPageKey(argv);
    const page =
      key === undefined ? undefined : HELP_FILES.map((f) => readHelpPage(f, key)).find((p) => p !== undefined);
    if (page !== undefined) {
      if (argv.length === 0) {
        io.stderr.write(page);
        return ExitCode.USAGE;
      }
      io.stdout.write(page);
      return ExitCode.OK;
    }
    // The named command's declaration loads beside the program (declarations.ts), not after it.
    const named = commandNamed(argv);
    if (named) COMMANDS[named]().catch(() => undefined);
    const { buildProgram } = await import('./program.js');
    const program = await buildProgram(io, state, undefined, argv);
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return ExitCode.USAGE;
    }
    // `help a b`: the page of `a b` (commander's own help command takes one name, and shows the
    // program's page for a name it does not know).
    if (argv[0] === 'help' && argv.length > 1) {
      const { helpFor } = await import('./help/request.js');
      helpFor(program, argv.slice(1)).outputHelp();
      return ExitCode.OK;
    }
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (error) {
    return report(io, error, { wantsJson, verbose, stamp: state.ctx?.stamp() ?? '' });
  } finally {
    await state.ctx?.close().catch(() => undefined);
  }
}

interface ReportOptions {
  wantsJson: boolean;
  verbose: boolean;
  /** What the error line starts with: an ISO-8601 time (Context.stamp), or nothing. */
  stamp: string;
}

function report(io: IO, thrown: unknown, options: ReportOptions): number {
  // A file-system call that failed (a folder that cannot be written, a full disk) is local
  // trouble (exit 6), whichever module it came from; not a service error.
  const error = localTrouble(thrown);
  const e = error as { code?: string; exitCode?: number; name?: string; message?: string };
  // commander has already printed its own one-line message for these.
  if (typeof e?.code === 'string' && e.code.startsWith('commander.')) {
    if (e.exitCode === 0) return ExitCode.OK; // --help, --version, `help <command>`
    if (options.wantsJson) writeJsonError(io, { kind: 'usage', exitCode: ExitCode.USAGE }, clean(e.message ?? ''));
    return ExitCode.USAGE;
  }
  // @inquirer/prompts throws this on Ctrl-C at a prompt.
  if (e?.name === 'ExitPromptError' || e?.name === 'AbortPromptError') {
    io.stderr.write('cancelled\n');
    return ExitCode.INTERRUPTED;
  }
  // Every secret of the run, in each form, with secret JSON keys and URL passwords (src/redact.ts);
  // of a CliError's message, only what came from outside (src/said.ts).
  const scrub = (text: string | Said) => redact(text);
  // A usage error is how the command was typed, found before anything was done: the same plain
  // line in every command, as commander's own (only a cron command's other errors are timed).
  const stamp = error instanceof UsageError ? '' : options.stamp;
  if (error instanceof CliError) {
    const message = scrub(withHint(error));
    if (error instanceof InputError) for (const line of error.listed) io.stderr.write(`${stamp}${scrub(line)}\n`);
    // An expected error is its line and nothing else, --verbose or not: -v means the HTTP
    // exchanges; a stack trace is for a bug (below), where it helps whoever reports it.
    io.stderr.write(`${stamp}error: ${message}\n`);
    if (options.wantsJson)
      writeJsonError(io, { kind: error.kind, exitCode: error.exitCode, ...error.details }, message);
    return error.exitCode;
  }
  const message = scrub(e?.message ?? String(error));
  io.stderr.write(`${stamp}error: ${message}${options.verbose ? '' : ' (run with --verbose for details)'}\n`);
  if (options.verbose && (error as Error)?.stack) io.stderr.write(`${scrub((error as Error).stack!)}\n`);
  if (options.wantsJson) writeJsonError(io, { kind: 'internal', exitCode: ExitCode.SERVICE }, message);
  return ExitCode.SERVICE;
}

/**
 * What a cron job (or its operator) does next, told by the exit code: 5 may pass by itself, so
 * run again; 1 is a refusal that recurs until what the service names is fixed. An outcome that
 * may have reached someone says so itself and gets no "run again".
 */
export function withHint(error: CliError): Said {
  const m = error.message;
  if (
    error.exitCode === ExitCode.NETWORK &&
    error.details.mayHaveBeenSent !== true &&
    !/run (the same command )?again/.test(m)
  ) {
    return said`${error}; this may pass by itself: run again later`;
  }
  if (
    error.exitCode === ExitCode.SERVICE &&
    error.kind === 'service' &&
    !/will not help|run again|until (this|that|it) is fixed/.test(m)
  ) {
    return said`${error}; the service refused: running again will not help until that is fixed`;
  }
  return error.said;
}

function clean(message: string): string {
  return message.replace(/^error: /, '');
}

/**
 * `{"error": {...}}` on stderr: the message as the error line shows it (redacted already), and the
 * rest redacted as serialised (a secret JSON-escaped in `details` is caught too).
 */
function writeJsonError(io: IO, error: JsonErrorRest, message: string): void {
  const { kind, ...rest } = JSON.parse(redact(JSON.stringify(error))) as JsonErrorRest;
  io.stderr.write(`${JSON.stringify({ error: { kind, message, ...rest } } satisfies ErrorJson)}\n`);
}

/** The `--json` error object but its message. */
type JsonErrorRest = { kind: ErrorJson['error']['kind']; exitCode: number } & Record<string, unknown>;
