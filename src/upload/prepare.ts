import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { inputFile } from '../csv/read.js';
import { InputError } from '../errors.js';
import { commitFile } from '../files/atomic-write.js';
import { said } from '../said.js';
import type { Journals } from '../store/store.js';
import {
  emptyJournal,
  findInterrupted,
  finishedUpload,
  readJournal,
  skipRanges,
  uploadKey,
  type JournalState,
  type UncertainBatch,
} from '../store/upload-journal.js';
import { plainBatch, type SpooledBatch } from './batches.js';
import { checkFile } from './check-file.js';
import type { Batching, UploadPlan, UploadReport, UploadRun } from './events.js';
import { fingerprint, type Fingerprint } from './fingerprint.js';

/** An upload once its file is checked: what pass 2 needs, and what the run must release. */
export interface Prepared {
  report: UploadReport;
  fingerprint: Fingerprint;
  /** The journal of this upload (which may not exist yet): its store and its name there. */
  journals: Journals;
  journalName: string;
  journal: JournalState;
  /** The batches to send, where the spool holds them. */
  spooled: SpooledBatch[];
  /** Journals removed once the first batch goes (--restart). */
  replaced: string[];
  /** Unfinished uploads of the same path with other content: marked superseded once the first batch goes. */
  earlier: JournalState[];
  /** Releases the lock and removes the spool. */
  close(): Promise<void>;
}

/** Rows between two `read` events. */
const READ_EVENT_EVERY = 5_000;

/**
 * Pass 0 (hash and UTF-8 check), the journal and lock, and pass 1 (read, check every row, write
 * the rejects, spool the batches). On an error, what it took is released before it throws.
 */
