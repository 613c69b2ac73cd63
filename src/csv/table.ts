import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fsReason, InputError, LocalError } from '../errors.js';
import { inputFile } from './input-file.js';
import type { Problem } from './problems.js';
import { readRecords } from './reader.js';
import { checkUtf8 } from './utf8.js';
import { plural } from '../plural.js';
import { said } from '../said.js';

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
  // The one CSV reader (src/csv/reader.ts), as workflow update reads: its line numbers count a
  // CRLF inside a quoted field once, and blank lines still count.
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
