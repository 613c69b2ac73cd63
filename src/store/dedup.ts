import { createHash } from 'node:crypto';
import type { EventType } from '../schemas/events.js';

/**
 * How long a seen event is remembered as a possible retry. The service retries task end up to 5
 * times a minute apart; 15 minutes covers that with room to spare.
 */
export const DEDUP_WINDOW_MS = 15 * 60_000;

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
 * The identity of an event as remembered: good events apart from refused or rejected ones, so a
 * forgery never hides a genuine event.
 */
export function seenKey(key: string, status: number, verdict: string | undefined): string {
  return status === 200 && verdict !== 'rejected' ? key : `${status}|${verdict ?? ''}|${key}`;
}
