import { setMaxListeners } from 'node:events';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { NOTIFY_MAX_RETRIES, NOTIFY_RETRY_INTERVAL_MS } from './spec/limits.js';
import { md5Sign, serviceSign } from './spec/sign.js';
import type { CallingTask, TemplateStatus } from './spec/shapes.js';
import { applySet, sampleBody, type OnDemandType } from './samples.js';
import type { PlanView, ReceivedTemplate, TaskModel } from './state.js';
import type { Variants } from './variants.js';
import { templatePath } from './routes/template.js';
import type { SandboxEvents } from './types.js';
import type { Attempt } from './truth.js';

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

/** Delivers notifications, retrying on the spec's schedule. The sandbox's hook point for webhooks. */
export interface Notifier {
  /** Queues a delivery: first attempt now, then up to `maxRetries` retries `retryIntervalMs` apart. */
  send(notification: Notification): void;
  /** Deliveries not yet delivered nor given up. */
  pending(): number;
  /** Resolves when nothing is pending. */
  idle(): Promise<void>;
  /** Stops: clears retry timers and aborts requests in flight. */
  close(): Promise<void>;
}

export type { OnDemandType } from './samples.js';

/** The notifier of a running sandbox, with the on-demand sends. */
export interface SandboxNotifier extends Notifier {
  /** Sends a sample of `type` (fields changed with `field=value` / `field:=json`), signed as the spec says. */
  sendSample(type: OnDemandType, set?: readonly string[]): Record<string, unknown>;
}

