import type { Destination } from '../store/destination.js';
import type { Store } from '../store/store.js';
import type { Batch } from '../store/upload-journal.js';
import type { Problem } from '../csv/problems.js';

/** One upload of a contact CSV to a workflow, as the command decided it before the run. */
export interface UploadPlan {
  /** The file as the user named it (for messages). */
  file: string;
  /** Its absolute path. */
  path: string;
  workflowId: string;
  /**
   * The service and account the contacts go to: the journal is theirs alone. Absent only for a dry
   * run that knows no base URL or APPKey: it then plans the file as a first upload.
   */
  destination?: Destination;
  delimiter: string;
  keepEmpty: boolean;
  /** Region of callees written as national numbers; such a number is refused without one. */
  region?: string;
  /** Entries per request, at most MAX_ENTRIES_PER_UPDATE (the command checks). */
  batchSize: number;
  /** Invalid rows that may be skipped; more than this and nothing is sent. */
  maxInvalid: number;
  /** Where to write every rejected row, when asked (an absolute path). */
  rejectsPath?: string;
  /** Ignore the journal: send every batch again. */
  restart: boolean;
  /** Send again the batches an earlier run left uncertain (with no caseid on every entry). */
  resendUncertain: boolean;
  /** Where spool files go (the cache folder). */
  spoolDir: string;
  /** Read, check and batch; take no lock, write no journal, spool nothing, send nothing. */
  dryRun: boolean;
}

/** Sends one batch (its entries as a JSON array's text); resolves with the envelope's data. */
export type SendBatch = (details: Buffer, batch: Batch) => Promise<{ workflow_id?: string; count: number }>;

/** What the command lends the engine. */
export interface UploadRun {
  /** The run's store: the upload's journal and lock. */
  store: Store;
  /** Asked once, only when there are batches to send and not on a dry run; false: declined. */
  confirm(batching: Batching): Promise<boolean>;
  onEvent(event: UploadEvent): void;
  /**
   * Aborted: while the file is read, the read stops; while sending, the batch in flight is
   * finished and journaled, and the run stops. Nothing is sent once it is aborted.
   */
  signal?: AbortSignal;
  /** The request (never retried by the transport once the body may have gone out: the engine decides). */
  sendBatch: SendBatch;
  /** Waits between tries of an uncertain batch whose entries all carry caseid. */
  sleep(ms: number): Promise<void>;
}

/** What pass 1 found. */
export interface Validation {
  /** Data rows read (blank lines excluded). */
  rows: number;
  valid: number;
  invalid: number;
  /** The first problems (LISTED_PROBLEMS of them), in file order. */
  problems: Problem[];
  /** Every problem found (a row may have several). */
  problemCount: number;
}

/** What this run sends, and what earlier runs of the same upload already sent. */
export interface Batching {
  batchSize: number;
  batches: Batch[];
  entries: number;
  /** Acknowledged by earlier runs (the journal): not sent again. */
  resumed: { batches: number; entries: number; line: number; serviceCount: number };
  /** Batches an earlier run left uncertain that this run does not send (no caseid, not asked). */
  uncertain: Array<Batch & { at: string; error: string }>;
  /** resumed.batches + batches.length. */
  totalBatches: number;
}

/**
 * What the uploader tells as it works (the core never prints: the command renders these).
 */
export type UploadEvent =
  /** A lock left by a process that is gone was taken over. */
  | { type: 'stale-lock'; pid: number; path: string }
  /**
   * An earlier run of the same upload acknowledged some batches: this run continues after them
   * (`doneAt`: that upload completed, so nothing is left to send).
   */
  | { type: 'resume'; batches: number; entries: number; line: number; journal: string; doneAt?: string }
  /** Pass 1 progress: every few thousand rows, and once at the end. */
  | { type: 'read'; rows: number; valid: number; invalid: number; bytes: number; totalBytes: number }
  | { type: 'validated'; validation: Validation; batching: Batching; allowed: boolean }
  /** An unfinished upload of the same path with other content: this new one goes ahead; that one is named. */
  | {
      type: 'earlier-upload';
      journal: string;
      at: string;
      startedAt: string;
      batches: number;
      entries: number;
      line: number;
    }
  /** An earlier run's uncertain batch is sent again: its entries all carry caseid, or --resend-uncertain. */
  | { type: 'resend-uncertain'; batch: Batch; reason: 'caseid' | 'asked' }
  /** An earlier run's uncertain batch is left out (no caseid on every entry, no --resend-uncertain). */
  | { type: 'uncertain-kept'; batch: Batch & { at: string; error: string } }
  /** The connection failed after the body went out; every entry carries caseid, so it is sent again. */
  | { type: 'retry-uncertain'; batch: Batch; attempt: number; of: number; waitMs: number; error: string }
  /** The service accepted a batch with a `count` other than its entries (a warning, not a failure). */
  | { type: 'count-differs'; batch: Batch; count: number }
  | { type: 'other-workflow'; batch: Batch; workflowId: string }
  /** Confirmed: pass 2 begins (a signal from now on stops after the batch in flight). */
  | { type: 'send' }
  | { type: 'sending'; batch: Batch; total: number }
  | { type: 'sent'; batch: Batch; total: number; acked: number; entriesSent: number; entriesToSend: number };

/** What the check of the file found, and what the run would send: the summary's matter. */
export interface UploadReport {
  sha256: string;
  validation: Validation;
  batching: Batching;
  /** Within --max-invalid, with at least one valid row. */
  allowed: boolean;
  /** Where the journal is (also on a dry run, which writes none). */
  journal: string;
  /** An unfinished upload of the same path with other content that this one goes ahead of. */
  earlier?: { journal: string; at: string; batches: number; entries: number; line: number };
}

/** What pass 2 came to. */
export interface Sent {
  batchesSent: number;
  entriesAcked: number;
  /** The service's `count`, summed over those batches (information, not a verdict). */
  serviceCount: number;
  /** Batches that may have reached the service, not sent again (this run's and earlier ones'). */
  uncertain: Batch[];
  /** Stopped between batches: the signal was aborted. */
  interrupted: boolean;
  /** Why the run stopped before the end (the command says what it means and what to do). */
  stop?: UploadStop;
}

/**
 * Why an upload stopped: batches that may have reached the service with no answer (not sent
 * again by themselves), or a batch that failed with nothing of it taken (`error`: the
 * transport's or the service's own typed error).
 */
export type UploadStop =
  | { kind: 'uncertain'; batches: readonly Batch[]; totalBatches: number; why?: string }
  | { kind: 'failed'; error: unknown; batch: Batch; totalBatches: number; ackedBatches: number; ackedEntries: number };

export type UploadOutcome =
  /** Stopped by the signal before anything was sent: while the file was read, after, or once confirmed. */
  | { kind: 'stopped'; when: 'reading' | 'read' | 'confirmed' }
  | { kind: 'declined' }
  /** Checked and not sent: a dry run, or rows beyond --max-invalid (`report.allowed` false). */
  | { kind: 'checked'; report: UploadReport }
  | { kind: 'sent'; report: UploadReport; sent: Sent };
