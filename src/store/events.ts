import { setTimeout as sleep } from 'node:timers/promises';
import type { EventType } from '../schemas/events.js';
import type { EventSummary } from '../schemas/detect.js';

/**
 * What callctl can say about an event's authenticity:
 * - `verified`: a signature matched (`by` says which key, or `secret` / `command`);
 * - `rejected`: a signature was required and is missing or wrong;
 * - `unverified`: signed by the sender, but callctl has nothing to check it with;
 * - `unsigned`: the spec does not sign this type;
 * - `skipped`: `--skip-verify` was given;
 * - `unavailable`: a verification method is configured but could not answer (the sign command
 *   failed, timed out or printed nothing). Fail closed: such an event is refused with 503 (the
 *   fault is ours, so the service sends it again) and never forwarded.
 */
export type VerdictState = 'verified' | 'rejected' | 'unverified' | 'unsigned' | 'skipped' | 'unavailable';

/**
 * One request as it arrived and the answer it got: a line of an NDJSON log, a row's `record` in
 * PostgreSQL. The body is the exact bytes (`encoding: 'base64'` when they are not UTF-8), so replay
 * is byte for byte. Secret headers are redacted before the record is made.
 */
export interface HookRecord {
  v: 1;
  /** Receive time, ISO 8601 with milliseconds. */
  time: string;
  remote?: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  encoding?: 'base64';
  bytes: number;
  /** `null` for a request refused before its type could be known (not JSON, wrong type...). */
  type: EventType | null;
  verdict?: VerdictState;
  by?: string;
  reason?: string;
  warnings?: string[];
  /** The event's identity across retries (see dedupKey). */
  key?: string;
  duplicate: boolean;
  /** 0 for the first arrival, n for the service's retry n. */
  retry: number;
  /** The HTTP status answered. */
  status: number;
  /** The body kept is only the first bytes (a refused request; `bytes` says how many came). */
  truncated?: boolean;
  /** Why a request was refused (4xx other than a bad signature). */
  error?: string;
  /** Its number in an NDJSON log (files store), given as it is written; ids of a database's rows are their own. */
  n?: number;
}

/** The exact bytes of a recorded body. */
export function recordBody(record: HookRecord): Buffer {
  if (record.body === undefined) return Buffer.alloc(0);
  return Buffer.from(record.body, record.encoding === 'base64' ? 'base64' : 'utf8');
}

/**
 * Where serve-hooks keeps what arrived, and how several receivers agree on it: the files store's
 * (an NDJSON file, or nothing, plus dedup in this process's memory) or a database's (shared by
 * every receiver that names it). Opened by Store.events.
 *
 * The rules every implementation keeps: an event counts as seen only once it is
 * durably written, so an append that fails leaves no trace a retry could be mistaken for; and an
 * append that cannot be written rejects, so the request is never acknowledged.
 */
export interface EventStore {
  /** What to show of where the store is: a path, or a URL without its password. */
  readonly where: string;
  /**
   * Several receivers share it: a forward is claimed by one of them and may be taken over by
   * another, events past a full forward queue are left for any receiver, and what became of each
   * forward is recorded. Not shared: one process, which claims every forward it appends.
   */
  readonly shared: boolean;
  /** Where appends go, as metrics name it: a database (`store`), a file (`log`), or nowhere (`memory`). */
  readonly writesTo: 'store' | 'log' | 'memory';
  /**
   * What serve-hooks says of it as it starts (`store URL`, `log FILE (fsync), 3 recent records
   * remembered`, `no log`), and what opening it found and mended, one line each.
   */
  readonly summary: string;
  readonly notices: readonly string[];
  /**
   * Writes one record durably and says, atomically with the write, whether its event is new or
   * the n-th arrival: `retry` 0 for the first, n for the service's retry n (within the dedup
   * window, across every receiver sharing the store). `seenKey` is the identity as remembered
   * (good events apart from refused ones); absent for a request refused before it was judged.
   * The record's `retry` and `duplicate` are set from the answer before it is written.
   * `forward` asks for the event to be claimed for forwarding by `owner` in the same step.
   * `facts` are the record's ids (recordFacts) when the caller has them already, saving a parse.
   */
  append(
    record: HookRecord,
    seenKey: string | undefined,
    forward?: ForwardClaim,
    facts?: EventSummary,
  ): Promise<Appended>;
  /**
   * Claims the forwarding of an event whose earlier forward failed (the service's retry then
   * gets it sent on again): the event forwarded (its first arrival) when this caller now holds
   * it, else undefined.
   */
  reclaimFailed(appended: Appended, claim: ForwardClaim): Promise<Forwarded | undefined>;
  /**
   * Extends this owner's claim on an event's forward by its lease, as the forward starts, and
   * counts the attempt about to be made (before it is made: one whose outcome is never recorded
   * still counts); resolves with that attempt's number, or false when the claim is no longer this
   * owner's (its lease ran out and another took it over). With `count` false only the lease is
   * extended (a forward still under way), and the number is the last attempt's.
   */
  renewClaim(id: string, claim: ForwardClaim, count?: boolean): Promise<number | false>;
  /** Records how the forward of an event ended (`attempts`: in all) and releases the claim. */
  finishForward(id: string, owner: string, result: ForwardResult): Promise<void>;
  /**
   * Events whose forward was claimed by an instance that did not finish it within its lease
   * (it died, say), now claimed by `claim.owner`. The embedded store has none: one process.
   */
  takeAbandoned(claim: ForwardClaim, limit: number): Promise<StoredEvent[]>;
  /**
   * Shared store: the forwards claimed by no live receiver now (lapsed claims: events left past a
   * full queue, or held by a receiver that died), how many and when the oldest was received.
   */
  waitingForwards?(): Promise<{ count: number; oldest?: Date }>;
  /** Events matching `filter`, oldest first, after position `after` (exclusive) when given. */
  read(filter: EventFilter, after?: string): AsyncGenerator<StoredEvent>;
  /** NDJSON: lines of the file that did not read as records in the reads so far (skipped). */
  readonly skipped?: number;
  /**
   * One page of the events matching `filter`, newest first (the inspector's list): what it costs
   * does not grow with the store, and `newest` is the store's last id, matching or not.
   */
  page(filter: EventFilter, cursor: PageCursor): Promise<EventPage>;
  get(id: string): Promise<StoredEvent | undefined>;
  /**
   * Waits until events may have arrived after the last read (LISTEN/NOTIFY or a file watch);
   * resolves false when `signal` aborts.
   */
  waitForMore(signal: AbortSignal): Promise<boolean>;
  /**
   * Why a record could not be written now (the store unreachable, the log's disk full), or
   * undefined when it could: readiness, asked without writing a record.
   */
  ready(): Promise<string | undefined>;
  /**
   * SIGHUP: a file the store writes is opened again at its path (logrotate moved it away), and
   * what was done is said; absent where nothing is reopened (a database).
   */
  reopen?(): { ok: boolean; message: string } | undefined;
  /**
   * The memory of plan-end pairs, remembered for `windowMs`: a shared store's is every receiver's,
   * the files store's this process's (with the pairs of the log's recent records).
   */
  planPairs(windowMs: number): PairMemory;
  /** The record that starts at `offset` in a file (an append's `offset`), when the store can read it so. */
  readAt?(offset: number): HookRecord | undefined;
  /** The typed error (src/errors.ts) a read that failed half-way becomes, naming the store. */
  readFailure(error: unknown): Error;
  close(): Promise<void>;
}

