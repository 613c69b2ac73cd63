import { mkdirSync, readdirSync, renameSync, rmSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { CliError, InputError, ServiceError } from '../errors.js';
import { BatchReader, plainBatch, type Batch, type SpooledBatch } from './batches.js';
import { checkFile, secondSpoolPath, SPLIT_MIN_BYTES } from './check-file.js';
import type { Plan, UploadEvent, Validation } from './events.js';
import { fingerprint, type Fingerprint } from './fingerprint.js';
import { emptyJournal, findInterrupted, JournalWriter, readJournal, removeJournal, uploadKey, uploadsDir, type JournalState } from './journal.js';
import { acquireLock } from '../files/lock.js';
import { SplitFinder } from './split.js';

export interface UploadOptions {
  /** The file as the user named it (for messages). */
  file: string;
  /** Its absolute path. */
  path: string;
  workflowId: string;
  configDir: string;
  delimiter: string;
  keepEmpty: boolean;
  /** Entries per request, at most MAX_ENTRIES_PER_UPDATE (the command checks). */
  batchSize: number;
  /** Invalid rows that may be skipped; more than this and nothing is sent. */
  maxInvalid: number;
  /** Where to write every rejected row, when asked. */
  rejectsPath?: string;
  /** Ignore the journal: send every batch again. */
  restart: boolean;
  /** Read, check and plan; take no lock, write no journal, spool nothing. */
  dryRun: boolean;
  signal?: AbortSignal;
  onEvent?: (event: UploadEvent) => void;
}

/** Sends one batch (its entries as a JSON array's text); resolves with the envelope's data. */
export type SendBatch = (details: Buffer, batch: Batch) => Promise<{ workflow_id?: string; count: number }>;

export interface SendOutcome {
  batchesSent: number;
  entriesAcked: number;
  /** Every planned batch was acknowledged. */
  complete: boolean;
  /** Stopped between batches because `shouldStop` said so. */
  interrupted: boolean;
  /** The error that stopped the run, its message naming the batch and its lines. */
  error?: unknown;
  failedBatch?: Batch;
}

/** Rows between two `read` events. */
const READ_EVENT_EVERY = 5_000;

/**
 * One upload of a contact CSV to a workflow, in two passes. `prepareUpload` is pass 0 (hash and
 * UTF-8 check), the journal and lock, and pass 1 (read, check every row, write the rejects,
 * spool the batches); `send` is pass 2. Between the two the command may ask for confirmation.
 */
export class PreparedUpload {
  private constructor(
    readonly options: UploadOptions,
    readonly fingerprint: Fingerprint,
    readonly validation: Validation,
    readonly plan: Plan,
    /** The journal of this upload (which may not exist yet). */
    readonly journalPath: string,
    /** Rows written to `options.rejectsPath` (undefined without it). */
    readonly rejected: number | undefined,
    /** The batches to send, where the spool holds them. */
    private readonly spooled: SpooledBatch[],
    /** Spool files to remove once done. */
    private readonly spools: string[],
    private readonly journal: JournalState,
    private readonly replaced: string[],
    private readonly releaseLock: () => void,
  ) {}

  /** Within --max-invalid, with at least one valid row. */
  get allowed(): boolean {
    return this.validation.invalid <= this.options.maxInvalid && this.validation.valid > 0;
  }

  static async prepare(o: UploadOptions): Promise<PreparedUpload> {
    const emit = o.onEvent ?? (() => undefined);
    const before = statFile(o.path, o.file);
    // A large file is checked as two halves at once (check-file.ts), cut where pass 0 finds a record start.
    const splitter = before.size >= SPLIT_MIN_BYTES ? new SplitFinder(Math.floor(before.size / 2)) : undefined;
    const fp = await fingerprint(o.path, o.file, { signal: o.signal, onChunk: splitter && ((chunk) => splitter.push(chunk)) });
    emit({ type: 'fingerprint', ...fp });

    const dir = uploadsDir(o.configDir);
    const key = uploadKey(o.workflowId, fp.sha256);
    const journalPath = join(dir, `${key}.journal`);
    let release: () => void = () => undefined;
    const spool = o.dryRun ? undefined : join(dir, `${key}.${process.pid}.spool`);
    if (!o.dryRun) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const lockPath = join(dir, `${key}.lock`);
      release = acquireLock(lockPath, `upload of ${o.file} to workflow ${o.workflowId}`, (owner) => emit({ type: 'stale-lock', pid: owner.pid, path: lockPath }));
      // Spools of runs that were killed (we hold the lock: nobody else uses them).
      for (const name of readdirSync(dir)) if (name.startsWith(`${key}.`) && name.endsWith('.spool')) rmSync(join(dir, name), { force: true });
    }
    try {
      const interrupted = findInterrupted(dir, o.workflowId, o.path, fp.sha256);
      if (interrupted.length > 0 && !o.restart) throw changedFile(o, interrupted[0]!);
      const journal = o.restart ? emptyJournal(journalPath) : readJournal(journalPath);
      if (journal.batches.length > 0) {
        emit({ type: 'resume', batches: journal.batches.length, entries: journal.ackedEntries, line: journal.resumeLine, journal: journalPath, doneAt: journal.doneAt });
      }
      const check = await readAndCheck(o, fp, journal.resumeLine, spool, splitter, emit);
      const { validation, rejected } = check;
      // Numbered after the batches an earlier run sent.
      const spooled = check.batches.map((b) => ({ ...b, index: b.index + journal.batches.length }));
      const batches = spooled.map(plainBatch);
      const after = statFile(o.path, o.file);
      if (after.size !== before.size || after.mtimeMs !== before.mtimeMs || after.size !== fp.bytes) {
        throw new InputError(`${o.file} changed while it was being read; run again once it is complete`);
      }
      const plan: Plan = {
        batchSize: o.batchSize,
        batches,
        entries: check.entries,
        resumed: { batches: journal.batches.length, entries: journal.ackedEntries, line: journal.resumeLine },
        totalBatches: journal.batches.length + batches.length,
      };
      emit({ type: 'validated', validation, plan });
      const replaced = o.restart ? [journalPath, ...interrupted.map((j) => j.path)] : [];
      return new PreparedUpload(o, fp, validation, plan, journalPath, rejected, spooled, spoolFiles(spool), journal, replaced, release);
    } catch (error) {
      for (const path of spoolFiles(spool)) rmSync(path, { force: true });
      release();
      throw error;
    }
  }

  /**
   * Pass 2: sends the planned batches in order, one request at a time, reading the next batch
   * from the spool while the current one is in flight. Each acknowledged batch is journaled
   * (and flushed to disk) before the next is sent; a batch in flight when the process dies is
   * not, so a re-run sends it again, and only it.
   */
  async send(sendBatch: SendBatch, control: { shouldStop?: () => boolean } = {}): Promise<SendOutcome> {
    const o = this.options;
    if (o.dryRun || !this.allowed) throw new Error('send: this upload may not be sent');
    const emit = o.onEvent ?? (() => undefined);
    const { batches, totalBatches, entries } = this.plan;
    const journal = new JournalWriter(this.journalPath, { workflowId: o.workflowId, file: o.path, sha256: this.fingerprint.sha256, bytes: this.fingerprint.bytes });
    const outcome: SendOutcome = { batchesSent: 0, entriesAcked: 0, complete: false, interrupted: false };
    try {
      if (batches.length === 0) {
        if (this.journal.batches.length > 0 && !this.journal.doneAt) journal.done();
        outcome.complete = true;
        return outcome;
      }
      const reader = await BatchReader.open(this.spooled);
      let next: Promise<{ batch: Batch; details: Buffer }> | undefined = reader.read(0);
      try {
        for (let i = 0; i < batches.length; i++) {
          const { batch, details } = await next!;
          next = undefined;
          if (control.shouldStop?.()) {
            outcome.interrupted = true;
            break;
          }
          if (i === 0) for (const path of this.replaced) removeJournal(path);
          emit({ type: 'sending', batch, total: totalBatches });
          const request = sendBatch(details, batch);
          if (i + 1 < batches.length) {
            next = reader.read(i + 1);
            next.catch(() => undefined);
          }
          let answer: { workflow_id?: string; count: number };
          try {
            answer = await request;
            checkAnswer(answer, batch, o.workflowId);
          } catch (error) {
            outcome.error = this.describeFailure(error, batch, outcome);
            outcome.failedBatch = batch;
            break;
          }
          journal.batch(batch, answer.count);
          outcome.batchesSent++;
          outcome.entriesAcked += answer.count;
          emit({ type: 'sent', batch, total: totalBatches, acked: answer.count, entriesSent: outcome.entriesAcked, entriesToSend: entries });
        }
      } finally {
        await next?.catch(() => undefined);
        await reader.close();
      }
      if (outcome.batchesSent === batches.length) {
        outcome.complete = true;
        journal.done();
      }
      return outcome;
    } finally {
      journal.close();
    }
  }

  /** Releases the lock and removes the spool. Safe to call more than once. */
  close(): void {
    this.releaseLock();
    for (const path of this.spools) rmSync(path, { force: true });
  }

  private describeFailure(error: unknown, batch: Batch, outcome: SendOutcome): unknown {
    const { totalBatches, resumed } = this.plan;
    const acked = resumed.batches + outcome.batchesSent;
    const done =
      acked === 0
        ? 'no batch was acknowledged'
        : `batches 1-${acked} (${resumed.entries + outcome.entriesAcked} entries) are acknowledged and journaled`;
    const prefix = `batch ${batch.index} of ${totalBatches} (lines ${batch.firstLine}-${batch.lastLine}) failed: `;
    const suffix = `; ${done}; run the same command again to send the rest`;
    if (error instanceof CliError) {
      error.message = `${prefix}${error.message}${suffix}`;
      Object.assign(error.details, { batch: batch.index, firstLine: batch.firstLine, lastLine: batch.lastLine, acknowledgedBatches: acked });
    }
    return error;
  }
}

