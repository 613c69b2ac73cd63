import { rmSync } from 'node:fs';
import { InputError, NetworkError } from '../errors.js';
import { BatchReader, plainBatch, type SpooledBatch } from './batches.js';
import { SPLIT_MIN_BYTES } from './check-file.js';
import type { Batching, Validation } from './events.js';
import { fingerprint, type Fingerprint } from './fingerprint.js';
import {
  emptyJournal,
  findInterrupted,
  JournalWriter,
  markSuperseded,
  readJournal,
  skipRanges,
  type Batch,
  type JournalState,
  type UncertainBatch,
} from '../store/upload-journal.js';
import type { Journals } from '../store/store.js';
import { SplitFinder } from './split.js';
import { takeJournal, type UploadOptions } from './options.js';
import { earlierOf, readAndCheck, spoolFiles, statFile } from './pass-one.js';
import { said } from '../said.js';

export type { UploadOptions };

/** Sends one batch (its entries as a JSON array's text); resolves with the envelope's data. */
export type SendBatch = (details: Buffer, batch: Batch) => Promise<{ workflow_id?: string; count: number }>;

export interface UploadOutcome {
  batchesSent: number;
  /** Entries of the batches the service accepted. */
  entriesAcked: number;
  /** The service's `count`, summed over those batches (information, not a verdict). */
  serviceCount: number;
  /** Batches that may have reached the service, not sent again (this run's and earlier ones'). */
  uncertain: Batch[];
  /** Every planned batch was acknowledged. */
  complete: boolean;
  /** Stopped between batches because `shouldStop` said so. */
  interrupted: boolean;
  /** Why the run stopped before the end (the command says what it means and what to do). */
  stop?: UploadStop;
  failedBatch?: Batch;
}

/**
 * Why an upload stopped: batches that may have reached the service with no answer (not sent
 * again by themselves), or a batch that failed with nothing of it taken (`error`: the
 * transport's or the service's own typed error).
 */
export type UploadStop =
  | { kind: 'uncertain'; batches: readonly Batch[]; totalBatches: number; why?: string }
  | { kind: 'failed'; error: unknown; batch: Batch; totalBatches: number; ackedBatches: number; ackedEntries: number };

