import type { Batch } from '../store/upload-journal.js';
import type { Problem } from '../csv/problems.js';

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
  /** Batches to send in this run. */
  batches: Batch[];
  /** Entries to send in this run. */
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
  | { type: 'fingerprint'; sha256: string; bytes: number }
  /** A lock left by a process that is gone was taken over. */
  | { type: 'stale-lock'; pid: number; path: string }
  /**
   * An earlier run of the same upload acknowledged some batches: this run continues after them
   * (`doneAt`: that upload completed, so nothing is left to send).
   */
  | { type: 'resume'; batches: number; entries: number; line: number; journal: string; doneAt?: string }
  /** Pass 1 progress: every few thousand rows, and once at the end. */
  | { type: 'read'; rows: number; valid: number; invalid: number; bytes: number; totalBytes: number }
  | { type: 'validated'; validation: Validation; batching: Batching }
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
  | { type: 'sending'; batch: Batch; total: number }
  | { type: 'sent'; batch: Batch; total: number; acked: number; entriesSent: number; entriesToSend: number };