/** Pass 1: every row read and checked; valid rows after the resume line are batched. */
async function readAndCheck(
  o: UploadOptions,
  fp: Fingerprint,
  resumeLine: number,
  spoolPath: string | undefined,
  splitter: SplitFinder | undefined,
  emit: (e: UploadEvent) => void,
) {
  let last = 0;
  // Written beside its final name, which it takes only once the file proves to have rows.
  const rejectsPath = o.rejectsPath && `${o.rejectsPath}.${process.pid}.part`;
  const check = await checkFile(
    { path: o.path, file: o.file, delimiter: o.delimiter, keepEmpty: o.keepEmpty, batchSize: o.batchSize, resumeLine, spoolPath, rejectsPath },
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
    throw new InputError(`${o.file}: line 1: the file is empty; expected a header row naming at least callee and platform`, { line: 1 });
  }
  if (rows === 0) {
    discardRejects();
    throw new InputError(`${o.file}: line ${check.lines + 1}: no rows after the header`, { line: check.lines + 1 });
  }
  if (rejectsPath) renameSync(rejectsPath, o.rejectsPath!);
  return check;
}

/** The spool files an upload may write (the second for a file checked in two halves). */
function spoolFiles(spool: string | undefined): string[] {
  return spool ? [spool, secondSpoolPath(spool)] : [];
}

