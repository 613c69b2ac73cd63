import { z } from 'zod';
import { EVENT_TYPES } from './events.js';

/*
 * The `--json` of serve-hooks and the hooks commands: callctl's own objects about the
 * notifications it received (not the service's bodies). The commands write them with `satisfies`
 * these types; the help pages show the shapes (src/help/json-shapes.ts) and
 * test/help/json-shapes.test.ts checks each command against them.
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
  /** Masked unless --show-numbers. */
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
  /** The key that matched. */
  by: z.string().optional(),
  reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  duplicate: z.boolean(),
  /** 0 for the first arrival, n for the service's retry n. */
  retry: count,
  /** The HTTP status answered (`status` is the event's own, from its body). */
  httpStatus: count,
};

/** `serve-hooks --json` (or piped): one line per event received. */
export const serveHooksLineSchema = z.strictObject({
  /** The event's number in this run (#n on a terminal). */
  seq: count,
  ...eventShape,
  /** Present when the event is being forwarded (--forward-to). */
  forwarding: z.literal(true).optional(),
  skipVerify: z.literal(true).optional(),
});
export type ServeHooksLine = z.infer<typeof serveHooksLineSchema>;

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
  /** The id `hooks show` takes. */
  id: z.string(),
  ...eventShape,
  forward: forwardSchema.optional(),
});
export type HooksEventsLine = z.infer<typeof hooksEventsLineSchema>;

/** `hooks show --json`: the whole record as kept, its ids, arrivals and forward. */
export const hooksShowJsonSchema = z.strictObject({
  id: z.string(),
  store: z.string(),
  v: z.literal(1),
  time: z.string(),
  remote: z.string().optional(),
  method: z.string(),
  path: z.string(),
  /** As recorded; secret ones redacted. */
  headers: z.record(z.string(), z.string()),
  /** As it came (the callee masked unless --show-numbers); base64 when `encoding` says so. */
  body: z.string().optional(),
  encoding: z.literal('base64').optional(),
  bytes: count,
  type: eventType,
  verdict: verdict.optional(),
  by: z.string().optional(),
  reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  /** The event's identity across retries. */
  key: z.string().optional(),
  duplicate: z.boolean(),
  retry: count,
  /** The HTTP status answered (the event's own is `ids.status`). */
  status: count,
  truncated: z.boolean().optional(),
  error: z.string().optional(),
  ids: z.strictObject(idsShape),
  /** How many times it arrived (retries included). */
  arrivals: count,
  forward: forwardSchema.nullable(),
});
export type HooksShowJson = z.infer<typeof hooksShowJsonSchema>;

/** `hooks replay --json` (or piped): one line per event sent again. */
export const hooksReplayLineSchema = z.strictObject({
  time: z.string(),
  type: eventType,
  /** The receiver's HTTP status; null when none came. */
  status: count.nullable(),
  error: z.string().optional(),
  attempts: count,
});
export type HooksReplayLine = z.infer<typeof hooksReplayLineSchema>;

/** `hooks trigger --json`: the receiver's answer. */
export const hooksTriggerJsonSchema = z.strictObject({
  type: z.string(),
  status: count,
  body: z.string(),
  ms: z.number(),
  tamper: z.enum(['sign', 'body']).nullable(),
});
export type HooksTriggerJson = z.infer<typeof hooksTriggerJsonSchema>;
