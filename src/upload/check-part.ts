import { BatchWriter, type SpooledBatch } from './batches.js';
import { readHeader, type Columns } from './columns.js';
import { DuplicateIndex } from './dedup.js';
import { RowEntry } from './entry-json.js';
import type { Validation } from './events.js';
import { LISTED_PROBLEMS, type Problem } from '../csv/problems.js';
import { readRecords } from '../csv/read.js';
import { RejectsWriter } from './rejects.js';
import { checkFields } from './validate.js';

/** A stretch of the file that starts on a record: its bytes, and the line its first byte is on. */
export interface PartRange {
  start: number;
  end?: number;
  firstLine: number;
  /** The file's record delimiter (csv-parse would find it in the whole file). */
  recordDelimiter?: string;
}

/** What checking a part needs; plain data, so that it can be sent to a worker thread. */
export interface PartInput {
  path: string;
  /** The file as the user named it (for messages). */
  file: string;
  delimiter: string;
  keepEmpty: boolean;
  /** Region of callees written as national numbers (`--region`, the profile's `region`); never guessed. */
  region?: string;
  batchSize: number;
  /** Valid rows up to this line were acknowledged by an earlier run: checked, not spooled. */
  resumeLine: number;
  /**
   * Line ranges (sorted, inclusive) whose valid rows are not spooled: batches an earlier run
   * had acknowledged, or left uncertain and not to be sent again.
   */
  skip?: Array<[number, number]>;
  /** The whole file when absent. */
  range?: PartRange;
  /** The header row's fields, for a part after it; a part without it reads the header first. */
  header?: string[];
  /** Where to spool the valid rows' JSON; undefined to only count. */
  spoolPath?: string;
  /** Where to write the rejected rows (with the header row only when the part reads it). */
  rejectsPath?: string;
  /** About how many rows the part has, when known: sizes its duplicate index once. */
  expectedRows?: number;
}

export interface PartResult {
  /** The header row's fields (read by this part, or given to it). */
  header?: string[];
  validation: Validation;
  /** The last line of the part. */
  lines: number;
  batches: SpooledBatch[];
  entries: number;
  rejected?: number;
}

export interface PartProgress {
  rows: number;
  valid: number;
  invalid: number;
  bytes: number;
}

/** Rows between two progress reports. */
const PROGRESS_EVERY = 5_000;

/**
 * Pass 1 over a part of the file (or all of it): every row read and checked with its line, the
 * rejected ones written to the rejects file, the valid ones after the resume line cut into
 * batches and spooled as JSON. `duplicates` holds the keys of the rows before the part.
 */
export async function checkPart(
  input: PartInput,
  duplicates: DuplicateIndex,
  options: { signal?: AbortSignal; onProgress?: (p: PartProgress) => void; onHeader?: (fields: string[]) => void } = {},
): Promise<PartResult> {
  const validation: Validation = { rows: 0, valid: 0, invalid: 0, problems: [], problemCount: 0 };
  const rowOptions = { keepEmpty: input.keepEmpty };
  const writer = new BatchWriter(input.batchSize, 1, input.spoolPath);
  const rejects = input.rejectsPath ? new RejectsWriter(input.rejectsPath, input.delimiter) : undefined;
  let header = input.header;
  let columns: Columns | undefined;
  let entry: RowEntry | undefined;
  const useHeader = (fields: string[], line: number, write: boolean) => {
    columns = readHeader(fields, line, input.file, input.delimiter);
    entry = new RowEntry(columns, rowOptions);
    rejects?.header(fields, { write });
  };
  if (header) useHeader(header, 1, false);
  const skip = input.skip ?? [];
  let skipAt = 0;
  // Lines come in order: one pointer walks the ranges.
  const skipped = (line: number) => {
    while (skipAt < skip.length && skip[skipAt]![1] < line) skipAt++;
    return skipAt < skip.length && skip[skipAt]![0] <= line;
  };
  let bytes = 0;
  const progress = () =>
    options.onProgress?.({ rows: validation.rows, valid: validation.valid, invalid: validation.invalid, bytes });
  const reject = (fields: readonly string[], line: number, problems: Problem[]) => {
    validation.invalid++;
    validation.problemCount += problems.length;
    for (const p of problems) if (validation.problems.length < LISTED_PROBLEMS) validation.problems.push(p);
    rejects?.reject(line, problems.map((p) => `${p.column}: ${p.message}`).join('; '), fields);
  };
  let lines: number;
  try {
    ({ lines } = await readRecords(input.path, input.file, {
      delimiter: input.delimiter,
      start: input.range?.start,
      end: input.range?.end,
      firstLine: input.range?.firstLine,
      recordDelimiter: input.range?.recordDelimiter,
      signal: options.signal,
      onBytes: (n) => (bytes = n),
      onRecord(fields, line) {
        if (!columns) {
          header = fields;
          useHeader(fields, line, true);
          return options.onHeader?.(fields);
        }
        validation.rows++;
        if (validation.rows % PROGRESS_EVERY === 0) progress();
        const r = checkFields(columns, fields, line, input.region);
        if (!r.ok) return reject(fields, line, r.problems);
        const caseid = columns.caseid >= 0 && fields[columns.caseid] !== '' ? fields[columns.caseid] : undefined;
        // People are keyed by E.164: two spellings of one number are one callee.
        const first = duplicates.add(r.callee, caseid, line);
        if (first !== undefined) {
          const column =
            caseid === undefined
              ? columns.names[columns.callee]!
              : `${columns.names[columns.callee]}+${columns.names[columns.caseid]}`;
          const spelled = r.callee === fields[columns.callee] ? '' : `: ${fields[columns.callee]} is ${r.callee}`;
          return reject(fields, line, [
            { line, column, message: `duplicate of line ${first} (same callee and caseid${spelled})` },
          ]);
        }
        validation.valid++;
        if (line > input.resumeLine && (skip.length === 0 || !skipped(line)))
          writer.add(line, entry!.set(fields, r), caseid !== undefined);
      },
    }));
    writer.finish();
    rejects?.close();
  } catch (error) {
    writer.discard();
    rejects?.discard();
    throw error;
  }
  progress();
  return { header, validation, lines, batches: writer.batches, entries: writer.entries, rejected: rejects?.count };
}