/**
 * Plan-end replay protection's memory: which events (identities) each `Timestamp`+`Sign` pair came
 * with, and when first (see SignPairs, the files store's, in this process's memory). Answers may
 * come at once or later (a shared store asks its database); a store that cannot answer rejects
 * with StoreUnavailable.
 */
export interface PairMemory {
  /** Whether `key` arriving under `pair` now is a replay (the pair came before with others only). */
  replay(pair: string, key: string, now: number): boolean | Promise<boolean>;
  /** Records the pair for `key`; resolves with an undo for a record that could not be written. */
  claim(pair: string, key: string, now: number): (() => void) | Promise<() => void>;
}

export interface Appended {
  /** The stored event's id (PostgreSQL: a number; NDJSON: the record's number in the file). */
  id: string;
  retry: number;
  /** The id of the first arrival of this event (itself when new). */
  firstId: string;
  /** True when this append also claimed the forwarding of the event. */
  claimed: boolean;
  /**
   * Claimed with a lapsed lease (the claim past this receiver's forward queue): left in the
   * shared store for the first receiver with room, which takes it as an abandoned forward.
   */
  left?: boolean;
  /** The attempt this append counted for its claim (the first), when it counted one (shared store). */
  attempt?: number;
  seenKey?: string;
  /** NDJSON with a file: where the record starts in it (a deferred forward reads it back from there). */
  offset?: number;
}

export interface ForwardClaim {
  /** Who forwards: one id per serve-hooks process. */
  owner: string;
  /** How long the claim holds without being finished before another may take it. */
  leaseMs: number;
}

/** The event a forward carries: its first arrival's id and receive time (together, its stable id). */
export interface Forwarded {
  id: string;
  time: string;
}

export interface ForwardResult {
  ok: boolean;
  status?: number;
  error?: string;
  attempts: number;
}

/** One recorded request as read back, with where it is and what became of its forward. */
export interface StoredEvent {
  id: string;
  record: HookRecord;
  forward?: {
    state: 'claimed' | 'done' | 'failed';
    owner?: string;
    status?: number;
    error?: string;
    attempts?: number;
    at?: string;
  };
}

/** What `hooks events` can ask for; every field narrows. */
export interface EventFilter {
  types?: ReadonlySet<EventType | 'refused'>;
  /** ms since the epoch, inclusive. */
  since?: number;
  /** ms since the epoch, exclusive. */
  until?: number;
  plan?: string;
  task?: string;
  callee?: string;
  verdicts?: ReadonlySet<string>;
  /** The event's identity (the record's `key`): every arrival of one event. */
  key?: string;
  /** `true`: only retries; `false`: only first arrivals. */
  retries?: boolean;
  limit?: number;
}

/** Where a page starts: before or after an id (exclusive), and how many events at most. */
export interface PageCursor {
  before?: string;
  after?: string;
  limit: number;
}

export interface EventPage {
  /** Newest first. */
  events: StoredEvent[];
  /** The store's last id ('0' when empty). */
  newest: string;
  /** Whether more matching events come after the page (older ones, or ones left out by `limit`). */
  more: boolean;
}

/** The store cannot be reached or refused the write: the request must not be acknowledged. */
export class StoreUnavailable extends Error {}

/** An error as one short line (with its code, when the text does not say it), without a URL's password. */
export function oneLine(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const text = (e.message ?? String(error)).split('\n')[0]!.slice(0, 200);
  return e.code && !text.includes(e.code) ? `${text} (${e.code})` : text;
}

/**
 * Looks every `everyMs` until `changed` says so (true), or `signal` aborts (false): how a reader
 * follows a store as it grows (a file's size, a table's last id).
 */
export async function pollUntil(
  signal: AbortSignal,
  everyMs: number,
  changed: () => boolean | Promise<boolean>,
): Promise<boolean> {
  while (!signal.aborted) {
    await sleep(everyMs, undefined, { signal }).catch(() => undefined);
    if (!signal.aborted && (await changed())) return true;
  }
  return false;
}