/** Tries of an uncertain batch whose entries all carry caseid, after the first. */
const CASEID_RETRIES = 3;

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
    readonly batching: Batching,
    /** The journal of this upload (which may not exist yet): its store, its name there, and where it is. */
    private readonly journals: Journals,
    private readonly journalName: string,
    readonly journalPath: string,
    /** Rows written to `options.rejectsPath` (undefined without it). */
    readonly rejected: number | undefined,
    /** The batches to send, where the spool holds them. */
    private readonly spooled: SpooledBatch[],
    /** Spool files to remove once done. */
    private readonly spools: string[],
    private readonly journal: JournalState,
    private readonly replaced: string[],
    /** Unfinished uploads of the same path with other content: this one goes ahead instead of them. */
    readonly earlier: JournalState[],
    private readonly releaseLock: () => Promise<void>,
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
    const fp = await fingerprint(o.path, o.file, {
      signal: o.signal,
      onChunk: splitter && ((chunk) => splitter.push(chunk)),
    });
    emit({ type: 'fingerprint', ...fp });

    const { key, journals, journalPath, spool, release, destination } = await takeJournal(o, fp, emit);
    try {
      // Never stuck: a new export at the same path is a new upload; the stopped one is named.
      const interrupted = await findInterrupted(journals, o.workflowId, destination.text, o.path, fp.sha256);
      if (!o.restart) for (const j of interrupted) emit({ type: 'earlier-upload', ...earlierOf(j) });
      const journal = o.restart ? emptyJournal(key, journalPath) : await readJournal(journals, key);
      if (journal.batches.length > 0 || journal.uncertain.length > 0) {
        emit({
          type: 'resume',
          batches: journal.batches.length,
          entries: journal.ackedEntries,
          line: journal.acceptedLine,
          journal: journalPath,
          doneAt: journal.doneAt,
        });
      }
      const resend = (b: UncertainBatch) => b.caseids === true || o.resendUncertain === true;
      for (const b of journal.uncertain)
        emit(
          resend(b)
            ? { type: 'resend-uncertain', batch: b, reason: b.caseids ? 'caseid' : 'asked' }
            : { type: 'uncertain-kept', batch: b },
        );
      const kept = journal.uncertain.filter((b) => !resend(b));
      const check = await readAndCheck(o, fp, skipRanges(journal, resend), spool, splitter, emit);
      const { validation, rejected } = check;
      // A batch sent again with the very lines it had keeps its number; any other batch is numbered
      // after every number an earlier run used, so that no number ever names two sets of lines.
      const again = new Map(journal.uncertain.map((b) => [`${b.firstLine}-${b.lastLine}`, b.index]));
      let next = journal.lastIndex;
      const spooled = check.batches.map((b) => ({ ...b, index: again.get(`${b.firstLine}-${b.lastLine}`) ?? ++next }));
      const batches = spooled.map(plainBatch);
      const after = statFile(o.path, o.file);
      if (after.size !== before.size || after.mtimeMs !== before.mtimeMs || after.size !== fp.bytes) {
        throw new InputError(said`${o.file} changed while it was being read; run again once it is complete`);
      }
      const batching: Batching = {
        batchSize: o.batchSize,
        batches,
        entries: check.entries,
        resumed: {
          batches: journal.batches.length,
          entries: journal.ackedEntries,
          line: journal.acceptedLine,
          serviceCount: journal.serviceCount,
        },
        uncertain: kept,
        totalBatches: next,
      };
      emit({ type: 'validated', validation, batching });
      const replaced = o.restart ? [key, ...interrupted.map((j) => j.name)] : [];
      return new PreparedUpload(
        o,
        fp,
        validation,
        batching,
        journals,
        key,
        journalPath,
        rejected,
        spooled,
        spoolFiles(spool),
        journal,
        replaced,
        o.restart ? [] : interrupted,
        release,
      );
    } catch (error) {
      for (const path of spoolFiles(spool)) rmSync(path, { force: true });
      await release();
      throw error;
    }
  }

  /**
   * Pass 2: sends the planned batches in order, one request at a time, reading the next batch
   * from the spool while the current one is in flight. Each acknowledged batch is journaled
   * (and flushed to disk) before the next is sent; a batch in flight when the process dies is
   * not, so a re-run sends it again, and only it.
   */
  async send(sendBatch: SendBatch, control: { shouldStop?: () => boolean } = {}): Promise<UploadOutcome> {
    const o = this.options;
    if (o.dryRun || !this.allowed) throw new Error('send: this upload may not be sent');
    const emit = o.onEvent ?? (() => undefined);
    const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const { batches, totalBatches, entries } = this.batching;
    const journal = new JournalWriter(this.journals, this.journalName, {
      workflowId: o.workflowId,
      destination: o.destination!.text,
      file: o.path,
      sha256: this.fingerprint.sha256,
      bytes: this.fingerprint.bytes,
    });
    const outcome: UploadOutcome = {
      batchesSent: 0,
      entriesAcked: 0,
      serviceCount: 0,
      uncertain: [...this.batching.uncertain],
      complete: false,
      interrupted: false,
    };
    const finish = async () => {
      if (outcome.uncertain.length > 0) {
        outcome.stop ??= { kind: 'uncertain', batches: outcome.uncertain, totalBatches };
        return;
      }
      outcome.complete = true;
      await journal.done();
    };
    try {
      if (batches.length === 0) {
        if (this.batching.uncertain.length > 0) await finish();
        else if (!this.journal.doneAt && (this.journal.batches.length > 0 || this.journal.uncertain.length > 0))
          await finish();
        else outcome.complete = true;
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
          if (i === 0) {
            for (const name of this.replaced) await this.journals.remove(name);
            for (const j of this.earlier) await markSuperseded(this.journals, j.name, this.journalPath);
          }
          emit({ type: 'sending', batch, total: totalBatches });
          if (i + 1 < batches.length) {
            next = reader.read(i + 1);
            next.catch(() => undefined);
          }
          let answer: { workflow_id?: string; count: number } | undefined;
          for (let attempt = 0; ; attempt++) {
            await journal.sending(batch);
            try {
              answer = await sendBatch(details, batch);
              break;
            } catch (error) {
              const why = error instanceof Error ? error.message : String(error);
              if (!mayHaveArrived(error)) {
                await journal.failed(batch, why);
                const { resumed } = this.batching;
                outcome.stop = {
                  kind: 'failed',
                  error,
                  batch,
                  totalBatches,
                  ackedBatches: resumed.batches + outcome.batchesSent,
                  ackedEntries: resumed.entries + outcome.entriesAcked,
                };
                outcome.failedBatch = batch;
                break;
              }
              await journal.uncertain(batch, why);
              if (batch.caseids && attempt < CASEID_RETRIES) {
                const wait = 500 * 2 ** attempt;
                emit({
                  type: 'retry-uncertain',
                  batch,
                  attempt: attempt + 1,
                  of: CASEID_RETRIES,
                  waitMs: wait,
                  error: why,
                });
                await sleep(wait);
                continue;
              }
              outcome.uncertain.push(batch);
              outcome.failedBatch = batch;
              outcome.stop = { kind: 'uncertain', batches: outcome.uncertain, totalBatches, why };
              break;
            }
          }
          if (!answer) break;
          await journal.batch(batch, answer.count);
          outcome.batchesSent++;
          outcome.entriesAcked += batch.count;
          outcome.serviceCount += answer.count;
          // Status OK and code 200: accepted. `count` is told, never a verdict (what it counts is not said).
          if (answer.count !== batch.count) emit({ type: 'count-differs', batch, count: answer.count });
          if (answer.workflow_id !== undefined && answer.workflow_id !== o.workflowId)
            emit({ type: 'other-workflow', batch, workflowId: answer.workflow_id });
          emit({
            type: 'sent',
            batch,
            total: totalBatches,
            acked: answer.count,
            entriesSent: outcome.entriesAcked,
            entriesToSend: entries,
          });
        }
      } finally {
        await next?.catch(() => undefined);
        await reader.close();
      }
      if (outcome.batchesSent === batches.length) await finish();
      return outcome;
    } finally {
      await journal.close();
    }
  }

  /** Releases the lock and removes the spool. Safe to call more than once. */
  async close(): Promise<void> {
    for (const path of this.spools) rmSync(path, { force: true });
    await this.releaseLock();
  }
}

/** Whether the body may have reached the service without an answer (a connection lost or timed out once it was sent). */
function mayHaveArrived(error: unknown): boolean {
  return error instanceof NetworkError && error.details.mayHaveBeenSent !== false;
}
