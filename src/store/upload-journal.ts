import { createHash } from 'node:crypto';
import type { JournalAppender, JournalRecord, Journals } from './store.js';

/** One batch of an upload: one list-update request of entries, by the file lines they come from. */
export interface Batch {
  /** 1-based, counted over the whole upload (an earlier run's batches included). */
  index: number;
  /** Lines of the file its first and last entries come from. */
  firstLine: number;
  lastLine: number;
  count: number;
  /**
   * Every entry carries a `caseid`: sending it again cannot duplicate a contact (the spec
   * recommends caseid against duplication), so an uncertain batch may be retried.
   */
  caseids?: boolean;
}

/**
 * `<workflow>-<first 16 hex of the content's SHA-256>`: what names the journal and the lock of
 * one upload, before its destination's id (`-<destination id>`).
 * A workflow id with characters unsafe in file names is made safe and tagged with its own hash.
 */
export function uploadKey(workflowId: string, sha256: string): string {
  const safe = workflowId.replace(/[^A-Za-z0-9._-]/g, '_');
  const id =
    safe === workflowId ? safe : `${safe}~${createHash('sha256').update(workflowId).digest('hex').slice(0, 8)}`;
  return `${id}-${sha256.slice(0, 16)}`;
}

export interface JournalHeader {
  type: 'start';
  /** 2: keyed by destination. */
  version: 2;
  workflowId: string;
  /** The service and account (src/store/destination.ts). */
  destination?: string;
  /** Absolute path of the file when the upload started. */
  file: string;
  sha256: string;
  bytes: number;
  at: string;
}

export interface AckedBatch extends Batch {
  type: 'batch';
  /** The `count` the service answered with (information: the batch was accepted either way). */
  acked: number;
  at: string;
}

/** A batch whose body may have reached the service with no answer (connection lost, timeout, killed). */
export interface UncertainBatch extends Batch {
  at: string;
  error: string;
}

export interface JournalState {
  /** The journal's name in its store (the upload's key). */
  name: string;
  /** Where it is (a file's path), for messages. */
  path: string;
  header?: JournalHeader;
  batches: AckedBatch[];
  /** Batches that may have reached the service: not sent again unless safe (caseid) or asked. */
  uncertain: UncertainBatch[];
  /** When the upload completed; undefined while it is unfinished. */
  doneAt?: string;
  /** A newer upload of the same path (other content) went ahead after this one stopped. */
  supersededAt?: string;
  /** Last line of the accepted batches (0: none), as messages say how far an upload got. */
  acceptedLine: number;
  /** The highest batch number any run of this upload used: a run numbers its batches after it. */
  lastIndex: number;
  ackedEntries: number;
  /** What the service's `count` summed to over the accepted batches. */
  serviceCount: number;
}

/** The state of an upload with no journal (a first run, or `--restart`). */
export function emptyJournal(name: string, path: string): JournalState {
  return { name, path, batches: [], uncertain: [], acceptedLine: 0, lastIndex: 0, ackedEntries: 0, serviceCount: 0 };
}

type Record_ = { type?: string; at?: string; error?: string } & Batch & Record<string, unknown>;

/**
 * Reads a journal: one record per batch event, keyed by the batch's lines. `sending` is written
 * and flushed before the request; `batch` (accepted), `uncertain` or `failed` (nothing reached
 * the service) after it. A `sending` with nothing after it is a run killed while the batch was in
 * flight: uncertain.
 */
export async function readJournal(store: Journals, name: string): Promise<JournalState> {
  return foldJournal(name, store.where(name), (await store.read(name)) ?? []);
}

function foldJournal(name: string, path: string, records: readonly JournalRecord[]): JournalState {
  const state = emptyJournal(name, path);
  const last = new Map<string, Record_>();
  for (const r of records) {
    const record = r as Record_;
    if (record.type === 'start' && !state.header) state.header = record as unknown as JournalHeader;
    else if (record.type === 'done') state.doneAt = record.at;
    else if (record.type === 'superseded') state.supersededAt = record.at;
    else if (
      record.type === 'batch' ||
      record.type === 'sending' ||
      record.type === 'uncertain' ||
      record.type === 'failed'
    ) {
      last.set(`${record.firstLine}-${record.lastLine}`, record);
    }
  }
  for (const r of last.values()) {
    const { type: _t, ...rest } = r;
    if (typeof r.index === 'number') state.lastIndex = Math.max(state.lastIndex, r.index);
    if (r.type === 'batch') {
      const b = r as unknown as AckedBatch;
      state.batches.push(b);
      state.ackedEntries += b.count;
      state.serviceCount += typeof b.acked === 'number' ? b.acked : b.count;
    } else if (r.type === 'sending' || r.type === 'uncertain') {
      state.uncertain.push({
        ...(rest as unknown as Batch),
        at: r.at ?? '',
        error: r.type === 'sending' ? 'the run ended (killed?) while it was in flight' : (r.error ?? 'no answer'),
      });
    }
  }
  for (const b of state.batches) state.acceptedLine = Math.max(state.acceptedLine, b.lastLine);
  state.batches.sort((a, b) => a.firstLine - b.firstLine);
  state.uncertain.sort((a, b) => a.firstLine - b.firstLine);
  return state;
}

