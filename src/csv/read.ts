import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, statSync, type Stats } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Parser } from 'csv-parse';
import { fsReason, InputError, LocalError } from '../errors.js';
import type { Problem } from './problems.js';
import { plural } from '../plural.js';
import { said } from '../said.js';

// The one CSV reader: the input file's checks (a regular file, UTF-8), the streamed records
// (csv-parse), and a whole small file as rows under its header (push and template --csv).

/**
 * An input CSV, checked before it is opened: one that cannot be read is local trouble (exit 6,
 * README's table), and one that is not a regular file (a FIFO, a device, `<(...)`) is refused at
 * once: reading it would wait for a writer that may never come, and it is read twice.
 */
export function inputFile(path: string, display = path): Stats {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LocalError(said`cannot read ${display}: ${fsReason(code)}`, { path, ...(code ? { code } : {}) });
  }
  if (!stats.isFile())
    throw new LocalError(said`cannot read ${display}: not a regular file (a pipe or device: save it to a file first)`, {
      path,
    });
  return stats;
}

/**
 * Input CSV files are UTF-8 (with or without BOM). One that is not is nearly always a
 * spreadsheet's export in the machine's code page (Excel's "CSV" on Windows is Windows-1252) or
 * UTF-16 ("Unicode text"): refused before any row is read, naming where and how to convert it,
 * never decoded with replacement characters (a name would reach the service as "Jos�").
 */

/** Where the first byte that is not UTF-8 is: its line, its byte in that line and in the file (1-based), its value. */
export interface BadByte {
  line: number;
  lineByte: number;
  byte: number;
  value?: number;
}

