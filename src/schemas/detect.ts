import { personKey } from '../person.js';
import { CHATBOT_EVENTS, EVENT_SCHEMAS, type EventType } from './events.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (o: Obj, ...keys: string[]) => keys.every((k) => o[k] !== undefined && o[k] !== null);

/**
 * The type of a notification, told from the body's shape (the spec gives no type field; the
 * chatbot callbacks carry `event`). One place for the rules, so they can change when the service's
 * owner tells more. A body matching none of them is `unknown`.
 */
export function detectType(body: unknown): EventType {
  if (!isObj(body)) return 'unknown';
  if (body.event === CHATBOT_EVENTS.closed) return 'chatbot.session_closed';
  if (body.event === CHATBOT_EVENTS.transfer) return 'chatbot.transfer';
  if (has(body, 'PlanDetails') || has(body, 'PlanName', 'Timestamp')) return 'plan.end';
  if (has(body, 'TaskID')) return 'task.end';
  if (has(body, 'msg_id') && (has(body, 'waba_task_id') || has(body, 'nodetask_id'))) return 'template.status';
  if (has(body, 'workflow_id', 'node_id') && (has(body, 'call') || has(body, 'callee'))) return 'workflow.api_push';
  return 'unknown';
}

/** Schema problems of a body of a known type, one line each with its path; empty when valid. */
export function schemaWarnings(type: EventType, body: unknown): string[] {
  if (type === 'unknown') return [];
  const result = EVENT_SCHEMAS[type].safeParse(body);
  if (result.success) return [];
  return result.error.issues.slice(0, 10).map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : '(body)';
    return `${path}: ${issue.message}`;
  });
}

/** The identifiers a person watching the stream needs, taken leniently from any body. */
export interface EventSummary {
  plan?: string;
  task?: string;
  name?: string;
  workflow?: string;
  node?: string;
  call?: string;
  msg?: string;
  channel?: string;
  /**
   * The person the event is about, as people are compared (src/person.ts's personKey): a
   * workflow push's callee_number, a template status's channel_id (its callee when it has none).
   */
  callee?: string;
  status?: string;
  rounds?: number;
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/**
 * The texts of a body that name its person, as written (a workflow push's callee_number; a
 * template status's channel_id and callee): what is masked where numbers are hidden.
 */
export function personTexts(type: EventType | null, body: unknown): string[] {
  if (!isObj(body)) return [];
  const texts =
    type === 'workflow.api_push'
      ? [str(isObj(body.callee) ? body.callee.callee_number : undefined)]
      : type === 'template.status'
        ? [str(body.channel_id), str(body.callee)]
        : [];
  return texts.filter((t): t is string => t !== undefined && t.trim() !== '');
}

/** The person a body names (personTexts' first), as people are compared. */
function personOf(type: EventType, body: unknown): string | undefined {
  const [text] = personTexts(type, body);
  return text === undefined ? undefined : personKey(text);
}

/** Picks the summary of a body of the given type; missing fields are simply absent. */
export function summarize(type: EventType, body: unknown): EventSummary {
  if (!isObj(body)) return {};
  const call = isObj(body.call) ? body.call : {};
  // Missing fields left out (a loop: `hooks events` summarizes every event it lists).
  const pick = (s: EventSummary): EventSummary => {
    for (const k in s) if (s[k as keyof EventSummary] === undefined) delete s[k as keyof EventSummary];
    return s;
  };
  switch (type) {
    case 'plan.end': {
      const rounds = Array.isArray(body.PlanDetails) ? body.PlanDetails : [];
      const last = rounds.at(-1);
      return pick({
        plan: str(body.PlanName),
        task: str(body.task_id),
        rounds: rounds.length,
        status: str(body.status) ?? (isObj(last) ? str(last.Status) : undefined),
      });
    }
    case 'task.end':
      return pick({ task: str(body.TaskID), name: str(body.TaskName), plan: str(body.PlanName), status: 'end' });
    case 'workflow.api_push':
      return pick({
        workflow: str(body.workflow_id),
        node: str(body.node_id),
        call: str(call.call_id),
        task: str(call.task_id),
        callee: personOf(type, body),
        status: str(call.intention),
      });
    case 'template.status':
      return pick({
        workflow: str(body.workflow_id),
        msg: str(body.msg_id),
        callee: personOf(type, body),
        status: str(body.status),
      });
    case 'chatbot.session_closed':
    case 'chatbot.transfer': {
      const conclusion = isObj(body.conclusion) ? body.conclusion : {};
      return pick({
        call: str(body.call_id),
        channel: str(body.channel),
        status: type === 'chatbot.transfer' ? (str(conclusion.output_label) ?? 'transfer') : 'closed',
      });
    }
    default:
      return {};
  }
}
