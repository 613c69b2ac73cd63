import { createHash } from 'node:crypto';

/**
 * How long a seen event is remembered as a possible retry. The service retries task end up to 5
 * times a minute apart; 15 minutes covers that with room to spare.
 */
export const DEDUP_WINDOW_MS = 15 * 60_000;
/** The dedup store forgets its oldest keys beyond this many, so a flood cannot exhaust memory. */
export const DEDUP_MAX_KEYS = 500_000;
import type { EventType } from '../schemas/events.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const part = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);

/** JSON with object keys sorted at every level: the same content gives the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const o = value as Obj;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * The identity of an event across the service's retries, per type: the fields that say WHICH
 * event it is, never the ones a retry may change (plan end's `Timestamp` and `Sign`, template
 * status's `timestamp`, a chatbot `X-Service-Sign`), so a retry carrying a new Timestamp and Sign
 * is the same event with a retry count:
 * - task end: TaskID and PlanName (absent: empty); its Sign follows from TaskID and the KEY;
 * - plan end: PlanName and the content of PlanDetails (key order ignored);
 * - template status: msg_id and status (one message passes through each status once);
 * - API push: workflow_id, node_id and call.call_id; without a call id (optional in the spec),
 *   call.task_id, callee.callee_number and call.call_start_time;
 * - chatbot: call_id and event.
 * When a needed field is missing, and for `unknown`, the SHA-256 of the raw bytes stands in:
 * identical bytes are a retry. README "Retries and identity" says the same; keep them together.
 */
export function dedupKey(type: EventType, body: unknown, raw: Buffer): string {
  const o = obj(body);
  let parts: Array<string | undefined>;
  switch (type) {
    case 'task.end':
      parts = [part(o.TaskID), part(o.PlanName) ?? ''];
      break;
    case 'plan.end':
      parts = [part(o.PlanName), o.PlanDetails === undefined ? undefined : digest(canonical(o.PlanDetails))];
      break;
    case 'template.status':
      parts = [part(o.msg_id), part(o.status)];
      break;
    case 'workflow.api_push': {
      const call = obj(o.call);
      const callId = part(call.call_id);
      const without = [part(call.task_id), part(obj(o.callee).callee_number), part(call.call_start_time)];
      parts = [
        part(o.workflow_id),
        part(o.node_id),
        ...(callId !== undefined
          ? [callId]
          : without.some((p) => p !== undefined)
            ? without.map((p) => p ?? '')
            : [undefined]),
      ];
      break;
    }
    case 'chatbot.session_closed':
    case 'chatbot.transfer':
      parts = [part(o.call_id), part(o.event)];
      break;
    default:
      parts = [undefined];
  }
  if (parts.some((p) => p === undefined)) {
    return `${type}#sha256:${createHash('sha256').update(raw).digest('hex')}`;
  }
  // JSON keeps the parts apart even when one of them contains the separator.
  return `${type}#${JSON.stringify(parts)}`;
}

interface Seen {
  count: number;
  last: number;
}

/**
 * Events seen recently, with how often. Insertion order of the Map is age order, so expiry and the
 * size cap only ever look at the front.
 */
export class DedupStore {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly windowMs = DEDUP_WINDOW_MS,
    private readonly maxKeys = DEDUP_MAX_KEYS,
  ) {}

  /**
   * Records one arrival of `key` at `now` and returns how many arrivals came before it within the
   * window: 0 for a new event, n for the service's retry n. Called only once the arrival is
   * durably recorded: an arrival answered 503 must not make its retry look like a duplicate.
   */
  hit(key: string, now: number): number {
    this.expire(now);
    const entry = this.seen.get(key);
    if (entry) {
      entry.count += 1;
      entry.last = now;
      // Move to the back: the window runs from the latest arrival.
      this.seen.delete(key);
      this.seen.set(key, entry);
      return entry.count - 1;
    }
    this.seen.set(key, { count: 1, last: now });
    if (this.seen.size > this.maxKeys) this.seen.delete(this.seen.keys().next().value!);
    return 0;
  }

  /** How many arrivals of `key` were recorded within the window, without recording one. */
  peek(key: string, now: number): number {
    this.expire(now);
    return this.seen.get(key)?.count ?? 0;
  }

  get size(): number {
    return this.seen.size;
  }

  private expire(now: number): void {
    for (const [key, entry] of this.seen) {
      if (now - entry.last <= this.windowMs) break;
      this.seen.delete(key);
    }
  }
}

/** A plan end's `Timestamp`+`Sign` pair, as one text (undefined when either is missing). */
export function signPair(body: unknown): string | undefined {
  const o = obj(body);
  const [t, sign] = [part(o.Timestamp), part(o.Sign)];
  return t === undefined || sign === undefined ? undefined : JSON.stringify([t, sign]);
}

/**
 * How long after a Timestamp+Sign pair first arrives other plan ends may still share it: two plans
 * ending in the same second get the same Timestamp, so the same Sign (it covers only
 * Timestamp + KEY). Past this, another PlanName or PlanDetails under the pair is a replay.
 */
export const SHARED_PAIR_MS = 10_000;

/**
 * Plan-end replay protection: which events (identities) each `Timestamp`+`Sign` pair was seen
 * with, and when first. The plan Sign covers only Timestamp + KEY, so one captured notification
 * would otherwise let anyone send any PlanName and PlanDetails under its pair. Pairs are
 * remembered for twice the freshness window (the span in which a Timestamp is accepted at all).
 */
export class SignPairs {
  private readonly owners = new Map<string, { keys: Set<string>; first: number; last: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = DEDUP_MAX_KEYS,
    private readonly sharedMs = SHARED_PAIR_MS,
  ) {}

  /**
   * Whether `key` arriving under `pair` now is a replay: the pair was first seen more than
   * SHARED_PAIR_MS ago with other events only.
   */
  replay(pair: string, key: string, now: number): boolean {
    this.expire(now);
    const entry = this.owners.get(pair);
    return entry !== undefined && !entry.keys.has(key) && now - entry.first > this.sharedMs;
  }

  /** Records the pair for `key`; returns an undo for a record that could not be written. */
  claim(pair: string, key: string, now: number): () => void {
    let entry = this.owners.get(pair);
    const added = !entry?.keys.has(key);
    if (entry) {
      entry.keys.add(key);
      entry.last = now;
      this.owners.delete(pair);
    } else {
      entry = { keys: new Set([key]), first: now, last: now };
    }
    this.owners.set(pair, entry);
    if (this.owners.size > this.maxKeys) this.owners.delete(this.owners.keys().next().value!);
    return () => {
      const e = this.owners.get(pair);
      if (!added || !e) return;
      e.keys.delete(key);
      if (e.keys.size === 0) this.owners.delete(pair);
    };
  }

  private expire(now: number): void {
    for (const [pair, entry] of this.owners) {
      if (now - entry.last <= this.windowMs) break;
      this.owners.delete(pair);
    }
  }
}
