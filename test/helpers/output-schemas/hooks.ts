import { z } from 'zod';
import { EVENT_TYPES } from '../../../src/schemas/event-types.js';

/*
 * The zod schemas of the `--json` of serve-hooks and the hooks commands: the help pages' shapes are
 * drawn from them (test/help/shape-table.ts) and the tests parse each command's output with them.
 * The types the commands write, and what each field means, are in src/schemas/hooks-output.ts;
 * test/help/json-output-types.test-d.ts fails to compile if a schema and its type differ.
 */

const count = z.number().int();
/** null: a request refused before its type could be known (not JSON, wrong type...). */
const eventType = z.enum(EVENT_TYPES).nullable();
const verdict = z.enum(['verified', 'rejected', 'unverified', 'unsigned', 'skipped', 'unavailable']);

/** The ids and status an event's body carries (src/schemas/detect.ts EventSummary); absent when it has none. */
const idsShape = {
  plan: z.string().optional(),
  task: z.string().optional(),
  name: z.string().optional(),
  workflow: z.string().optional(),
  node: z.string().optional(),
  call: z.string().optional(),
  msg: z.string().optional(),
  channel: z.string().optional(),
  callee: z.string().optional(),
  status: z.string().optional(),
  rounds: z.number().optional(),
};

/** What callctl made of one received event, without its body (the log keeps it). */
const eventShape = {
  time: z.string(),
  type: eventType,
  ...idsShape,
  verdict: verdict.optional(),
  by: z.string().optional(),
  reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  duplicate: z.boolean(),
  retry: count,
  httpStatus: count,
};

/** `serve-hooks --json` (or piped): one line per event received. */
export const serveHooksLineSchema = z.strictObject({
  seq: count,
  ...eventShape,
  forwarding: z.literal(true).optional(),
  skipVerify: z.literal(true).optional(),
});

/** What became of an event's forward (shared store). */
const forwardSchema = z.strictObject({
  state: z.enum(['claimed', 'done', 'failed']),
  owner: z.string().optional(),
  status: count.optional(),
  error: z.string().optional(),
  attempts: count.optional(),
  at: z.string().optional(),
});

/** `hooks events --json`: one line per event. */
export const hooksEventsLineSchema = z.strictObject({
  id: z.string(),
  ...eventShape,
  forward: forwardSchema.optional(),
});

/** `hooks show --json`: the whole record as kept, its ids, arrivals and forward. */
export const hooksShowJsonSchema = z.strictObject({
  id: z.string(),
  store: z.string(),
  v: z.literal(1),
  time: z.string(),
  remote: z.string().optional(),
  method: z.string(),
  path: z.string(),
  headers: z.record(z.string(), z.string()),
  body: z.string().optional(),
  encoding: z.literal('base64').optional(),
  bytes: count,
  type: eventType,
  verdict: verdict.optional(),
  by: z.string().optional(),
  reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  key: z.string().optional(),
  duplicate: z.boolean(),
  retry: count,
  status: count,
  truncated: z.boolean().optional(),
  error: z.string().optional(),
  ids: z.strictObject(idsShape),
  arrivals: count,
  forward: forwardSchema.nullable(),
});

/** `hooks replay --json` (or piped): one line per event sent again. */
export const hooksReplayLineSchema = z.strictObject({
  time: z.string(),
  type: eventType,
  status: count.nullable(),
  error: z.string().optional(),
  attempts: count,
});

/** `hooks trigger --json`: the receiver's answer. */
export const hooksTriggerJsonSchema = z.strictObject({
  type: z.string(),
  status: count,
  body: z.string(),
  ms: z.number(),
  tamper: z.enum(['sign', 'body']).nullable(),
});
