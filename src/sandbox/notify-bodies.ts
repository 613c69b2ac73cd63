/**
 * What the sandbox's notifications are: their bodies as the spec describes them (src/sandbox/README.md,
 * "Choices where the spec is silent"), how the notification variants shape them, and which
 * notification each is. notifier.ts sends them.
 */
import { md5Sign } from './spec/sign.js';
import { isoSeconds, spaceSeconds } from './clock.js';
import type { TemplateStatus } from './spec/shapes.js';
import type { CallingTask, PlanView, ReceivedTemplate, TaskModel } from './state.js';
import type { Variants } from './variants.js';

/** One notification to deliver: its kind (for events) and its JSON body. */
export interface Notification {
  /** What is notified: `task.end`, `plan.end`, `template.status`, `workflow.api_push`, `chatbot.*`. */
  kind: string;
  body: Record<string, unknown>;
  /** Extra request headers (e.g. a chatbot `X-Service-Sign`). */
  headers?: Record<string, string>;
  /** The exact bytes to send, when a header signs them; default JSON.stringify(body). */
  raw?: string;
  /** Told once the notification is delivered (true) or given up (false). */
  settled?: (delivered: boolean) => void;
  /** Which notification this is, the same on every attempt (default: `notificationId`). */
  id?: string;
  /**
   * The same notification made again at the time of a retry (a new Timestamp and Sign): used
   * for retries under the retry-new-sign variant. Without it a retry repeats the same bytes.
   */
  renew?: () => Pick<Notification, 'body' | 'raw' | 'headers'>;
}

/** How the notification variants in force shape what is sent: their decisions, in one place. */
export function notifyShape(v: Variants | undefined) {
  return {
    /** plan-end-int-timestamp: `Timestamp` as an integer. */
    intTimestamp: v?.has('plan-end-int-timestamp') ?? false,
    /** plan-end-task-fields: plan end carries the last round's task-level fields and `details`. */
    taskFields: v?.has('plan-end-task-fields') ?? false,
    /** retry-new-sign: a retry is made again (new Timestamp and Sign) rather than repeated. */
    renewOnRetry: v?.has('retry-new-sign') ?? false,
    /** no-user-agent: no User-Agent header. */
    userAgent: !(v?.has('no-user-agent') ?? false),
  };
}

/** Task end status notification body: `Sign` = md5(TaskID + KEY). */
export function taskEndBody(task: CallingTask, key: string, planName?: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    TaskID: task.TaskID,
    TaskName: task.TaskName,
    Sign: md5Sign(task.TaskID, key),
  };
  if (planName) body.PlanName = planName;
  return body;
}

/**
 * Plan end status notification body: `Timestamp` is the real request time in Unix seconds, as
 * text (an integer under plan-end-int-timestamp); `Sign` = md5(Timestamp + KEY). Under
 * plan-end-task-fields it also carries the last round's task-level fields and `details`.
 */
export function planEndBody(
  plan: PlanView,
  key: string,
  nowMs = Date.now(),
  shape: { intTimestamp: boolean; taskFields: boolean } = { intTimestamp: false, taskFields: false },
  lastRound?: TaskModel,
): Record<string, unknown> {
  const seconds = Math.floor(nowMs / 1000);
  const timestamp = shape.intTimestamp ? seconds : String(seconds);
  const body: Record<string, unknown> = {
    PlanName: plan.PlanName,
    Timestamp: timestamp,
    Sign: md5Sign(timestamp, key),
    PlanDetails: plan.PlanDetails,
  };
  if (shape.taskFields && lastRound) Object.assign(body, taskLevelFields(lastRound));
  return body;
}

const spaceTime = (iso: string) => iso.replace('T', ' ').replace(/Z$/, '');

/** The task-level fields and `details` of the plan-end variant that carries them (spec, Events). */
export function taskLevelFields(m: TaskModel): Record<string, unknown> {
  const t = m.task;
  return {
    task_id: t.TaskID,
    task_name: t.TaskName,
    status: t.Status,
    created_at: spaceSeconds(m.createdAt),
    repeat_interval: t.RepeatInterval,
    repeat_number: t.RepeatNumber,
    robot_hash: t.RobotID,
    robot_method: t.RobotMethod,
    sip_line: t.SIPLine,
    schedule_start_time: t.ScheduleStartTime,
    schedule_end_time: t.ScheduleEndTime,
    details: t.detail.map((r) => ({
      id: r.id,
      callee: r.CalleeNumber,
      result: r.Status,
      result_label: r.Intention,
      duration: Math.max(0, Math.round((Date.parse(r.CallEndTime) - Date.parse(r.CallStartTime)) / 1000)) || 0,
      hangup_type: r.HangupType,
      ring_type: r.RingType,
      question_answer: [],
      robot_hash: r.RobotID,
      call_id: r.CallID,
      call_times: r.CallTimes,
      call_start_time: spaceTime(r.CallStartTime),
      call_end_time: spaceTime(r.CallEndTime),
    })),
  };
}

/** The states a delivered template message goes through, in order (the spec does not give them). */
export const TEMPLATE_PATH = ['wait', 'send', 'delivery', 'read'] as const satisfies readonly TemplateStatus[];

/** Template message status callback body for a message the sandbox received. */
export function templateStatusBody(t: ReceivedTemplate, status: string, nowMs = Date.now()): Record<string, unknown> {
  const variables = Object.fromEntries(
    Object.entries(t.variable).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return {
    workflow_id: 'WF-TEMPLATE',
    workflow_name: 'Template messages',
    nodetask_id: `NT-${t.task_id}`,
    nodetask_name: 'Send template',
    waba_task_id: t.task_id,
    wfdetail_uuid: t.request_id,
    timestamp: Math.floor(nowMs / 1000),
    status,
    msg_id: `msg-${t.task_id}`,
    send_time: isoSeconds(t.receivedAt),
    waba_template_name: `template_${t.template_id}`,
    waba_template_id: t.template_id,
    channel_id: t.channel_id,
    callee: t.user_id,
    variables,
  };
}

/**
 * What tells one notification from another, as the sandbox sends them: the kind and the fields
 * that name what it is about (a retry, whatever its Timestamp or Sign, has the same one).
 */
export function notificationId(kind: string, body: Record<string, unknown>): string {
  const s = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  const call = (body.call ?? {}) as Record<string, unknown>;
  switch (kind) {
    case 'task.end':
      return `task.end|${s(body.TaskID)}|${s(body.PlanName)}`;
    case 'plan.end':
      return `plan.end|${s(body.PlanName)}`;
    case 'workflow.api_push':
      return `workflow.api_push|${s(body.workflow_id)}|${s(body.node_id)}|${s(call.call_id)}`;
    case 'template.status':
      return `template.status|${s(body.msg_id)}|${s(body.status)}`;
    default:
      return `${kind}|${s(body.call_id)}`;
  }
}
