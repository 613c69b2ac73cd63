import type { Writable } from 'node:stream';
import { CliError, ExitCode } from '../errors.js';
import type { IO } from '../io.js';
import { Output, type OutputOptions } from './output.js';

/** A final state that ends `--exit-status`: finished exits 0, canceled 1. */
export type FinalState = 'finished' | 'canceled';

/** What a command watches: how to fetch it, and the two ways to show it. */
export interface WatchSpec<T> {
  /** The command line shown above the screen, such as `callctl plan status PLAN-B`. */
  title: string;
  fetch(): Promise<T>;
  /** The screen on a terminal, printed through a capturing Output (tables fit as everywhere). */
  screen(value: T, out: Output): Promise<void> | void;
  /**
   * Lines for when stdout is not a terminal (one for a plan, one per row of a list): each is
   * printed, timestamped, when it was not among the previous poll's lines.
   */
  lines(value: T): string[];
  /** The value as JSON (`--json`: one document per line, each time it changes). */
  json(value: T): unknown;
  /** A final state ends the watch with `--exit-status`. */
  final?(value: T): FinalState | undefined;
}

export interface WatchOptions {
  /** Seconds between polls. */
  interval: number;
  exitStatus: boolean;
  output: OutputOptions;
}

/** The longest wait between polls while the service keeps failing (back-off doubles up to it). */
const MAX_BACKOFF_MS = 60_000;

const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';
const CLEAR_LINE = '\u001b[K';
const CLEAR_BELOW = '\u001b[J';
const up = (n: number) => (n > 0 ? `\u001b[${n}A` : '');

/**
 * Polls every `interval` seconds until Ctrl-C (exit 130) or, with `--exit-status`, a final state
 * (exit 0 finished, 1 canceled). On a terminal the screen is redrawn in place; otherwise a
 * timestamped line is printed only when it changed (`--json`: a JSON document). A failure that may
 * pass by itself (exit 5: network, timeout, 5xx) is shown and retried with a doubling wait; any
 * other failure (refused, usage, authentication) ends the watch with its own exit code.
 */
export async function watch<T>(io: IO, spec: WatchSpec<T>, options: WatchOptions): Promise<number> {
  const tty = io.stdoutIsTTY && !options.output.json;
  const intervalMs = Math.round(options.interval * 1000);
  let stop: (() => void) | undefined;
  const stopped = new Promise<'stopped'>((resolve) => (stop = () => resolve('stopped')));
  let interrupted = false;
  const removeSignal = io.onSignal(() => {
    interrupted = true;
    stop?.();
  });
  let shownLines = 0;
  let lastLines = new Set<string>();
  let lastJson: string | undefined;
  let lastValue: T | undefined;
  let failures = 0;
  try {
    if (tty) io.stdout.write(HIDE_CURSOR);
    for (;;) {
      let value: T | undefined;
      let problem: CliError | undefined;
      try {
        const result = await Promise.race([spec.fetch(), stopped]);
        if (result === 'stopped') break;
        value = lastValue = result;
        failures = 0;
      } catch (error) {
        if (!(error instanceof CliError) || error.exitCode !== ExitCode.NETWORK) throw error;
        problem = error;
        failures++;
      }
      const waitMs =
        failures === 0 ? intervalMs : Math.min(Math.max(intervalMs, MAX_BACKOFF_MS), intervalMs * 2 ** failures);
      const now = new Date(io.now()).toISOString().replace(/\.\d+Z$/, 'Z');
      if (tty) {
        // A failed poll keeps the last screen, with the error under it.
        const frame = await renderFrame(io, spec, options, lastValue, problem, now, waitMs);
        io.stdout.write(`${up(shownLines)}\r${frame.text}${CLEAR_BELOW}`);
        shownLines = frame.lines;
      } else if (problem) {
        io.stderr.write(`${now} error: ${problem.message} (trying again in ${Math.round(waitMs / 1000)} s)\n`);
      } else if (options.output.json) {
        const json = JSON.stringify(spec.json(value!));
        if (json !== lastJson) io.stdout.write(`${json}\n`);
        lastJson = json;
      } else {
        const lines = spec.lines(value!);
        for (const line of lines) if (!lastLines.has(line)) io.stdout.write(`${now}\t${line}\n`);
        lastLines = new Set(lines);
      }
      const final = value !== undefined ? spec.final?.(value) : undefined;
      if (final && options.exitStatus) return final === 'finished' ? ExitCode.OK : ExitCode.SERVICE;
      if ((await Promise.race([io.sleep(waitMs), stopped])) === 'stopped') break;
    }
  } finally {
    removeSignal();
    if (tty) io.stdout.write(SHOW_CURSOR);
  }
  // Ctrl-C is how a watch ends: 130, as for any interrupted command, but nothing to report.
  return interrupted ? ExitCode.INTERRUPTED : ExitCode.OK;
}

/** The screen: a title line with the time, what the command shows, and the last error if any. */
async function renderFrame<T>(
  io: IO,
  spec: WatchSpec<T>,
  options: WatchOptions,
  value: T | undefined,
  problem: CliError | undefined,
  now: string,
  waitMs: number,
) {
  let text = '';
  const capture = { write: (chunk: string | Buffer) => ((text += chunk.toString()), true) } as unknown as Writable;
  const screenIO = {
    stdout: capture,
    stderr: capture,
    stdoutIsTTY: true,
    stderrIsTTY: io.stderrIsTTY,
    columns: io.columns,
    env: io.env,
  } as IO;
  const out = await Output.create(screenIO, options.output);
  text += `${out.out.dim(`Every ${options.interval} s: ${spec.title}`)}  ${out.out.dim(now)}\n\n`;
  if (value !== undefined) await spec.screen(value, out);
  if (problem)
    text += `${out.out.yellow('error:')} ${problem.message} (trying again in ${Math.round(waitMs / 1000)} s)\n`;
  else text += `${out.out.dim('Ctrl-C to stop')}\n`;
  const lines = text.split('\n');
  // Each line clears what the previous screen left to its right.
  return {
    text: lines.map((l, i) => (i < lines.length - 1 ? `${l}${CLEAR_LINE}` : l)).join('\n'),
    lines: lines.length - 1,
  };
}

/** A status read leniently: the spec's `canceled`, and `cancelled` as workflows spell it. */
export function finalState(status: string | null | undefined): FinalState | undefined {
  if (status === 'finished') return 'finished';
  if (status === 'canceled' || status === 'cancelled') return 'canceled';
  return undefined;
}
