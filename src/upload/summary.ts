import type { WorkflowUpdateJson } from '../schemas/run-output.js';
import type { PreparedUpload, UploadOutcome } from './upload.js';

/** What a run of an upload came to, for its summary. */
export interface UploadRun {
  status: WorkflowUpdateJson['status'];
  /** ms since the epoch. */
  startedAt: number;
  endedAt: number;
  /** The outcome of pass 2, when it ran. */
  sent?: UploadOutcome;
  /** The error the run stopped with, if any. */
  stopped?: unknown;
}

/** The summary of an upload run: `workflow update`'s `--json` line (its schema: src/schemas/run-output.ts). */
export function uploadSummary(u: PreparedUpload, run: UploadRun): WorkflowUpdateJson {
  const { validation: v, batching } = u;
  const { sent, stopped } = run;
  const dryRun = u.options.dryRun;
  const earlier = u.earlier[0];
  return {
    status: run.status,
    startedAt: new Date(run.startedAt).toISOString(),
    endedAt: new Date(run.endedAt).toISOString(),
    workflowId: u.options.workflowId,
    file: u.options.path,
    sha256: u.fingerprint.sha256,
    rowsRead: v.rows,
    valid: v.valid,
    invalid: v.invalid,
    skipped: u.allowed ? v.invalid : 0,
    batchSize: batching.batchSize,
    batchesTotal: batching.totalBatches,
    batchesSent: sent?.batchesSent ?? 0,
    batchesResumed: batching.resumed.batches,
    entriesAcknowledged: sent?.entriesAcked ?? 0,
    sent: sent?.entriesAcked ?? 0,
    entriesResumed: batching.resumed.entries,
    serviceCount: sent?.serviceCount ?? 0,
    uncertain: (sent?.uncertain ?? batching.uncertain).map((b) => ({
      batch: b.index,
      firstLine: b.firstLine,
      lastLine: b.lastLine,
      entries: b.count,
    })),
    earlierUpload: earlier
      ? {
          journal: earlier.path,
          at: earlier.header?.at ?? '',
          batches: earlier.batches.length,
          entries: earlier.ackedEntries,
          line: earlier.acceptedLine,
        }
      : null,
    durationMs: Math.round(run.endedAt - run.startedAt),
    journal: dryRun ? null : u.journalPath,
    rejects: u.options.rejectsPath ?? null,
    problems: v.problems,
    problemCount: v.problemCount,
    ...(dryRun
      ? {
          batches: batching.batches.map(({ index, firstLine, lastLine, count }) => ({
            index,
            firstLine,
            lastLine,
            count,
          })),
        }
      : {}),
    error: stopped ? String((stopped as Error).message ?? stopped) : null,
  };
}
