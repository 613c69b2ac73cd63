import { inputFile } from '../csv/read.js';
import { rmSync, type Stats } from 'node:fs';
import { commitFile } from '../files/atomic-write.js';
import { InputError } from '../errors.js';
import { checkFile, secondSpoolPath } from './check-file.js';
import type { UploadEvent } from './events.js';
import type { Fingerprint } from './fingerprint.js';
import type { SplitFinder } from './split.js';
import type { JournalState } from '../store/upload-journal.js';
import { said } from '../said.js';

/** What pass 1 reads of an upload's options (src/upload/upload.ts UploadOptions). */
export interface ReadOptions {
  file: string;
  path: string;
  delimiter: string;
  keepEmpty: boolean;
  /** Region of callees written as national numbers (`--region`, the profile's `region`). */
  region?: string;
  batchSize: number;
  rejectsPath?: string;
  signal?: AbortSignal;
}

/** Rows between two `read` events. */
const READ_EVENT_EVERY = 5_000;

/** Pass 1: every row read and checked; valid rows after the resume line are batched. */
export async function readAndCheck(
  o: ReadOptions,
  fp: Fingerprint,
  skip: Array<[number, number]>,
  spoolPath: string | undefined,
  splitter: SplitFinder | undefined,
  emit: (e: UploadEvent) => void,
) {
  let last = 0;
  // Written beside its final name, which it takes only once the file proves to have rows.
  const rejectsPath = o.rejectsPath && `${o.rejectsPath}.${process.pid}.part`;
  const check = await checkFile(
    {
      path: o.path,
      file: o.file,
      delimiter: o.delimiter,
      keepEmpty: o.keepEmpty,
      region: o.region,
      batchSize: o.batchSize,
      resumeLine: 0,
      skip,
      spoolPath,
      rejectsPath,
    },
    fp.bytes,
    splitter?.found,
    {
      signal: o.signal,
      onProgress: (p) => {
        // A read event every few thousand rows (the halves of a large file report in turns).
        if (p.rows - last < READ_EVENT_EVERY) return;
        last = p.rows;
        emit({ type: 'read', ...p, totalBytes: fp.bytes });
      },
    },
  );
  const { rows, valid, invalid } = check.validation;
  emit({ type: 'read', rows, valid, invalid, bytes: fp.bytes, totalBytes: fp.bytes });
  const discardRejects = () => rejectsPath && rmSync(rejectsPath, { force: true });
  if (!check.header) {
    discardRejects();
    throw new InputError(
      said`${o.file}: line 1: the file is empty; expected a header row naming at least callee and platform`,
      { line: 1 },
    );
  }
  if (rows === 0) {
    discardRejects();
    throw new InputError(said`${o.file}: line ${check.lines + 1}: no rows after the header`, { line: check.lines + 1 });
  }
  // Flushed and renamed into place in one step: a cron job never reads half a rejects file.
  if (rejectsPath) commitFile(rejectsPath, o.rejectsPath!);
  return check;
}

/** The spool files an upload may write (the second for a file checked in two halves). */
export function spoolFiles(spool: string | undefined): string[] {
  return spool ? [spool, secondSpoolPath(spool)] : [];
}

/** What the warning about an earlier, stopped upload of the same path says. */
export function earlierOf(j: JournalState): {
  journal: string;
  at: string;
  batches: number;
  entries: number;
  line: number;
  startedAt: string;
} {
  const times = [...j.batches.map((b) => b.at), ...j.uncertain.map((b) => b.at)].sort();
  return {
    journal: j.path,
    at: times.at(-1) ?? '',
    batches: j.batches.length,
    entries: j.ackedEntries,
    line: j.acceptedLine,
    startedAt: j.header?.at ?? '',
  };
}

export function statFile(path: string, display: string): Stats {
  return inputFile(path, display);
}