/** The length of `data` without a trailing, incomplete UTF-8 sequence. */
export function completeLength(data: Buffer): number {
  for (let back = 1; back <= Math.min(3, data.length); back++) {
    const b = data[data.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? data.length - back : data.length;
  }
  return data.length;
}

/** The length of the UTF-8 sequence a lead byte begins, or 0 when no sequence begins with it. */
function sequenceLength(b: number): number {
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/** Offset of the first byte of `data` that does not begin a valid UTF-8 sequence (`data.length` when none). */
export function firstInvalidUtf8(data: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // Halve the range while its first part decodes (only runs when the data is not UTF-8), then
  // step through the few sequences left: the bisection stops up to a sequence short of the byte.
  let lo = 0;
  let hi = data.length;
  while (hi - lo > 8) {
    const mid = completeLength(data.subarray(0, (lo + hi) >>> 1));
    if (mid <= lo) break;
    if (isUtf8(data.subarray(0, mid))) lo = mid;
    else hi = mid;
  }
  for (let at = lo; at < data.length;) {
    const need = sequenceLength(data[at]!);
    if (need === 0) return at;
    try {
      decoder.decode(data.subarray(at, at + need));
    } catch {
      return at;
    }
    at += need;
  }
  return data.length;
}

/** Where `offset` is in `bytes`, a whole file or its first part. */
export function badByteAt(bytes: Buffer, offset: number): BadByte {
  let line = 1;
  for (let i = bytes.indexOf(10); i !== -1 && i < offset; i = bytes.indexOf(10, i + 1)) line++;
  const lineStart = bytes.lastIndexOf(10, offset - 1) + 1;
  return { line, lineByte: offset - lineStart + 1, byte: offset + 1, value: bytes[offset] };
}

const shell = (name: string) => (/^[\w@%+=:,./-]+$/.test(name) ? name : `'${name.replace(/'/g, `'\\''`)}'`);

/** The error of a file that is not UTF-8: where, which byte, and how to convert it. */
export function notUtf8Error(display: string, at: BadByte): InputError {
  const hex = at.value === undefined ? '' : ` (0x${at.value.toString(16).toUpperCase().padStart(2, '0')})`;
  const converted = display.replace(/(\.[^./]*)?$/, (ext) => `-utf8${ext || '.csv'}`);
  return new InputError(
    said`${display}: line ${at.line}, byte ${at.lineByte} (byte ${at.byte} of the file): not valid UTF-8${hex}; the file is in another encoding (Windows-1252 if Excel saved it as "CSV"): save it as "CSV UTF-8", or convert it: iconv -f windows-1252 -t utf-8 ${shell(display)} > ${shell(converted)}`,
    { line: at.line, lineByte: at.lineByte, byte: at.byte },
  );
}

/** The error of a file holding NUL bytes (`offset`, in `bytes`, the first): UTF-16, most likely. */
export function utf16Error(display: string, bytes: Buffer, offset: number): InputError {
  return new InputError(
    said`${display}: line ${badByteAt(bytes, offset).line}: the file holds NUL bytes; is it UTF-16? Save it as UTF-8`,
  );
}

/**
 * Throws the error of a whole file's bytes that are not UTF-8 text. UTF-16 is told by its start (a
 * byte order mark, or a NUL in the first character); a NUL further on is a control character in a
 * field, which the row's checks name with its line and column.
 */
export function checkUtf8(bytes: Buffer, display: string): void {
  const bom16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (bom16 || (bytes.length >= 2 && (bytes[0] === 0 || bytes[1] === 0))) throw utf16Error(display, bytes, 0);
  if (!isUtf8(bytes)) throw notUtf8Error(display, badByteAt(bytes, firstInvalidUtf8(bytes)));
}

/**
 * Read size of the parsing pass. Smaller than the hashing pass's: each chunk lives while its rows
 * are parsed, long enough to reach V8's old generation, where its memory waits for a full
 * collection; 64 KiB chunks keep that garbage (and the peak RSS) small at the same speed.
 */
const PARSE_CHUNK_BYTES = 1 << 16;

/** A row longer than this is an error (most likely an unclosed quote swallowing the file). */
export const MAX_ROW_CHARS = 1 << 20;

export interface ReadOptions {
  delimiter: string;
  signal?: AbortSignal;
  /**
   * Called for each record, in order, with the line of the file it starts on. Blank lines are
   * skipped (their lines still count). Runs synchronously inside the parser: no row is buffered.
   */
  onRecord(fields: string[], line: number): void;
  /** Bytes of the file read so far (per chunk). */
  onBytes?(bytes: number): void;
}

/**
 * Streams a CSV file through csv-parse: BOM, quoted fields with delimiters and line breaks, CRLF,
 * any one-character delimiter. Never holds more than a chunk of the file.
 *
 * Line numbers are counted here, not taken from csv-parse: its `info.lines` counts a CRLF inside
 * a quoted field twice, and `info: true` halves its speed. A record starts on the line after the
 * previous record's last line, and spans as many lines as it has line breaks inside its fields.
 */
export async function readRecords(path: string, display: string, options: ReadOptions): Promise<{ lines: number }> {
  // The line the next record starts on.
  let next = 1;
  const parser = new Parser({
    bom: true,
    delimiter: options.delimiter,
    relax_column_count: true,
    max_record_size: MAX_ROW_CHARS,
  });
  let failed = false;
  parser.on('data', (fields: string[]) => {
    if (failed) return;
    const line = next;
    let breaks = 0;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      if (f.indexOf('\n') !== -1 || f.indexOf('\r') !== -1) breaks += lineBreaks(f);
    }
    next = line + 1 + breaks;
    if (fields.length === 1 && fields[0] === '') return; // a blank line
    try {
      options.onRecord(fields, line);
    } catch (error) {
      failed = true;
      parser.destroy(error as Error);
    }
  });
  let bytes = 0;
  const file = createReadStream(path, { highWaterMark: PARSE_CHUNK_BYTES });
  if (options.onBytes) {
    file.on('data', (chunk) => {
      bytes += chunk.length;
      options.onBytes!(bytes);
    });
  }
  try {
    await pipeline(file, parser, { signal: options.signal });
  } catch (error) {
    throw csvError(error, display, next);
  }
  return { lines: next - 1 };
}

/** Line breaks in a field: CRLF, LF or CR each count once. */
function lineBreaks(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 10) n++;
    else if (c === 13) {
      n++;
      if (s.charCodeAt(i + 1) === 10) i++;
    }
  }
  return n;
}

/** csv-parse's errors, as one line naming the line the broken row starts on. */
function csvError(error: unknown, display: string, line: number): unknown {
  const e = error as { code?: string; message?: string; name?: string };
  if (
    e?.name === 'AbortError' ||
    error instanceof InputError ||
    typeof e?.code !== 'string' ||
    (!e.code.startsWith('CSV_') && e.code !== 'INVALID_OPENING_QUOTE')
  ) {
    return error;
  }
  const why: Record<string, string> = {
    CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed (a missing ")',
    CSV_INVALID_CLOSING_QUOTE:
      'a closing quote is followed by other characters (write a quote inside a quoted field as "")',
    INVALID_OPENING_QUOTE: 'a quote inside an unquoted field (quote the whole field and write the quote as "")',
    CSV_MAX_RECORD_SIZE: `a row longer than ${MAX_ROW_CHARS} characters (an unclosed quote?)`,
  };
  const message = why[e.code] ?? (e.message ?? String(error)).replace(/ (at|on) line \d+/g, '');
  return new InputError(said`${display}: line ${line}: ${message}`, { line });
}

/** One data row of a CSV file: its 1-based number among the rows, and the line it starts on. */
export interface CsvRow {
  row: number;
  line: number;
  fields: Record<string, string>;
}

export interface CsvFile {
  path: string;
  /** SHA-256 of the file's bytes: the journal's key, so an edited file is a new batch. */
  sha256: string;
  header: string[];
  rows: CsvRow[];
  problems: Problem[];
}

/**
 * Reads a CSV file with a header row (UTF-8, with or without BOM; quoted fields may hold commas
 * and newlines). Rows with the wrong number of fields become problems, with their line numbers.
 */
export async function readCsv(path: string, delimiter = ','): Promise<CsvFile> {
  inputFile(path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LocalError(said`cannot read ${path}: ${fsReason(code)}`, { path, ...(code ? { code } : {}) });
  }
  checkUtf8(bytes, path);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // Read as workflow update reads: line numbers count a CRLF inside a quoted field once, and
  // blank lines still count.
  const records: Array<{ record: string[]; line: number }> = [];
  await readRecords(path, path, { delimiter, onRecord: (record, line) => void records.push({ record, line }) });
  const problems: Problem[] = [];
  const first = records[0];
  if (!first) throw new InputError(said`${path} is empty: a header row and at least one row are expected`);
  const header = first.record.map((h) => h.trim());
  const seen = new Set<string>();
  for (const name of header) {
    if (!name) problems.push({ line: first.line, message: 'a column has no name' });
    else if (seen.has(name)) problems.push({ line: first.line, message: `column ${name} appears twice` });
    seen.add(name);
  }
  const rows: CsvRow[] = [];
  for (const { record, line } of records.slice(1)) {
    const row = rows.length + 1;
    if (record.length !== header.length) {
      problems.push({ line, message: `${plural(record.length, 'field')}, but the header has ${header.length}` });
    }
    const fields: Record<string, string> = {};
    header.forEach((name, i) => (fields[name] = record[i] ?? ''));
    rows.push({ row, line, fields });
  }
  if (rows.length === 0) problems.push({ line: first.line + 1, message: 'no rows after the header' });
  return { path, sha256, header, rows, problems };
}
