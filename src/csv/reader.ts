import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Parser } from 'csv-parse';
import { InputError } from '../errors.js';
import { said } from '../said.js';

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
  /** Read only the bytes from `start` (a record's first byte) up to `end` (exclusive). */
  start?: number;
  end?: number;
  /** The line `start` is on (1 by default). */
  firstLine?: number;
  /** The record delimiter, when it is known (csv-parse finds it otherwise). */
  recordDelimiter?: string;
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
  let next = options.firstLine ?? 1;
  const parser = new Parser({
    bom: true,
    delimiter: options.delimiter,
    ...(options.recordDelimiter ? { record_delimiter: options.recordDelimiter } : {}),
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
  const file = createReadStream(path, {
    highWaterMark: PARSE_CHUNK_BYTES,
    start: options.start,
    ...(options.end !== undefined ? { end: options.end - 1 } : {}),
  });
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
