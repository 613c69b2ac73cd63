import type { EventSummary } from './detect.js';
import type { EventType } from './event-types.js';

/*
 * The `--json` of serve-hooks and the hooks commands: callctl's own objects about the notifications
 * it received (not the service's bodies), which the commands write `satisfies` these types. Their
 * zod schemas (the help pages' shapes, and what the tests parse the output with) are in
 * test/helpers/output-schemas/hooks.ts; test/help/json-output-types.test-d.ts keeps both the same.
 * Counts, retries and HTTP statuses are integers.
 */

type Verdict = 'verified' | 'rejected' | 'unverified' | 'unsigned' | 'skipped' | 'unavailable';

/** The ids and status an event's body carries; absent when it has none. The callee is masked unless --show-numbers. */
type EventIds = EventSummary;

/** What callctl made of one received event, without its body (the log keeps it). */
interface EventLine extends EventIds {
  time: string;
  /** null: a request refused before its type could be known (not JSON, wrong type...). */
  type: EventType | null;
  verdict?: Verdict;
  /** The key that matched. */
  by?: string;
  reason?: string;
  warnings?: string[];
  duplicate: boolean;
  /** 0 for the first arrival, n for the service's retry n. */
  retry: number;
  /** The HTTP status answered (`status` is the event's own, from its body). */
  httpStatus: number;
}

/** `serve-hooks --json` (or piped): one line per event received. */
export interface ServeHooksLine extends EventLine {
  /** The event's number in this run (#n on a terminal). */
  seq: number;
  /** Present when the event is being forwarded (--forward-to). */
  forwarding?: true;
  skipVerify?: true;
}

/** What became of an event's forward (shared store). */
interface Forward {
  state: 'claimed' | 'done' | 'failed';
  owner?: string;
  status?: number;
  error?: string;
  attempts?: number;
  at?: string;
}

/** `hooks events --json`: one line per event. */
export interface HooksEventsLine extends EventLine {
  /** The id `hooks show` takes. */
  id: string;
  forward?: Forward;
}

/** `hooks show --json`: the whole record as kept, its ids, arrivals and forward. */
export interface HooksShowJson {
  id: string;
  store: string;
  v: 1;
  time: string;
  remote?: string;
  method: string;
  path: string;
  /** As recorded; secret ones redacted. */
  headers: Record<string, string>;
  /** As it came (the callee masked unless --show-numbers); base64 when `encoding` says so. */
  body?: string;
  encoding?: 'base64';
  bytes: number;
  type: EventType | null;
  verdict?: Verdict;
  by?: string;
  reason?: string;
  warnings?: string[];
  /** The event's identity across retries. */
  key?: string;
  duplicate: boolean;
  retry: number;
  /** The HTTP status answered (the event's own is `ids.status`). */
  status: number;
  truncated?: boolean;
  error?: string;
  ids: EventIds;
  /** How many times it arrived (retries included). */
  arrivals: number;
  forward: Forward | null;
}

/** `hooks replay --json` (or piped): one line per event sent again. */
export interface HooksReplayLine {
  time: string;
  type: EventType | null;
  /** The receiver's HTTP status; null when none came. */
  status: number | null;
  error?: string;
  attempts: number;
}

/** `hooks trigger --json`: the receiver's answer. */
export interface HooksTriggerJson {
  type: string;
  status: number;
  body: string;
  /** Milliseconds. */
  ms: number;
  tamper: 'sign' | 'body' | null;
}
