import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import type { Problem } from './problems.js';

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
export async function readCsv(path: string): Promise<CsvFile> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new InputError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const { parse } = await import('csv-parse/sync');
  let records: Array<{ record: string[]; info: { lines: number; empty_lines: number } }>;
  try {
    records = parse(bytes, { bom: true, info: true, skip_empty_lines: true, relax_column_count: true }) as unknown as typeof records;
  } catch (error) {
    const e = error as { message: string; lines?: number };
    throw new InputError(`${path}: not a valid CSV file: ${e.message}`);
  }
  const problems: Problem[] = [];
  const first = records[0];
  if (!first) throw new InputError(`${path} is empty: a header row and at least one row are expected`);
  const header = first.record.map((h) => h.trim());
  const seen = new Set<string>();
  for (const name of header) {
    if (!name) problems.push({ line: 1, message: 'a column has no name' });
    else if (seen.has(name)) problems.push({ line: 1, message: `column ${name} appears twice` });
    seen.add(name);
  }
  const rows: CsvRow[] = [];
  // csv-parse reports the line a record ends on; the next one starts after it and any empty lines.
  let prevEnd = first.info.lines;
  let prevEmpty = first.info.empty_lines;
  for (const { record, info } of records.slice(1)) {
    const line = prevEnd + 1 + (info.empty_lines - prevEmpty);
    prevEnd = info.lines;
    prevEmpty = info.empty_lines;
    const row = rows.length + 1;
    if (record.length !== header.length) {
      problems.push({ line, message: `${record.length} fields, but the header has ${header.length}` });
    }
    const fields: Record<string, string> = {};
    header.forEach((name, i) => (fields[name] = record[i] ?? ''));
    rows.push({ row, line, fields });
  }
  if (rows.length === 0) problems.push({ line: 2, message: 'no rows after the header' });
  return { path, sha256, header, rows, problems };
}
