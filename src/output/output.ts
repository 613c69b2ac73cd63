import { Chalk, type ChalkInstance } from 'chalk';
import type { IO } from '../io.js';
import { useColor } from './color.js';

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

export interface OutputOptions {
  json: boolean;
  color: boolean;
}

/**
 * The three renderings of design.md: a table on a TTY, tab-separated lines with no colour and
 * no truncation when piped, JSON with `--json`. Data goes to stdout; messages to stderr.
 */
export class Output {
  readonly out: ChalkInstance;
  readonly err: ChalkInstance;

  constructor(
    readonly io: IO,
    readonly options: OutputOptions,
  ) {
    this.out = new Chalk({ level: useColor(io, 'stdout', options.color) ? 1 : 0 });
    this.err = new Chalk({ level: useColor(io, 'stderr', options.color) ? 1 : 0 });
  }

  get json(): boolean {
    return this.options.json;
  }

  /** Human rendering is a table when stdout is a terminal. */
  get tty(): boolean {
    return this.io.stdoutIsTTY && !this.options.json;
  }

  writeJson(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** A list: `--json` prints `json`; otherwise a table or TSV of `rows`. */
  async list<T>(rows: readonly T[], columns: readonly Column<T>[], json: unknown = rows): Promise<void> {
    if (this.options.json) return this.writeJson(json);
    if (!this.tty) {
      for (const row of rows) this.io.stdout.write(`${columns.map((c) => tsvCell(c.value(row))).join('\t')}\n`);
      return;
    }
    if (rows.length === 0) {
      this.info('(none)');
      return;
    }
    const { default: Table } = await import('cli-table3');
    const table = new Table({
      head: columns.map((c) => this.out.bold(c.header)),
      style: { head: [], border: [], compact: true },
      wordWrap: true,
    });
    for (const row of rows) table.push(columns.map((c) => cell(c.value(row))));
    this.io.stdout.write(`${table.toString()}\n`);
  }

  /** Key-value pairs of one resource: aligned on a TTY, `key<TAB>value` lines when piped. */
  record(pairs: ReadonlyArray<readonly [string, unknown]>, title?: string): void {
    if (!this.tty) {
      for (const [k, v] of pairs) this.io.stdout.write(`${k}\t${tsvCell(v)}\n`);
      return;
    }
    if (title) this.io.stdout.write(`${this.out.bold(title)}\n`);
    const width = Math.max(...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) this.io.stdout.write(`${this.out.dim(k.padEnd(width))}  ${cell(v)}\n`);
  }

  /** A heading between sections of human output (nothing when piped, to keep lines uniform). */
  heading(text: string): void {
    if (this.tty) this.io.stdout.write(`\n${this.out.bold(text)}\n`);
  }

  info(message: string): void {
    this.io.stderr.write(`${message}\n`);
  }

  success(message: string): void {
    this.io.stderr.write(`${this.err.green('✓')} ${message}\n`);
  }

  warn(message: string): void {
    this.io.stderr.write(`${this.err.yellow('warning:')} ${message}\n`);
  }
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A TSV cell: tabs and newlines would break the line structure, so they become spaces. */
export function tsvCell(value: unknown): string {
  return cell(value).replace(/[\t\r\n]+/g, ' ');
}
