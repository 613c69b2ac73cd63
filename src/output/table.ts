import { printable } from './printable.js';
import { UsageError } from '../errors.js';
import { said } from '../said.js';

/**
 * How a column may be shortened to fit the terminal: `text` (free text: names, descriptions) is
 * shortened first, widest first; `value` (statuses, labels, counts) only when the free text alone
 * cannot make the table fit; `id` never: identifiers, phone numbers and times, which mean nothing
 * once cut.
 */
export type ColumnKind = 'id' | 'text' | 'value';

/** One column of a list: its header (also the name `--columns` picks it by) and its cell. */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** Default `value`. */
  kind?: ColumnKind;
  /**
   * A column that may be left out when the table cannot fit otherwise, lowest first (a note on
   * stderr names it; `--wide` or `--columns` shows it).
   */
  hide?: number;
}

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A cell on one line: tabs and newlines would break the line structure, so they become spaces;
 * other control characters are shown as `\xNN` (see printable).
 */
export function tsvCell(value: unknown): string {
  return printable(cellText(value).replace(/[\t\r\n]+/g, ' '));
}

/** `TASK ID`, `task_id` and `task-id` name the same column. */
export function columnKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '-');
}

/**
 * The columns `--columns` asks for, in its order. A name that is in none of `columns` is a usage
 * error listing the valid names, unless it names a column of another table the same command
 * prints (`others`), in which case it is left for that table.
 */
export function pickColumns<T>(
  columns: readonly Column<T>[],
  names: readonly string[] | undefined,
  others: readonly string[] = [],
): Column<T>[] {
  if (!names) return [...columns];
  const byKey = new Map(columns.map((c) => [columnKey(c.header), c]));
  const elsewhere = new Set(others.map(columnKey));
  const picked: Column<T>[] = [];
  for (const name of names) {
    const column = byKey.get(columnKey(name));
    if (column) picked.push(column);
    else if (!elsewhere.has(columnKey(name))) {
      const valid = [...new Set([...columns.map((c) => c.header), ...others])].map((h) => columnKey(h));
      throw new UsageError(said`--columns: no column "${name}"; valid: ${valid.join(', ')}`, { valid });
    }
  }
  return picked;
}

/**
 * Width of `text` in terminal cells: East Asian wide and fullwidth characters and most emoji
 * take two, combining marks and zero-width characters none.
 */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += charWidth(ch.codePointAt(0)!);
  return width;
}

function charWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp < 0x300) return 1;
  // combining marks, zero-width space/joiners, variation selectors
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** `text` cut to at most `width` cells, ending with an ellipsis when something was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0)!);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/** Cells taken by the borders and padding of a bordered table of `n` columns: `│ a │ b │`. */
export function tableOverhead(n: number): number {
  return 3 * n + 1;
}

/** The narrowest a shortened column gets: its header, and room for a few characters and `…`. */
const MIN_CELL = 5;
/** Free text keeps this much before a hideable column is left out to make room. */
const COMFORT_TEXT = 12;

/** What fitting decided: the width of each column kept, and which were left out. */
export interface Fit {
  /** Content widths, one per column; 0 for a hidden one. */
  widths: number[];
  hidden: boolean[];
}

export interface FitColumn {
  /** Widest cell, header included. */
  natural: number;
  header: number;
  kind: ColumnKind;
  hide?: number;
}

/**
 * Widths so that a table of these columns fits `available` cells: free text is shortened first,
 * the widest first, down to a comfortable width; then hideable columns are left out, lowest
 * `hide` first; then free text and other values are shortened to their header's width. `id`
 * columns are never shortened: when even that is not enough the table stays wider than the
 * terminal (a wrapped line, not a cut identifier).
 */
export function fitColumns(columns: readonly FitColumn[], available: number): Fit {
  const hidden = columns.map(() => false);
  const order = columns
    .map((c, i) => ({ i, hide: c.hide }))
    .filter((c) => c.hide !== undefined)
    .sort((a, b) => a.hide! - b.hide!);
  for (;;) {
    const comfortable = shrink(columns, hidden, available, [['text', COMFORT_TEXT]]);
    if (comfortable.excess <= 0) return { widths: comfortable.widths, hidden };
    const next = order.shift();
    if (!next) break;
    hidden[next.i] = true;
  }
  return {
    widths: shrink(columns, hidden, available, [
      ['text', MIN_CELL],
      ['value', MIN_CELL],
    ]).widths,
    hidden,
  };
}

/** Shortens the widest column of each kind in turn, down to `floor` (or its header, if wider). */
function shrink(
  columns: readonly FitColumn[],
  hidden: readonly boolean[],
  available: number,
  steps: ReadonlyArray<readonly [ColumnKind, number]>,
): { widths: number[]; excess: number } {
  const widths = columns.map((c, i) => (hidden[i] ? 0 : c.natural));
  const shown = hidden.filter((h) => !h).length;
  let excess = widths.reduce((a, b) => a + b, 0) + tableOverhead(shown) - available;
  for (const [kind, min] of steps) {
    const floor = (i: number) => Math.min(columns[i]!.natural, Math.max(columns[i]!.header, min));
    const candidates = columns.map((_, i) => i).filter((i) => !hidden[i] && columns[i]!.kind === kind);
    while (excess > 0) {
      let widest = -1;
      for (const i of candidates) if (widths[i]! > floor(i) && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
      if (widest < 0) break;
      // Down to the next widest of its kind in one step (one cell at a time when they are level).
      let next = floor(widest);
      for (const i of candidates) if (i !== widest && widths[i]! <= widths[widest]!) next = Math.max(next, widths[i]!);
      const cut = Math.min(excess, Math.max(1, widths[widest]! - next));
      widths[widest] = widths[widest]! - cut;
      excess -= cut;
    }
  }
  return { widths, excess };
}

/** A table's header and rows as single-line text cells, shortened to fit unless `wide`. */
export interface TableLayout {
  headers: string[];
  rows: string[][];
  /** Content width of each column (without padding). */
  widths: number[];
  /** Headers of the columns left out to fit. */
  hidden: string[];
}

/**
 * Lays out a table for a terminal `available` cells wide (undefined: as wide as it takes).
 * `keepAll`: the columns were picked by name, so none is left out.
 */
export function layoutTable<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  available: number | undefined,
  keepAll = false,
): TableLayout {
  const headers = columns.map((c) => c.header);
  const cells = rows.map((row) => columns.map((c) => tsvCell(c.value(row))));
  const headerWidths = headers.map(displayWidth);
  const natural = headerWidths.map((w, i) => cells.reduce((max, r) => Math.max(max, displayWidth(r[i]!)), w));
  if (available === undefined) return { headers, rows: cells, widths: natural, hidden: [] };
  const fit = fitColumns(
    columns.map((c, i) => ({
      natural: natural[i]!,
      header: headerWidths[i]!,
      kind: c.kind ?? 'value',
      hide: keepAll ? undefined : c.hide,
    })),
    available,
  );
  const kept = columns.map((_, i) => i).filter((i) => !fit.hidden[i]);
  const cut = (text: string, i: number) => (fit.widths[i]! < natural[i]! ? truncate(text, fit.widths[i]!) : text);
  return {
    headers: kept.map((i) => cut(headers[i]!, i)),
    rows: cells.map((r) => kept.map((i) => cut(r[i]!, i))),
    widths: kept.map((i) => fit.widths[i]!),
    hidden: headers.filter((_, i) => fit.hidden[i]),
  };
}