/** Whether a journal may be pruned once old: completed or left behind, with nothing uncertain. */
export function finishedUpload(records: JournalRecord[]): boolean {
  const j = foldJournal('', '', records);
  return (j.doneAt !== undefined || j.supersededAt !== undefined) && j.uncertain.length === 0;
}

/** The line ranges a re-run does not send: accepted batches, and uncertain ones unless `resend` says so. */
export function skipRanges(state: JournalState, resend: (b: UncertainBatch) => boolean): Array<[number, number]> {
  const ranges: Array<[number, number]> = [...state.batches, ...state.uncertain.filter((b) => !resend(b))].map((b) => [
    b.firstLine,
    b.lastLine,
  ]);
  return ranges.sort((a, b) => a[0] - b[0]);
}

/**
 * Unfinished uploads of the same file (same absolute path) to the same workflow and destination
 * with other content: the file changed since a run that did not complete.
 */
export async function findInterrupted(
  store: Journals,
  workflowId: string,
  destination: string,
  file: string,
  sha256: string,
): Promise<JournalState[]> {
  const prefix = uploadKey(workflowId, '').slice(0, -1);
  const found: JournalState[] = [];
  for (const name of await store.list(`${prefix}-`)) {
    const state = await readJournal(store, name);
    const h = state.header;
    const started = state.batches.length > 0 || state.uncertain.length > 0;
    if (
      h &&
      h.workflowId === workflowId &&
      h.destination === destination &&
      h.file === file &&
      h.sha256 !== sha256 &&
      !state.doneAt &&
      !state.supersededAt &&
      started
    ) {
      found.push(state);
    }
  }
  return found;
}

/**
 * What the uploader writes in its journal (the store's Journals underneath): `sending` before a
 * batch's request, on disk before the body leaves; its outcome after, flushed by the next
 * `sending` (one flush per batch: the answer of a batch and the intent of the next go to disk
 * together) or by `close`. A crash that loses an answer leaves its batch uncertain: reported,
 * never sent again silently. The journal is created with its header at the first batch, so a
 * run that sends nothing leaves none behind.
 */
export class JournalWriter {
  private readonly appender: JournalAppender;

  constructor(
    store: Journals,
    name: string,
    header: Omit<JournalHeader, 'type' | 'version' | 'at'>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.appender = store.open(name, () => ({ type: 'start', version: 2, ...header, at: this.now().toISOString() }));
  }

  /** Before the request: from here on the batch may reach the service. */
  sending(batch: Batch): void | Promise<void> {
    return this.appender.append({ type: 'sending', ...batch, at: this.now().toISOString() }, true);
  }

  /** Accepted (status OK, code 200); `acked` is the service's `count`. */
  batch(batch: Batch, acked: number): void | Promise<void> {
    return this.appender.append({ type: 'batch', ...batch, acked, at: this.now().toISOString() }, false);
  }

  /** The body may have reached the service, and no answer came. */
  uncertain(batch: Batch, error: string): void | Promise<void> {
    return this.appender.append({ type: 'uncertain', ...batch, error, at: this.now().toISOString() }, false);
  }

  /** Nothing of it was accepted (refused with an answer, or never connected): a re-run sends it. */
  failed(batch: Batch, error: string): void | Promise<void> {
    return this.appender.append({ type: 'failed', ...batch, error, at: this.now().toISOString() }, false);
  }

  done(): void | Promise<void> {
    return this.appender.append({ type: 'done', at: this.now().toISOString() }, true);
  }

  close(): void | Promise<void> {
    return this.appender.close();
  }
}

/** Marks an unfinished journal as left behind by a newer upload of the same path (warned once). */
export async function markSuperseded(store: Journals, name: string, by: string, now = new Date()): Promise<void> {
  const appender = store.open(name, () => ({ type: 'start', version: 1 }));
  try {
    await appender.append({ type: 'superseded', by, at: now.toISOString() }, true);
  } finally {
    await appender.close();
  }
}
