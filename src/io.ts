import type { Readable, Writable } from 'node:stream';
import { isatty } from 'node:tty';
import { ExitCode, outputErrorTold, stdoutFailed } from './errors.js';

/** Asks the person at the terminal. Every prompt writes to stderr, never stdout. */
export interface Prompter {
  /** A masked prompt: what is typed is never echoed. */
  password(message: string): Promise<string>;
  input(message: string, defaultValue?: string): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
}

/**
 * Everything a command reads from or writes to the outside world, so that a test can run a
 * command in-process and read what it printed (the GitHub CLI's IOStreams).
 */
export interface IO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Width of the terminal, when stdout is one. */
  columns?: number;
  env: Record<string, string | undefined>;
  prompter: Prompter;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Registers a handler for Ctrl-C / SIGTERM; returns a function that removes it. */
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  /** Registers a handler for SIGHUP (read the settings again); returns a function that removes it. */
  onHangup(handler: () => void): () => void;
  /**
   * While a handler is registered, a write error of stdout or stderr (a full disk, a closed pipe)
   * is handed to it instead of ending the process: a receiver goes on receiving when its own
   * output cannot be written. Returns a function that removes it.
   */
  onOutputError(handler: (error: NodeJS.ErrnoException, stream: 'stdout' | 'stderr') => void): () => void;
  cwd: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The real terminal of this process. The standard streams are created only when first used
 * (creating stdin alone costs a few milliseconds of start-up); TTY-ness is asked of the file
 * descriptors directly.
 */
export function nodeIO(): IO {
  const outputErrors = new Set<(error: NodeJS.ErrnoException, stream: 'stdout' | 'stderr') => void>();
  const quietOnEpipe = (stream: NodeJS.WriteStream, name: 'stdout' | 'stderr') => {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (outputErrors.size > 0) for (const handler of outputErrors) handler(error, name);
      // A reader that went away (`callctl robots | head -1`) ends the run quietly, as Unix tools do.
      else if (error.code === 'EPIPE') process.exit(0);
      else {
        // A full disk under `> file`: one line (and the JSON error with --json), local trouble,
        // not Node's stack trace. A stderr that fails has nowhere to say so.
        if (name === 'stdout' && !outputErrorTold(error)) {
          const { message } = stdoutFailed(error);
          const json = process.argv.includes('--json')
            ? `${JSON.stringify({ error: { kind: 'local', message, exitCode: ExitCode.LOCAL } })}\n`
            : '';
          process.stderr.write(`error: ${message}\n${json}`);
        }
        process.exit(ExitCode.LOCAL);
      }
    });
    return stream;
  };
  let stdout: NodeJS.WriteStream | undefined;
  let stderr: NodeJS.WriteStream | undefined;
  const prompter: Prompter = {
    async password(message) {
      const { password } = await import('@inquirer/prompts');
      return password({ message, mask: '*' }, { output: process.stderr });
    },
    async input(message, defaultValue) {
      const { input } = await import('@inquirer/prompts');
      return input({ message, default: defaultValue }, { output: process.stderr });
    },
    async confirm(message, defaultValue = false) {
      const { confirm } = await import('@inquirer/prompts');
      return confirm({ message, default: defaultValue }, { output: process.stderr });
    },
  };
  const terminal = isatty(1);
  return {
    get stdout() {
      return (stdout ??= quietOnEpipe(process.stdout, 'stdout'));
    },
    get stderr() {
      return (stderr ??= quietOnEpipe(process.stderr, 'stderr'));
    },
    get stdin() {
      return process.stdin;
    },
    // CALLCTL_FORCE_TTY renders as on a terminal when piped (for demos and captured samples),
    // like the GitHub CLI's GH_FORCE_TTY; it never enables prompts.
    stdoutIsTTY: terminal || forcedTTY(process.env.CALLCTL_FORCE_TTY),
    get columns() {
      return terminalColumns(process.env.COLUMNS, terminal ? process.stdout.columns : undefined);
    },
    stderrIsTTY: isatty(2),
    stdinIsTTY: isatty(0),
    env: process.env,
    prompter,
    now: () => Date.now(),
    sleep,
    onSignal(handler) {
      const onInt = () => handler('SIGINT');
      const onTerm = () => handler('SIGTERM');
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      return () => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
      };
    },
    onHangup(handler) {
      const on = () => handler();
      process.on('SIGHUP', on);
      return () => process.off('SIGHUP', on);
    },
    onOutputError(handler) {
      outputErrors.add(handler);
      return () => outputErrors.delete(handler);
    },
    cwd: process.cwd(),
  };
}

export function forcedTTY(value: string | undefined): boolean {
  return value !== undefined && !['', '0', 'false'].includes(value.trim().toLowerCase());
}

/**
 * The width tables fit: COLUMNS when it is a positive whole number (as less, ls and Python read
 * it: it wins over the terminal's own), else the terminal's, else undefined (80 is assumed). The
 * width never comes from CALLCTL_FORCE_TTY, which only says "render as on a terminal".
 */
export function terminalColumns(columnsEnv: string | undefined, terminal: number | undefined): number | undefined {
  const fromEnv = /^\s*\d+\s*$/.test(columnsEnv ?? '') ? Number(columnsEnv) : 0;
  return fromEnv > 0 ? fromEnv : terminal || undefined;
}
