import { z } from 'zod';

/*
 * The zod schemas of the `--json` of the commands that go through a CSV file and of their dry runs:
 * the help pages' shapes are drawn from them (test/help/shape-table.ts) and the tests parse each
 * command's output with them. The types the commands write, and what each field means, are in
 * src/schemas/run-output.ts; test/help/json-output-types.test-d.ts fails to compile if a schema and
 * its type differ.
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
  sent: count,
  entriesResumed: count,
  serviceCount: count,
  uncertain: z.array(z.strictObject({ batch: count, firstLine: count, lastLine: count, entries: count })),
  earlierUpload: z
    .strictObject({ journal: z.string(), at: z.string(), batches: count, entries: count, line: count })
    .nullable(),
  durationMs: z.number(),
  journal: z.string().nullable(),
  rejects: z.string().nullable(),
  problems: z.array(problemSchema),
  problemCount: count,
  batches: z.array(z.strictObject({ index: count, firstLine: count, lastLine: count, count })).optional(),
  error: z.string().nullable(),
});

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

/** `push --dry-run --json` and `template send --dry-run --json` (with --csv, also `skipped`). */
export const sendDryRunJsonSchema = z.strictObject({
  dryRun: z.literal(true),
  requests: z.array(
    z.strictObject({
      method: z.literal('POST'),
      url: z.string(),
      headers: z.record(z.string(), z.string()),
      body: z.unknown(),
    }),
  ),
  skipped: z
    .array(z.strictObject({ row: count.optional(), line: count.optional(), who: z.string(), reachedAt: z.string() }))
    .optional(),
});

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
