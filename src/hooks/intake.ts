import { isUtf8 } from 'node:buffer';
import type { EventType } from '../schemas/events.js';
import { DEDUP_WINDOW_MS, dedupKey, seenKey, signPair } from '../store/dedup.js';
import {
  StoreUnavailable,
  type Appended,
  type EventStore,
  type ForwardClaim,
  type HookRecord,
  type PairMemory,
} from '../store/events.js';
import { detectType, schemaWarnings, summarize, type EventSummary } from '../schemas/detect.js';
import { jsonHazard } from '../json-guard.js';
import { createVerifier, type Verdict, type VerifyOptions } from './verify.js';

// The secret headers and their redaction are src/redact.ts's (one list for the whole program).
import { redactHeaders } from '../redact.js';

/** What the listener knows of a request before its body is judged. */
export interface RequestMeta {
  method: string;
  /** The path as it may be shown: a secret `--path` is never shown. */
  path: string;
  remote?: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface IntakeOptions extends VerifyOptions {
  /** `ack`: a bad or missing Sign is answered 200 (still recorded as rejected). Default `reject` (401). */
  onBadSign?: 'reject' | 'ack';
  /**
   * Refuse what is not proven: a schema problem (400), an event of unknown type (400), and an
   * event whose signature could not be checked or that the spec does not sign (401).
   */
  strict?: boolean;
  /** Where events are kept and recognised (Store.events, opened for writing). */
  store: EventStore;
  /**
   * Accepted events are claimed for forwarding when they are first appended, with the claim this
   * gives at that moment (the forwarder's: a lapsed one leaves the event to the first receiver with room).
   */
  forwardClaim?: () => ForwardClaim;
  now?: () => number;
  /** Refused requests recorded per second at most (a burst of twice that); the rest are counted. */
  refusedLogRate: number;
  /** Told how long each record took to be written durably, in seconds (a metric). */
  onWrite?: (seconds: number) => void;
}

/** A refused request's record keeps this many bytes of its body, no more. */
const REFUSED_PREFIX_BYTES = 256;
/** Bodies nesting deeper than this are answered 400 (the service's notifications nest a few levels). */
const MAX_JSON_DEPTH = 64;

/** What the listener counts about refused requests (shown by /healthz and on stop). */
export interface IntakeCounters {
  refused: number;
  /** Refused requests not recorded: over --refused-log-rate. */
  refusedUnlogged: number;
}

/** One judged request: what to answer, and what to record and show. */
export interface Outcome {
  status: number;
  /** The answer's body: `{}` for an accepted event, else `{"error": "..."}`. */
  reply: string;
  record: HookRecord;
  summary: EventSummary;
  /** What the store said of it (absent for a request refused before it was judged). */
  appended?: Appended;
  /** Refused and not recorded (over --refused-log-rate). */
  unlogged?: boolean;
}

/** The log could not be written: the request must not be acknowledged. */
export class LogWriteError extends Error {
  /** The event's type and verdict, when it was judged before its record failed (for the count of answers). */
  labels?: { type: string; verdict: string };
}

/**
 * Judges requests: parse, detect, validate, verify, recognise retries, record. Silent: it returns
 * outcomes and the listener answers and emits them.
 */
export class Intake {
  private readonly verify;
  readonly store: EventStore;
  private readonly now: () => number;
  /** Plan-end pairs: the shared store's memory, else this process's. */
  private readonly pairs: PairMemory;
  readonly counters: IntakeCounters = { refused: 0, refusedUnlogged: 0 };
  private tokens: number;
  private tokensAt = 0;

  constructor(private readonly options: IntakeOptions) {
    this.verify = createVerifier(options);
    this.store = options.store;
    this.now = options.now ?? Date.now;
    this.pairs = this.store.planPairs(historyWindowMs(options.maxAgeMs));
    this.tokens = 2 * options.refusedLogRate;
  }

  /**
   * A request refused before its body could be judged (405, 404, 413, 415, 400). Its record
   * keeps metadata and the first bytes only, and is written only within --refused-log-rate.
   */
  async refuse(meta: RequestMeta, status: number, error: string, raw?: Buffer): Promise<Outcome> {
    const record = this.baseRecord(meta, raw, null);
    Object.assign(record, { status, error });
    const logged = this.mayLogRefused();
    const appended = logged ? await this.write(record, undefined) : undefined;
    return {
      status,
      reply: JSON.stringify({ error }),
      record,
      summary: {},
      ...(appended ? { appended } : { unlogged: true }),
    };
  }

  /** Counts a refused request; whether its record may be written (a token bucket). */
  private mayLogRefused(): boolean {
    this.counters.refused += 1;
    const rate = this.options.refusedLogRate;
    const now = this.now();
    this.tokens = Math.min(2 * rate, this.tokens + (Math.max(0, now - this.tokensAt) / 1000) * rate);
    this.tokensAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.counters.refusedUnlogged += 1;
    return false;
  }

  /** A POST with an acceptable content type and size. */
  async accept(meta: RequestMeta, raw: Buffer): Promise<Outcome> {
    let body: unknown;
    const text = raw.toString('utf8');
    try {
      body = JSON.parse(text);
    } catch {
      return this.refuse(meta, 400, 'body is not JSON', raw);
    }
    // The sender's fault, said as such (400): never a 503 that asks for the same body again.
    const hazard = jsonHazard(text, MAX_JSON_DEPTH);
    if (hazard) return this.refuse(meta, 400, hazard, raw);
    const type = detectType(body);
    const warnings = schemaWarnings(type, body);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) warnings.push('body is not a JSON object');
    const sign = meta.headers['x-service-sign'];
    const pending = this.verify(type, body, Array.isArray(sign) ? sign[0] : sign, raw);
    let verdict: Verdict = pending instanceof Promise ? await pending : pending;
    const plainKey = dedupKey(type, body, raw);

