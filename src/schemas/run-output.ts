import { z } from 'zod';

/*
 * The `--json` of the commands that go through a CSV file (a *run*: workflow update, push --csv,
 * template send --csv) and of their dry runs: callctl's own summaries. The commands write them
 * with `satisfies` these types; the help pages show the shapes (src/help/json-shapes.ts) and
 * test/help/json-shapes.test.ts checks each command against them.
 */

const count = z.number().int();

/** A problem with one piece of input (src/csv/problems.ts). */
const problemSchema = z.strictObject({ line: count.optional(), column: z.string().optional(), message: z.string() });

/** `workflow update --json`: one line once the file is checked (also when the run fails or stops). */
export const workflowUpdateJsonSchema = z.strictObject({
  status: z.enum(['done', 'dry-run', 'invalid', 'failed', 'interrupted']),
  startedAt: z.string(),
  endedAt: z.string(),
  workflowId: z.string(),
  file: z.string(),
  sha256: z.string(),
  rowsRead: count,
  valid: count,
  invalid: count,
  skipped: count,
  batchSize: count,
  batchesTotal: count,
  batchesSent: count,
  batchesResumed: count,
  entriesAcknowledged: count,
  /** Entries sent and accepted in this run (= entriesAcknowledged), beside the service's count. */
  sent: count,
  entriesResumed: count,
  /** The service's `count`, summed over the batches it accepted in this run. */
  serviceCount: count,
  /** Batches that may have reached the service and were not sent again. */
  uncertain: z.array(z.strictObject({ batch: count, firstLine: count, lastLine: count, entries: count })),
  /** A stopped upload of the same path (other content) that this one went ahead of. */
  earlierUpload: z
    .strictObject({ journal: z.string(), at: z.string(), batches: count, entries: count, line: count })
    .nullable(),
  durationMs: z.number(),
  journal: z.string().nullable(),
  rejects: z.string().nullable(),
  /** The first problems (LISTED_PROBLEMS); problemCount says how many in all. */
  problems: z.array(problemSchema),
  problemCount: count,
  /** --dry-run only: the batches it would send. */
  batches: z.array(z.strictObject({ index: count, firstLine: count, lastLine: count, count })).optional(),
  error: z.string().nullable(),
});
export type WorkflowUpdateJson = z.infer<typeof workflowUpdateJsonSchema>;

/** `push --csv --json` and `template send --csv --json`: one line when the run ends. */
export const csvSendJsonSchema = z.strictObject({
  startedAt: z.string(),
  endedAt: z.string(),
  file: z.string(),
  results: z.string(),
  journal: z.string(),
  rows: count,
  valid: count,
  invalid: count,
  total: count,
  sent: count,
  failed: count,
  uncertain: count,
  skipped: count,
  thisRun: z.strictObject({ sent: count, failed: count, uncertain: count }),
  uncertainRows: z.array(count),
  stopped: z.strictObject({ reason: z.enum(['interrupted', 'network', 'failures']), message: z.string() }).nullable(),
});
export type CsvSendJson = z.infer<typeof csvSendJsonSchema>;

/** `push --dry-run --json` and `template send --dry-run --json` (with --csv, also `skipped`). */
export const sendDryRunJsonSchema = z.strictObject({
  dryRun: z.literal(true),
  requests: z.array(
    z.strictObject({
      method: z.literal('POST'),
      url: z.string(),
      headers: z.record(z.string(), z.string()),
      /** The body as JSON (its text when it is not JSON); secrets redacted. */
      body: z.unknown(),
    }),
  ),
  /** --csv: rows the ledger would skip (reached through this destination within --recall-window). */
  skipped: z
    .array(z.strictObject({ row: count.optional(), line: count.optional(), who: z.string(), reachedAt: z.string() }))
    .optional(),
});
export type SendDryRunJson = z.infer<typeof sendDryRunJsonSchema>;

/**
 * `push --json` and `template send --json` (one person) when the never-twice ledger kept the send
 * back: the person was reached through the destination within --recall-window; nothing was sent.
 */
export const sendSkippedJsonSchema = z.strictObject({
  skipped: z.literal(true),
  who: z.string(),
  destination: z.string(),
  reachedAt: z.string(),
});
export type SendSkippedJson = z.infer<typeof sendSkippedJsonSchema>;