export async function prepare(plan: UploadPlan, run: UploadRun): Promise<Prepared> {
  const emit = run.onEvent;
  const before = inputFile(plan.path, plan.file);
  const fp = await fingerprint(plan.path, plan.file, { signal: run.signal });

  const taken = await takeJournal(plan, run, fp);
  const { key, journals, journalPath, spool } = taken;
  const close = async () => {
    if (spool) rmSync(spool, { force: true });
    await taken.release();
  };
  try {
    // Never stuck: a new export at the same path is a new upload; the stopped one is named.
    const interrupted = await findInterrupted(journals, plan.workflowId, taken.destination, plan.path, fp.sha256);
    if (!plan.restart) for (const j of interrupted) emit({ type: 'earlier-upload', ...earlierOf(j) });
    const journal = plan.restart ? emptyJournal(key, journalPath) : await readJournal(journals, key);
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
    const resend = (b: UncertainBatch) => b.caseids === true || plan.resendUncertain;
    for (const b of journal.uncertain)
      emit(
        resend(b)
          ? { type: 'resend-uncertain', batch: b, reason: b.caseids ? 'caseid' : 'asked' }
          : { type: 'uncertain-kept', batch: b },
      );
    const check = await readAndCheck(plan, run, fp, skipRanges(journal, resend), spool);
    // A batch sent again with the very lines it had keeps its number; any other batch is numbered
    // after every number an earlier run used, so that no number ever names two sets of lines.
    const again = new Map(journal.uncertain.map((b) => [`${b.firstLine}-${b.lastLine}`, b.index]));
    let next = journal.lastIndex;
    const spooled = check.batches.map((b) => ({ ...b, index: again.get(`${b.firstLine}-${b.lastLine}`) ?? ++next }));
    const after = inputFile(plan.path, plan.file);
    if (after.size !== before.size || after.mtimeMs !== before.mtimeMs || after.size !== fp.bytes) {
      throw new InputError(said`${plan.file} changed while it was being read; run again once it is complete`);
    }
    const batching: Batching = {
      batchSize: plan.batchSize,
      batches: spooled.map(plainBatch),
      entries: check.entries,
      resumed: {
        batches: journal.batches.length,
        entries: journal.ackedEntries,
        line: journal.acceptedLine,
        serviceCount: journal.serviceCount,
      },
      uncertain: journal.uncertain.filter((b) => !resend(b)),
      totalBatches: next,
    };
    const { validation } = check;
    const allowed = validation.invalid <= plan.maxInvalid && validation.valid > 0;
    emit({ type: 'validated', validation, batching, allowed });
    const earlier = plan.restart ? [] : interrupted;
    const first = earlier[0];
    return {
      report: {
        sha256: fp.sha256,
        validation,
        batching,
        allowed,
        journal: journalPath,
        earlier: first && {
          journal: first.path,
          at: first.header?.at ?? '',
          batches: first.batches.length,
          entries: first.ackedEntries,
          line: first.acceptedLine,
        },
      },
      fingerprint: fp,
      journals,
      journalName: key,
      journal,
      spooled,
      replaced: plan.restart ? [key, ...interrupted.map((j) => j.name)] : [],
      earlier,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The journal of this upload for its destination: named by workflow, content and destination;
 * locked (a file lock, and the shared store's when there is one); spools of killed runs removed.
 */
async function takeJournal(plan: UploadPlan, run: UploadRun, fp: Fingerprint) {
  const destination = plan.destination ?? {
    kind: 'cloud',
    text: '(not known: a dry run without base URL or APPKey)',
    id: 'unknown',
  };
  const key = `${uploadKey(plan.workflowId, fp.sha256)}-${destination.id}`;
  const journals = await run.store.journals('upload');
  const journalPath = journals.where(key);
  const taken = { key, journals, journalPath, destination: destination.text };
  if (plan.dryRun) return { ...taken, spool: undefined, release: async () => undefined };
  mkdirSync(plan.spoolDir, { recursive: true, mode: 0o700 });
  await journals.prune(finishedUpload);
  const release = await run.store.lock({
    name: `upload ${key}`,
    what: `upload of ${plan.file} to workflow ${plan.workflowId}`,
    file: join('uploads', `${key}.lock`),
    onStale: (owner, path) => run.onEvent({ type: 'stale-lock', pid: owner.pid, path }),
  });
  // Spools of runs that were killed (we hold the lock: nobody else uses them).
  for (const name of readdirSync(plan.spoolDir))
    if (name.startsWith(`${key}.`) && name.includes('.spool')) rmSync(join(plan.spoolDir, name), { force: true });
  return { ...taken, spool: join(plan.spoolDir, `${key}.${process.pid}.spool`), release };
}

/** Pass 1: every row read and checked; valid rows outside the skipped ranges are batched. */
async function readAndCheck(
  plan: UploadPlan,
  run: UploadRun,
  fp: Fingerprint,
  skip: Array<[number, number]>,
  spoolPath: string | undefined,
) {
  let last = 0;
  // Written beside its final name, which it takes only once the file proves to have rows.
  const rejectsPath = plan.rejectsPath && `${plan.rejectsPath}.${process.pid}.part`;
  const { path, file, delimiter, keepEmpty, region, batchSize } = plan;
  const input = { path, file, delimiter, keepEmpty, region, batchSize, skip, spoolPath, rejectsPath };
  const check = await checkFile(input, {
    signal: run.signal,
    onProgress: (p) => {
      // A read event every few thousand rows.
      if (p.rows - last < READ_EVENT_EVERY) return;
      last = p.rows;
      run.onEvent({ type: 'read', ...p, totalBytes: fp.bytes });
    },
  });
  const { rows, valid, invalid } = check.validation;
  run.onEvent({ type: 'read', rows, valid, invalid, bytes: fp.bytes, totalBytes: fp.bytes });
  const discardRejects = () => rejectsPath && rmSync(rejectsPath, { force: true });
  if (!check.header) {
    discardRejects();
    throw new InputError(
      said`${plan.file}: line 1: the file is empty; expected a header row naming at least callee and platform`,
      { line: 1 },
    );
  }
  if (rows === 0) {
    discardRejects();
    throw new InputError(said`${plan.file}: line ${check.lines + 1}: no rows after the header`, {
      line: check.lines + 1,
    });
  }
  // Flushed and renamed into place in one step: a cron job never reads half a rejects file.
  if (rejectsPath) commitFile(rejectsPath, plan.rejectsPath!);
  return check;
}

/** What the warning about an earlier, stopped upload of the same path says. */
function earlierOf(j: JournalState) {
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
