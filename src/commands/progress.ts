import type { IO } from '../io.js';
import { formatProblem, type Problem } from '../csv/problems.js';
import { plural } from '../plural.js';
import { said, type Said } from '../said.js';

const REDRAW_MS = 100;

export interface ProgressOptions {
  /** `--quiet`: errors only; progress lines, warnings and the status line are not shown. */
  quiet?: boolean;
  /** How a warning is shown on a terminal (the output's coloured `warning:`, which redacts it). */
  warn?: (message: string | Said) => void;
  /**
   * Removes secrets from a line before it is shown (the service's text may echo one); of a line
   * built with `said`, from what came from outside only (src/said.ts).
   */
  scrub?: (text: string | Said) => string;
}

/**
 * The one progress renderer of the commands that run over a file (workflow update, push --csv,
 * template send --csv), on stderr. On a terminal: a status line redrawn in place, and messages
 * printed above it. Without one (cron): no redrawing, and every line starts with its ISO-8601
 * time, so a log appended to night after night can be read back by night. `--quiet` keeps
 * errors only. What each line says is the command's own; this says how it is shown.
 */
export class Progress {
  readonly tty: boolean;
  private lastDraw = -Infinity;
  private drawn = false;
  private lastLine = -Infinity;

  constructor(
    private readonly io: IO,
    private readonly options: ProgressOptions = {},
  ) {
    this.tty = io.stderrIsTTY;
  }

  get quiet(): boolean {
    return this.options.quiet === true;
  }

  /** `2026-11-23T02:30:05.123Z ` without a terminal; nothing on one. */
  stamp(): string {
    return this.tty ? '' : `${new Date(this.io.now()).toISOString()} `;
  }

  /** A progress or information line (not with --quiet). */
  line(message: string | Said): void {
    if (this.quiet) return;
    this.write(message);
  }

  /** A warning (not with --quiet); on a terminal in the output's own style. */
  warning(message: string | Said): void {
    if (this.quiet) return;
    if (this.tty && this.options.warn) {
      this.clear();
      this.options.warn(message);
    } else this.write(said`warning: ${message}`);
  }

  /** A line that reports a failure: shown with --quiet too. */
  error(message: string | Said): void {
    this.write(message);
  }

  /**
   * Without a terminal: whether a routine line is due, at most one per `ms` (a line per row is
   * too many when rows go fast). `force` says it is due anyway (the first or the last).
   */
  due(ms: number, force = false): boolean {
    const now = this.io.now();
    if (!force && now - this.lastLine < ms) return false;
    this.lastLine = now;
    return true;
  }

  /** Redraws the terminal's status line (at most every 100 ms unless `force`); nothing without a terminal or with --quiet. */
  draw(text: string | Said, force = false): void {
    if (!this.tty || this.quiet) return;
    const now = this.io.now();
    if (!force && now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    const width = this.io.columns ? this.io.columns - 1 : 119;
    const shown = this.scrub(text);
    this.io.stderr.write(`\r\x1b[2K${shown.length > width ? shown.slice(0, width) : shown}`);
    this.drawn = true;
  }

  clear(): void {
    if (this.drawn) this.io.stderr.write('\r\x1b[2K');
    this.drawn = false;
  }

  /**
   * A capped list of problems, one a line (`  people.csv: line 7, column callee: ...`), then how
   * many more and `more` (where the rest are). Problems are errors: shown with --quiet too.
   */
  problems(problems: readonly Problem[], total: number, file?: string, more = ''): void {
    for (const p of problems) this.error(said`  ${file ? `${file}: ` : ''}${formatProblem(p)}`);
    const rest = total - problems.length;
    if (rest > 0) this.error(said`  ... and ${plural(rest, 'more problem')}${more}`);
  }

  private write(message: string | Said): void {
    this.clear();
    this.io.stderr.write(`${this.stamp()}${this.scrub(message)}\n`);
  }

  private scrub(text: string | Said): string {
    return this.options.scrub ? this.options.scrub(text) : String(text);
  }
}

/** 1234567 -> "1,234,567". */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** "12,345 rows/s". */
export function rate(rows: number, seconds: number): string {
  return seconds > 0 ? `${count(Math.round(rows / seconds))} rows/s` : '- rows/s';
}

/** "42s", "3m05s". */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '0s';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
}
