import { existsSync, renameSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { InputError } from '../errors.js';
import type { SpooledBatch } from './batches.js';
import { checkPart, type PartInput, type PartProgress, type PartResult } from './check-part.js';
import { DuplicateIndex } from './dedup.js';
import type { Validation } from './events.js';
import { LISTED_PROBLEMS } from '../csv/problems.js';
import { packagedFile } from '../packaged.js';
import { appendFile, rejectsTempPath, RejectsFileError } from './rejects.js';
import type { SplitPoint } from './split.js';

/** Files smaller than this are checked in one piece: a worker thread costs more than it saves. */
export const SPLIT_MIN_BYTES = 4 << 20;

/** The worker's script, beside the bundle's chunks; absent when running from the sources. */
const WORKER = new URL('../upload/part-worker.js', import.meta.url);

/** The worker: the script in dist/, or its source carried inside the single executable (src/packaged.ts). */
function workerScript(): { source: string } | { file: URL } | undefined {
  const source = packagedFile('part-worker.cjs');
  if (source !== undefined) return { source };
  return existsSync(WORKER) ? { file: WORKER } : undefined;
}

/** The spool of the second half, beside the first's. */
export function secondSpoolPath(spool: string): string {
  return spool.replace(/\.spool$/, '.2.spool');
}

export interface FileCheck {
  validation: Validation;
  /** The file's last line. */
  lines: number;
  /** Numbered from 1 (the caller renumbers them after a resumed upload's). */
  batches: SpooledBatch[];
  entries: number;
  rejected?: number;
  /** Whether the header row was found. */
  header: boolean;
}

/**
 * Pass 1 over the whole file. A large file is checked as two halves at once, the second in a
 * worker thread, cut at a record start found by pass 0 (split.ts); the result is the same as one
 * pass over the file (a test holds them equal): line numbers count from the cut's line, the
 * halves' problems, rejected rows and batches are joined in file order, and when a row of the
 * second half repeats a row of the first (or the cut turns out not to be where the first half
 * ended), the second half is checked again after the first, as one pass would.
 */
export async function checkFile(
  input: PartInput,
  fileBytes: number,
  split: SplitPoint | undefined,
  options: { signal?: AbortSignal; onProgress?: (p: PartProgress) => void } = {},
): Promise<FileCheck> {
  const script = split && availableParallelism() >= 2 ? workerScript() : undefined;
  if (!split || !script) return fileCheck(await checkPart(input, new DuplicateIndex(), options));
  // The rows of each half, about: the first half's lines, and as many per byte in the second.
  const headRows = split.line;
  const tailRows = Math.ceil(((fileBytes - split.offset) * split.line) / split.offset);
  const duplicates = new DuplicateIndex(DuplicateIndex.capacityFor(headRows));
  const first: PartInput = {
    ...input,
    range: { start: 0, end: split.offset, firstLine: 1 },
    rejectsPath: input.rejectsPath && `${input.rejectsPath}.part1`,
  };
  // Given the header row once the first half has read it.
  const second: PartInput = {
    ...input,
    range: { start: split.offset, firstLine: split.line, recordDelimiter: split.recordDelimiter },
    spoolPath: input.spoolPath && secondSpoolPath(input.spoolPath),
    expectedRows: tailRows,
    rejectsPath: input.rejectsPath && `${input.rejectsPath}.part2`,
  };
  const progress = { first: empty(), second: empty() };
  const report = () => options.onProgress?.(sum(progress.first, progress.second));
  const run: { worker?: WorkerRun } = {};
  try {
    const head = await checkPart(first, duplicates, {
      signal: options.signal,
      onHeader: (header) =>
        (run.worker = runWorker(
          script,
          { ...second, header },
          options.signal,
          (p) => ((progress.second = p), report()),
        )),
      onProgress: (p) => ((progress.first = p), report()),
    });
    if (!run.worker) throw new Error('checkFile: no header in the first half'); // the cut comes after the header row
    const result = await run.worker.result;
    let tail = result.part;
    const later = result.duplicates;
    if (head.lines !== split.line - 1 || duplicates.overlaps(later)) {
      discardPart(second);
      tail = await checkPart({ ...second, header: head.header }, duplicates, {
        signal: options.signal,
        onProgress: (p) => ((progress.second = p), report()),
      });
    }
    if (input.rejectsPath) joinFiles(input.rejectsPath, first.rejectsPath!, second.rejectsPath!);
    return join(head, tail);
  } catch (error) {
    await run.worker?.stop();
    discardPart(first);
    discardPart(second);
    throw error;
  }
}

interface WorkerRun {
  result: Promise<{ part: PartResult; duplicates: DuplicateIndex }>;
  stop(): Promise<void>;
}

function runWorker(
  script: { source: string } | { file: URL },
  input: PartInput,
  signal: AbortSignal | undefined,
  onProgress: (p: PartProgress) => void,
): WorkerRun {
  const worker =
    'source' in script
      ? new Worker(script.source, { eval: true, workerData: input })
      : new Worker(script.file, { workerData: input });
  const stop = () => void worker.terminate();
  signal?.addEventListener('abort', stop, { once: true });
  const result = new Promise<{ part: PartResult; duplicates: DuplicateIndex }>((resolve, reject) => {
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'progress') return onProgress(m.progress);
      if (m.type === 'done') return resolve({ part: m.result, duplicates: DuplicateIndex.fromSlots(m.slots, m.size) });
      reject(
        m.kind === 'input'
          ? new InputError(m.message, m.details)
          : m.kind === 'rejects-file'
            ? new RejectsFileError(String(m.details?.reason))
            : new Error(m.message),
      );
    });
    worker.on('error', reject);
    worker.on('exit', (code) =>
      reject(new Error(signal?.aborted ? 'aborted' : `the checking thread stopped (exit ${code})`)),
    );
  }).finally(() => signal?.removeEventListener('abort', stop));
  result.catch(() => undefined);
  return {
    result,
    async stop() {
      await worker.terminate();
    },
  };
}

