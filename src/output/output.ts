import type { IO } from '../io.js';
import { redact, redactValues } from '../redact.js';
import { paintersFor, type Paint } from './paint.js';
import { printable } from './printable.js';
import { cellText, layoutTable, pickColumns, tsvCell, type Column } from './table.js';
import { said, type Said } from '../said.js';

export { tsvCell, type Column } from './table.js';

export interface OutputOptions {
  json: boolean;
  color: boolean;
  /** `--wide`: tables show every cell in full, however wide. */
  wide?: boolean;
  /** `--columns a,b`: only these columns, in this order, by header name. */
  columns?: readonly string[];
  /** `--header`: a header line before tab-separated rows. */
  header?: boolean;
  /** What each message line on stderr starts with, by its kind (a time, or nothing: Context.stamp). */
  stamp?: (line: 'info' | 'warning') => string;
}

/** How one list is printed besides its rows and columns. */
export interface ListOptions {
  /** Printed with `--json` instead of the rows (default: the rows). */
  json?: unknown;
  /**
   * A title for a list that is one of several sections: bold above the table on a terminal, a
   * blank line before the rows when piped (so that sections stay apart for `awk`/`sed`).
   */
  section?: string;
  /**
   * The headers of the other tables this command prints, so that `--columns` may name any of
   * them; a table none of whose columns is asked for is left out.
   */
  others?: readonly string[];
}

/** Width of a terminal that does not say its own. */
const DEFAULT_COLUMNS = 80;

/**
 * The three renderings (README, "Output and exit codes"): a table on a TTY, tab-separated lines with no colour and
 * no truncation when piped, JSON with `--json`. Data goes to stdout; messages to stderr.
 */
export class Output {
  /** Styles for stdout and for stderr (plain where colour is off: src/output/color.ts). */
  readonly out: Paint;
  readonly err: Paint;

  private constructor(
    readonly io: IO,
    readonly options: OutputOptions,
    paint: { out: Paint; err: Paint },
  ) {
    this.out = paint.out;
    this.err = paint.err;
  }

  static async create(io: IO, options: OutputOptions): Promise<Output> {
    return new Output(io, options, await paintersFor(io, options.color));
  }

  get json(): boolean {
    return this.options.json;
  }

  /** Human rendering is a table when stdout is a terminal. */
  get tty(): boolean {
    return this.io.stdoutIsTTY && !this.options.json;
  }

  /** Data on stdout: the service's answers may echo a secret, so every known one is redacted. */
  private write(text: string): void {
    this.io.stdout.write(redactValues(text));
  }

  /** Lines on stdout as they are (what a user pipes on: `store migrate`'s GRANTs to psql). */
  text(text: string): void {
    this.write(text);
  }

  writeJson(value: unknown): void {
    this.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** JSON on one line (a run's summary that a cron job appends to a log, one record per run). */
  writeJsonLine(value: unknown): void {
    this.write(`${JSON.stringify(value)}\n`);
  }

  /**
   * A list: `--json` prints the rows (or `options.json`); otherwise a table that fits the
   * terminal (src/output/table.ts) or tab-separated lines, never shortened, when piped. Every
   * table of every command goes through here, so `--wide`, `--columns` and `--header` hold for all.
   */
  async list<T>(rows: readonly T[], allColumns: readonly Column<T>[], opts: ListOptions = {}): Promise<void> {
    if (this.options.json) return this.writeJson('json' in opts ? opts.json : rows);
    const columns = pickColumns(allColumns, this.options.columns, opts.others);
    if (columns.length === 0) return;
    if (opts.section !== undefined) this.heading(opts.section);
    if (!this.tty) {
      if (opts.section !== undefined) this.write('\n');
      if (this.options.header) this.write(`${columns.map((c) => tsvCell(c.header)).join('\t')}\n`);
      for (const row of rows) this.write(`${columns.map((c) => tsvCell(c.value(row))).join('\t')}\n`);
      return;
    }
    if (rows.length === 0) {
      this.info(said`(none)`);
      return;
    }
    const width = this.io.columns ?? DEFAULT_COLUMNS;
    const layout = layoutTable(
      rows,
      columns,
      this.options.wide ? undefined : width,
      this.options.columns !== undefined,
    );
    const { default: Table } = await import('cli-table3');
    const table = new Table({
      head: layout.headers.map((h) => this.out.bold(h)),
      style: { head: [], border: [], compact: true },
      colWidths: layout.widths.map((w) => w + 2),
      wordWrap: false,
    });
    for (const row of layout.rows) table.push(row);
    this.write(`${table.toString()}\n`);
    if (layout.hidden.length > 0)
      this.info(
        this.err.dim(`(${layout.hidden.join(', ')} left out to fit ${width} columns; --wide shows every column)`),
      );
  }

  /** Key-value pairs of one resource: aligned on a TTY, `key<TAB>value` lines when piped. */
  record(pairs: ReadonlyArray<readonly [string, unknown]>, title?: string): void {
    if (!this.tty) {
      for (const [k, v] of pairs) this.write(`${k}\t${tsvCell(v)}\n`);
      return;
    }
    if (title) this.write(`${this.out.bold(title)}\n`);
    const width = Math.max(...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) this.write(`${this.out.dim(k.padEnd(width))}  ${printable(cellText(v), true)}\n`);
  }

  /** A heading between sections of human output (nothing when piped, to keep lines uniform). */
  heading(text: string): void {
    if (this.tty) this.write(`\n${this.out.bold(text)}\n`);
  }

  // Messages on stderr may carry the service's or a file's words: every known secret in them is
  // redacted; a message built with `said` keeps callctl's own words as written (src/said.ts).
  info(message: string | Said): void {
    this.io.stderr.write(`${this.stamp('info')}${redact(message)}\n`);
  }

  success(message: string | Said): void {
    this.io.stderr.write(`${this.stamp('info')}${this.err.green('✓')} ${redact(message)}\n`);
  }

  warn(message: string | Said): void {
    this.io.stderr.write(`${this.stamp('warning')}${this.err.yellow('warning:')} ${redact(message)}\n`);
  }

  /** An error the run goes on after (a long-running command's: the inspector's, say). */
  error(message: string): void {
    this.io.stderr.write(`${this.stamp('warning')}${this.err.red('error:')} ${redact(message)}\n`);
  }

  private stamp(line: 'info' | 'warning'): string {
    return this.options.stamp?.(line) ?? '';
  }
}
