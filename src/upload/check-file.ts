import { BatchWriter, type SpooledBatch } from './batches.js';
import { readHeader, type Columns } from './columns.js';
import { DuplicateIndex } from './dedup.js';
import type { Validation } from './events.js';
import { LISTED_PROBLEMS, type Problem } from '../csv/problems.js';
import { readRecords } from '../csv/read.js';
import { RejectsWriter } from './rejects.js';
import { checkFields, toEntry } from './validate.js';

export interface CheckInput {
  path: string;
  /** The file as the user named it (for messages). */
  file: string;
  delimiter: string;
  keepEmpty: boolean;
  /** Region of callees written as national numbers (`--region`, the profile's `region`); never guessed. */
  region?: string;
  batchSize: number;
  /**
   * Line ranges (sorted, inclusive) whose valid rows are not spooled: batches an earlier run
   * had acknowledged, or left uncertain and not to be sent again.
   */
  skip: Array<[number, number]>;
  /** Where to spool the valid rows' JSON; undefined to only count. */
  spoolPath?: string;
  rejectsPath?: string;
}

export interface FileCheck {
  /** Whether the header row was found. */
  header: boolean;
  validation: Validation;
  /** The file's last line. */
  lines: number;
  batches: SpooledBatch[];
  entries: number;
  rejected?: number;
}

export interface CheckProgress {
  rows: number;
  valid: number;
  invalid: number;
  bytes: number;
}

/** Rows between two progress reports. */
const PROGRESS_EVERY = 5_000;

/**
 * Pass 1 over the file: every row read and checked with its line, the rejected ones written to
 * the rejects file, the valid ones outside the skipped ranges cut into batches and spooled as JSON.
 */
export async function checkFile(
  input: CheckInput,
  options: { signal?: AbortSignal; onProgress?: (p: CheckProgress) => void } = {},
): Promise<FileCheck> {
  const duplicates = new DuplicateIndex();
  const validation: Validation = { rows: 0, valid: 0, invalid: 0, problems: [], problemCount: 0 };
  const rowOptions = { keepEmpty: input.keepEmpty };
  const writer = new BatchWriter(input.batchSize, 1, input.spoolPath);
  const rejects = input.rejectsPath ? new RejectsWriter(input.rejectsPath, input.delimiter) : undefined;
  let columns: Columns | undefined;
  const skip = input.skip;
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
      signal: options.signal,
      onBytes: (n) => (bytes = n),
      onRecord(fields, line) {
        if (!columns) {
          columns = readHeader(fields, line, input.file, input.delimiter);
          return rejects?.header(fields);
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
        if (skip.length === 0 || !skipped(line)) {
          const json = input.spoolPath ? JSON.stringify(toEntry(columns, fields, r, rowOptions)) : undefined;
          writer.add(line, json, caseid !== undefined);
        }
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
  return {
    header: columns !== undefined,
    validation,
    lines,
    batches: writer.batches,
    entries: writer.entries,
    rejected: rejects?.count,
  };
}