    // Plan end: a verified Timestamp+Sign pair seen before with another event is a replay.
    const pair = type === 'plan.end' && verdict.state === 'verified' ? signPair(body) : undefined;
    if (pair !== undefined) {
      if (await this.asked(() => this.pairs.replay(pair, plainKey, this.now()))) {
        verdict = {
          state: 'rejected',
          reason: 'replay: this Timestamp and Sign came before with another PlanName or PlanDetails',
        };
      }
    }

    const { status, error } = this.judge(type, verdict, warnings);
    const key = seenKey(plainKey, status, verdict.state);
    const refused = status !== 200;
    const record = this.baseRecord(meta, raw, type, refused);
    // Set one by one (the order of the record's keys, as before): a spread object per request
    // made every record's shape different.
    record.verdict = verdict.state;
    if (verdict.by) record.by = verdict.by;
    if (verdict.reason) record.reason = verdict.reason;
    if (warnings.length) record.warnings = warnings;
    record.key = plainKey;
    record.status = status;
    // Claimed at once (a copy arriving meanwhile sees it), given back when the record fails.
    const undo =
      pair !== undefined && status === 200 && verdict.state === 'verified'
        ? await this.asked(() => this.pairs.claim(pair, plainKey, this.now()))
        : undefined;
    // The store counts the arrival and keeps the record in one step; it sets retry and duplicate.
    const forward = status === 200 && verdict.state !== 'rejected' ? this.options.forwardClaim?.() : undefined;
    const reply = status === 200 ? '{}' : JSON.stringify({ error });
    const summary = summarize(type, body);
    // A refused request past --refused-log-rate is answered and counted, not recorded.
    if (refused && !this.mayLogRefused()) return { status, reply, record, summary, unlogged: true };
    let appended: Appended;
    try {
      // The summary is the record's facts unless its body was cut short (then the store finds none).
      appended = await this.write(record, key, forward, record.truncated ? undefined : summary);
    } catch (e) {
      undo?.();
      if (e instanceof LogWriteError) e.labels = { type, verdict: verdict.state };
      throw e;
    }
    return { status, reply, record, summary, appended };
  }

  /** The status a judged event is answered with, and the error its reply names. */
  private judge(type: EventType, verdict: Verdict, warnings: string[]): { status: number; error?: string } {
    switch (verdict.state) {
      case 'unavailable':
        return { status: 503, error: `cannot verify now: ${verdict.reason}` };
      case 'rejected':
        return this.options.onBadSign === 'ack' ? { status: 200 } : { status: 401, error: verdict.reason };
    }
    if (this.options.strict) {
      if (type === 'unknown') return { status: 400, error: 'unknown event type (--strict)' };
      if (warnings.length) return { status: 400, error: warnings[0] };
      if (verdict.state === 'unsigned' || verdict.state === 'unverified')
        return { status: 401, error: `${verdict.state} event refused (--strict)` };
    }
    return { status: 200 };
  }

  private baseRecord(meta: RequestMeta, raw: Buffer | undefined, type: EventType | null, refused = true): HookRecord {
    const record: HookRecord = {
      v: 1,
      time: new Date(this.now()).toISOString(),
      // Undefined without a peer address: left out of the log line by JSON.stringify.
      remote: meta.remote || undefined,
      method: meta.method,
      path: meta.path,
      headers: redactHeaders(meta.headers),
      bytes: raw?.length ?? 0,
      type,
      duplicate: false,
      retry: 0,
      status: 0,
    };
    if (raw && raw.length > REFUSED_PREFIX_BYTES && refused) {
      // A refused request keeps its first bytes only: junk must not fill the disk.
      raw = raw.subarray(0, REFUSED_PREFIX_BYTES);
      record.truncated = true;
    }
    if (raw && raw.length > 0) {
      if (isUtf8(raw)) record.body = raw.toString('utf8');
      else Object.assign(record, { body: raw.toString('base64'), encoding: 'base64' });
    }
    return record;
  }

  /** Asks the pair memory: a shared store that cannot answer is an outage (503, said once). */
  private async asked<T>(ask: () => T | Promise<T>): Promise<T> {
    try {
      return await ask();
    } catch (error) {
      throw error instanceof StoreUnavailable ? new LogWriteError(error.message) : error;
    }
  }

  private async write(
    record: HookRecord,
    key: string | undefined,
    forward?: ForwardClaim,
    facts?: EventSummary,
  ): Promise<Appended> {
    const started = this.options.onWrite ? performance.now() : 0;
    try {
      const appended = await this.store.append(record, key, forward, facts);
      this.options.onWrite?.((performance.now() - started) / 1000);
      return appended;
    } catch (error) {
      throw new LogWriteError(
        error instanceof StoreUnavailable
          ? error.message
          : `cannot write the event log: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  }
}

/**
 * How far back records are remembered: the dedup window, or twice the plan-end freshness window
 * when that is longer (a plan Timestamp is accepted for that long, so its Sign pair must be known).
 */
export function historyWindowMs(maxAgeMs: number): number {
  return Math.max(DEDUP_WINDOW_MS, 2 * maxAgeMs);
}