export interface NotifierOptions {
  url: string;
  /** KEY of the MD5 `Sign`. */
  key: string;
  /**
   * Secret of the chatbot callbacks' `X-Service-Sign` (callctl's assumed default, HMAC-SHA256 of
   * the body, hex). Default: `key`.
   */
  chatbotSecret?: string;
  events: SandboxEvents;
  /** Simulated-time speed: the 1-minute retry interval is divided by it. */
  timeScale: number;
  /** Default NOTIFY_RETRY_INTERVAL_MS / timeScale. */
  retryIntervalMs?: number;
  /** Default NOTIFY_MAX_RETRIES. */
  maxRetries?: number;
  /** Per attempt, default 10 s. */
  timeoutMs?: number;
  /** Simulated time between two states of a template message (default 5 s). */
  templateStepMs?: number;
  /** The sandbox's live variants (the notification ones are decided in this file). */
  variants?: Variants;
  /** Attempts under way at once at most (default 256); the others wait their turn, in order. */
  concurrency?: number;
  /** Told of every attempt's outcome: the HTTP status answered, or why there was none. */
  onAttempt?: (n: Notification & { id: string }, attempt: Attempt) => void;
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

/** The User-Agent the sandbox sends (the spec: optional, by default the service's own name). */
export const NOTIFY_USER_AGENT = 'callctl-sandbox';

/** How the notification variants in force shape what is sent. */
export interface NotifyShape {
  /** plan-end-int-timestamp: `Timestamp` as an integer. */
  intTimestamp: boolean;
  /** plan-end-task-fields: plan end carries the last round's task-level fields and `details`. */
  taskFields: boolean;
  /** retry-new-sign: a retry is made again (new Timestamp and Sign) rather than repeated. */
  renewOnRetry: boolean;
  /** no-user-agent: no User-Agent header. */
  userAgent: boolean;
}

/** The notification variants' decisions, in one place. */
export function notifyShape(v: Variants | undefined): NotifyShape {
  return {
    intTimestamp: v?.has('plan-end-int-timestamp') ?? false,
    taskFields: v?.has('plan-end-task-fields') ?? false,
    renewOnRetry: v?.has('retry-new-sign') ?? false,
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
  shape: Pick<NotifyShape, 'intTimestamp' | 'taskFields'> = { intTimestamp: false, taskFields: false },
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
    created_at: spaceTime(new Date(m.createdAt).toISOString().slice(0, 19) + 'Z'),
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
    send_time: new Date(t.receivedAt).toISOString().slice(0, 19) + 'Z',
    waba_template_name: `template_${t.template_id}`,
    waba_template_id: t.template_id,
    channel_id: t.channel_id,
    callee: t.user_id,
    variables,
  };
}

/** A chatbot notification: the body's exact bytes and their `X-Service-Sign`. */
export function chatbotNotification(kind: string, body: Record<string, unknown>, secret: string): Notification {
  const raw = JSON.stringify(body);
  return { kind, body, raw, headers: { 'x-service-sign': serviceSign(raw, secret) } };
}

/** The bytes and headers of one attempt. */
interface Sending {
  text: string;
  headers: Record<string, string>;
}

const sendingOf = (n: Pick<Notification, 'body' | 'raw' | 'headers'>): Sending => ({
  text: n.raw ?? JSON.stringify(n.body),
  headers: { ...n.headers },
});

/**
 * POSTs JSON with node:http (fetch would add a User-Agent of its own, and no-user-agent needs
 * none at all) and resolves with the HTTP status once the answer is read.
 */
function post(url: string, text: string, headers: Record<string, string>, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const body = Buffer.from(text, 'utf8');
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
        signal,
      },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A notifier posting JSON to one URL. The bytes are the same on every attempt (unless
 * retry-new-sign makes a retry again), so receivers can dedup. Anything but HTTP 200 is abnormal (the spec's partner answers 200) and is retried.
 */
export function createNotifier(o: NotifierOptions): Notifier {
  const interval = o.retryIntervalMs ?? NOTIFY_RETRY_INTERVAL_MS / o.timeScale;
  const maxRetries = o.maxRetries ?? NOTIFY_MAX_RETRIES;
  const concurrency = o.concurrency ?? 256;
  const timers = new Set<NodeJS.Timeout>();
  const aborter = new AbortController();
  setMaxListeners(Infinity, aborter.signal); // one listener per attempt under way
  // Attempts waiting for a free place, oldest first (an index, so taking one is not a shift).
  const turns: Array<() => void> = [];
  let nextTurn = 0;
  let inFlight = 0;
  let pending = 0;
  let waiters: Array<() => void> = [];
  let closed = false;

  const done = (n?: Notification, delivered = false) => {
    n?.settled?.(delivered);
    pending--;
    if (pending === 0) {
      for (const w of waiters) w();
      waiters = [];
    }
  };

  const release = () => {
    inFlight--;
    if (nextTurn >= turns.length) return;
    const turn = turns[nextTurn++] as () => void;
    if (nextTurn === turns.length || nextTurn > 10_000) {
      turns.splice(0, nextTurn);
      nextTurn = 0;
    }
    inFlight++;
    turn();
  };

  const inTurn = (fn: () => Promise<void>) => {
    const go = () => void fn().finally(release);
    if (inFlight < concurrency) {
      inFlight++;
      go();
    } else turns.push(go);
  };

  const attempt = async (n: Notification & { id: string }, sending: Sending, attemptNo: number): Promise<void> => {
    if (closed) return done(n);
    const shape = notifyShape(o.variants);
    let failure: string;
    let answered: number | undefined;
    try {
      answered = await post(
        o.url,
        sending.text,
        { ...(shape.userAgent ? { 'user-agent': NOTIFY_USER_AGENT } : {}), ...sending.headers },
        AbortSignal.any([aborter.signal, AbortSignal.timeout(o.timeoutMs ?? 10_000)]),
      );
      if (answered === 200) {
        o.onAttempt?.(n, { number: attemptNo, status: answered, willRetry: false });
        o.events.emit('notify.sent', { kind: n.kind, url: o.url, attempt: attemptNo, status: answered });
        return done(n, true);
      }
      failure = `HTTP ${answered}`;
    } catch (e) {
      failure = (e as Error).message;
    }
    if (closed) return done(n);
    const willRetry = attemptNo <= maxRetries;
    o.onAttempt?.(n, {
      number: attemptNo,
      ...(answered !== undefined ? { status: answered } : { error: failure }),
      willRetry,
    });
    o.events.emit('notify.failed', { kind: n.kind, url: o.url, attempt: attemptNo, error: failure, willRetry });
    if (!willRetry) return done(n);
    const timer = setTimeout(() => {
      timers.delete(timer);
      // Made again at retry time under retry-new-sign; otherwise the very same bytes.
      const again = n.renew && notifyShape(o.variants).renewOnRetry ? sendingOf({ ...n, ...n.renew() }) : sending;
      inTurn(() => attempt(n, again, attemptNo + 1));
    }, interval);
    timer.unref();
    timers.add(timer);
  };

  return {
    send(n) {
      if (closed) return;
      pending++;
      const named = { ...n, id: n.id ?? notificationId(n.kind, n.body) };
      const sending = sendingOf(n);
      inTurn(() => attempt(named, sending, 1));
    },
    pending: () => pending,
    idle: () => (pending === 0 || closed ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      aborter.abort();
      for (const w of waiters) w();
      waiters = [];
    },
  };
}

const attached = new WeakMap<SandboxEvents, SandboxNotifier>();

/** The notifier attached to a sandbox's events (`notifierOf(sandbox.events)`), if it has a notify URL. */
export function notifierOf(events: SandboxEvents): SandboxNotifier | undefined {
  return attached.get(events);
}

/**
 * Sends the sandbox's notifications: task end when a simulated task finishes, plan end after a
 * plan's last round, template status as each received template message moves through
 * wait, send, delivery, read (a step of simulated time after the previous state was settled),
 * and the others on demand.
 */
export function attachNotifier(o: NotifierOptions): SandboxNotifier {
  const notifier = createNotifier(o);
  const secret = o.chatbotSecret ?? o.key;
  const step = (o.templateStepMs ?? 5_000) / o.timeScale;
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      if (!closed) fn();
    }, ms);
    t.unref();
    timers.add(t);
  };

  o.events.on('task.finished', ({ task, planName }) =>
    notifier.send({ kind: 'task.end', body: taskEndBody(task, o.key, planName) }),
  );
  o.events.on('plan.finished', ({ plan, lastRound }) => {
    const make = () => ({ body: planEndBody(plan, o.key, Date.now(), notifyShape(o.variants), lastRound) });
    notifier.send({ kind: 'plan.end', ...make(), renew: make });
  });
  o.events.on('template.received', (t) => {
    const path = templatePath(t, TEMPLATE_PATH);
    // Each state is sent once the one before it is settled, so they arrive in order.
    const next = (i: number) =>
      notifier.send({
        kind: 'template.status',
        body: templateStatusBody(t, path[i]!),
        renew: () => ({ body: templateStatusBody(t, path[i]!) }),
        settled: () => i + 1 < path.length && later(step, () => next(i + 1)),
      });
    later(step, () => next(0));
  });

  const sandboxNotifier: SandboxNotifier = {
    ...notifier,
    sendSample(type, set = []) {
      const body = sampleBody(type);
      for (const assignment of set) applySet(body, assignment);
      const n: Notification = type.startsWith('chatbot.')
        ? chatbotNotification(type, body, secret)
        : { kind: type, body };
      notifier.send(n);
      return body;
    },
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await notifier.close();
    },
  };
  attached.set(o.events, sandboxNotifier);
  return sandboxNotifier;
}
