/*
 * The `--json` of the commands that go through a CSV file (a *run*: workflow update, push --csv,
 * template send --csv) and of their dry runs: callctl's own summaries, which the commands write
 * `satisfies` these types. Their zod schemas (the help pages' shapes, and what the tests parse the
 * output with) are in test/helpers/output-schemas/run.ts; test/help/json-output-types.test-d.ts
 * keeps both the same. Counts, rows, lines and batch numbers are integers.
 */

/** A problem with one piece of input (src/csv/problems.ts). */
type Problem = { line?: number; column?: string; message: string };

/** `workflow update --json`: one line once the file is checked (also when the run fails or stops). */
export interface WorkflowUpdateJson {
  status: 'done' | 'dry-run' | 'invalid' | 'failed' | 'interrupted';
  startedAt: string;
  endedAt: string;
  workflowId: string;
  file: string;
  sha256: string;
  rowsRead: number;
  valid: number;
  invalid: number;
  skipped: number;
  batchSize: number;
  batchesTotal: number;
  batchesSent: number;
  batchesResumed: number;
  entriesAcknowledged: number;
  /** Entries sent and accepted in this run (= entriesAcknowledged), beside the service's count. */
  sent: number;
  entriesResumed: number;
  /** The service's `count`, summed over the batches it accepted in this run. */
  serviceCount: number;
  /** Batches that may have reached the service and were not sent again. */
  uncertain: Array<{ batch: number; firstLine: number; lastLine: number; entries: number }>;
  /** A stopped upload of the same path (other content) that this one went ahead of. */
  earlierUpload: { journal: string; at: string; batches: number; entries: number; line: number } | null;
  durationMs: number;
  journal: string | null;
  rejects: string | null;
  /** The first problems (LISTED_PROBLEMS); problemCount says how many in all. */
  problems: Problem[];
  problemCount: number;
  /** --dry-run only: the batches it would send. */
  batches?: Array<{ index: number; firstLine: number; lastLine: number; count: number }>;
  error: string | null;
}

type SentCounts = { sent: number; failed: number; uncertain: number };

/** `push --csv --json` and `template send --csv --json`: one line when the run ends. */
export interface CsvSendJson extends SentCounts {
  startedAt: string;
  endedAt: string;
  file: string;
  results: string;
  journal: string;
  rows: number;
  valid: number;
  invalid: number;
  total: number;
  skipped: number;
  thisRun: SentCounts;
  uncertainRows: number[];
  stopped: { reason: 'interrupted' | 'network' | 'failures'; message: string } | null;
}

/** `push --dry-run --json` and `template send --dry-run --json` (with --csv, also `skipped`). */
export interface SendDryRunJson {
  dryRun: true;
  requests: Array<{
    method: 'POST';
    url: string;
    headers: Record<string, string>;
    /** The body as JSON (its text when it is not JSON); secrets redacted. */
    body: unknown;
  }>;
  /** --csv: rows the ledger would skip (reached through this destination within --recall-window). */
  skipped?: Array<{ row?: number; line?: number; who: string; reachedAt: string }>;
}

/**
 * `push --json` and `template send --json` (one person) when the never-twice ledger kept the send
 * back: the person was reached through the destination within --recall-window; nothing was sent.
 */
export interface SendSkippedJson {
  skipped: true;
  who: string;
  destination: string;
  reachedAt: string;
}