function checkAnswer(answer: { workflow_id?: string; count: number }, batch: Batch, workflowId: string): void {
  const endpoint = 'POST /service/cloud/workflow/updatedetails';
  if (answer.count !== batch.count) {
    throw new ServiceError(`${endpoint}: the service acknowledged ${answer.count} of ${batch.count} entries`, endpoint, 200, 200, {
      acknowledged: answer.count,
      sent: batch.count,
    });
  }
  if (answer.workflow_id !== undefined && answer.workflow_id !== workflowId) {
    throw new ServiceError(`${endpoint}: the service answered for workflow ${answer.workflow_id}, not ${workflowId}`, endpoint, 200, 200);
  }
}

function changedFile(o: UploadOptions, earlier: JournalState): InputError {
  const last = earlier.batches.at(-1)!;
  return new InputError(
    `${o.file} changed since an upload of it to workflow ${o.workflowId} stopped on ${last.at} ` +
      `(${earlier.batches.length} batches, up to line ${earlier.resumeLine}, acknowledged); ` +
      'restore that file to continue it, or run with --restart to send the new content from its first row',
    { journal: earlier.path },
  );
}

function statFile(path: string, display: string): Stats {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read ${display}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message}`);
  }
  if (!stats.isFile()) throw new InputError(`cannot read ${display}: not a file`);
  return stats;
}
