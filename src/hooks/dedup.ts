import { createHash } from 'node:crypto';
import type { EventType } from '../schemas/events.js';
import { DEDUP_MAX_KEYS, DEDUP_WINDOW_MS } from './defaults.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const part = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);

/**
 * The identity of an event across the service's retries, per type:
 * task end: TaskID and Sign; plan end: PlanName and Timestamp; template status: msg_id, status and
 * timestamp; API push: workflow, node and call id; chatbot: call_id and event. When one of those is
 * missing, and for `unknown`, the SHA-256 of the raw bytes stands in: identical bytes are a retry.
 */
export function dedupKey(type: EventType, body: unknown, raw: Buffer): string {
  const o = obj(body);
  let parts: Array<string | undefined>;
  switch (type) {
    case 'task.end':
      parts = [part(o.TaskID), part(o.Sign)];
      break;
    case 'plan.end':
      parts = [part(o.PlanName), part(o.Timestamp)];
      break;
    case 'template.status':
      parts = [part(o.msg_id), part(o.status), part(o.timestamp)];
      break;
    case 'workflow.api_push':
      parts = [part(o.workflow_id), part(o.node_id), part(obj(o.call).call_id)];
      break;
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