type WorkerMessage =
  | { type: 'progress'; progress: PartProgress }
  | { type: 'done'; result: PartResult; slots: Uint32Array; size: number }
  | { type: 'error'; message: string; kind?: string; details?: Record<string, unknown> };

/**
 * Removes what a part wrote (its spool and rejects), when its result is not used; also what it
 * was writing when its thread was stopped half-way.
 */
function discardPart(input: PartInput): void {
  if (input.spoolPath) rmSync(input.spoolPath, { force: true });
  if (input.rejectsPath)
    for (const path of [input.rejectsPath, rejectsTempPath(input.rejectsPath)]) rmSync(path, { force: true });
}

/** The two halves' rejects files, joined under the final name (so that it never looks finished early). */
function joinFiles(target: string, head: string, tail: string): void {
  appendFile(head, tail);
  rmSync(tail, { force: true });
  renameSync(head, target);
}

function fileCheck(part: PartResult): FileCheck {
  return {
    validation: part.validation,
    lines: part.lines,
    batches: part.batches,
    entries: part.entries,
    rejected: part.rejected,
    header: part.header !== undefined,
  };
}

function join(head: PartResult, tail: PartResult): FileCheck {
  const a = head.validation;
  const b = tail.validation;
  const validation: Validation = {
    rows: a.rows + b.rows,
    valid: a.valid + b.valid,
    invalid: a.invalid + b.invalid,
    problems: [...a.problems, ...b.problems].slice(0, LISTED_PROBLEMS),
    problemCount: a.problemCount + b.problemCount,
  };
  const batches = [...head.batches, ...tail.batches].map((batch, i) => ({ ...batch, index: i + 1 }));
  const rejected = head.rejected === undefined ? undefined : head.rejected + (tail.rejected ?? 0);
  return { validation, lines: tail.lines, batches, entries: head.entries + tail.entries, rejected, header: true };
}

const empty = (): PartProgress => ({ rows: 0, valid: 0, invalid: 0, bytes: 0 });
const sum = (a: PartProgress, b: PartProgress): PartProgress => ({
  rows: a.rows + b.rows,
  valid: a.valid + b.valid,
  invalid: a.invalid + b.invalid,
  bytes: a.bytes + b.bytes,
});
