import { NOTIFY_MAX_RETRIES, NOTIFY_RETRY_INTERVAL_MS } from './spec/limits.js';
import { md5Sign, serviceSign } from './spec/sign.js';
import type { CallingTask, TemplateStatus } from './spec/shapes.js';
import { applySet, sampleBody, type OnDemandType } from './samples.js';
import type { PlanView, ReceivedTemplate } from './state.js';
import { templatePath } from './routes/template.js';
import type { SandboxEvents } from './types.js';

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
}

/** Task end status notification body: `Sign` = md5(TaskID + KEY). */
export function taskEndBody(task: CallingTask, key: string, planName?: string): Record<string, unknown> {
  const body: Record<string, unknown> = { TaskID: task.TaskID, TaskName: task.TaskName, Sign: md5Sign(task.TaskID, key) };
  if (planName) body.PlanName = planName;
  return body;
}

/**
 * Plan end status notification body: `Timestamp` is the real request time in Unix seconds, as
 * text (a receiver may check freshness against its own clock); `Sign` = md5(Timestamp + KEY).
 */
export function planEndBody(plan: PlanView, key: string, nowMs = Date.now()): Record<string, unknown> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return { PlanName: plan.PlanName, Timestamp: timestamp, Sign: md5Sign(timestamp, key), PlanDetails: plan.PlanDetails };
}

/** The states a delivered template message goes through, in order (the spec does not give them). */
export const TEMPLATE_PATH = ['wait', 'send', 'delivery', 'read'] as const satisfies readonly TemplateStatus[];

/** Template message status callback body for a message the sandbox received. */
export function templateStatusBody(t: ReceivedTemplate, status: string, nowMs = Date.now()): Record<string, unknown> {
  const variables = Object.fromEntries(Object.entries(t.variable).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
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

/**
 * A notifier posting JSON to one URL. The bytes are the same on every attempt, so receivers can
 * dedup. Anything but HTTP 200 is abnormal (the spec's partner answers 200) and is retried.
 */
export function createNotifier(o: NotifierOptions): Notifier {
  const interval = o.retryIntervalMs ?? NOTIFY_RETRY_INTERVAL_MS / o.timeScale;
  const maxRetries = o.maxRetries ?? NOTIFY_MAX_RETRIES;
  const timers = new Set<NodeJS.Timeout>();
  const aborter = new AbortController();
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

  const attempt = async (n: Notification, text: string, attemptNo: number): Promise<void> => {
    if (closed) return done(n);
    let failure: string;
    try {
      const res = await fetch(o.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'callctl-sandbox', ...n.headers },
        body: text,
        signal: AbortSignal.any([aborter.signal, AbortSignal.timeout(o.timeoutMs ?? 10_000)]),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status === 200) {
        o.events.emit('notify.sent', { kind: n.kind, url: o.url, attempt: attemptNo, status: res.status });
        return done(n, true);
      }
      failure = `HTTP ${res.status}`;
    } catch (e) {
      failure = (e as Error).message;
    }
    if (closed) return done(n);
    const willRetry = attemptNo <= maxRetries;
    o.events.emit('notify.failed', { kind: n.kind, url: o.url, attempt: attemptNo, error: failure, willRetry });
    if (!willRetry) return done(n);
    const timer = setTimeout(() => {
      timers.delete(timer);
      void attempt(n, text, attemptNo + 1);
    }, interval);
    timer.unref();
    timers.add(timer);
  };

  return {
    send(n) {
      if (closed) return;
      pending++;
      void attempt(n, n.raw ?? JSON.stringify(n.body), 1);
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

  o.events.on('task.finished', ({ task, planName }) => notifier.send({ kind: 'task.end', body: taskEndBody(task, o.key, planName) }));
  o.events.on('plan.finished', ({ plan }) => notifier.send({ kind: 'plan.end', body: planEndBody(plan, o.key) }));
  o.events.on('template.received', (t) => {
    const path = templatePath(t, TEMPLATE_PATH);
    // Each state is sent once the one before it is settled, so they arrive in order.
    const next = (i: number) =>
      notifier.send({
        kind: 'template.status',
        body: templateStatusBody(t, path[i]!),
        settled: () => i + 1 < path.length && later(step, () => next(i + 1)),
      });
    later(step, () => next(0));
  });

  const sandboxNotifier: SandboxNotifier = {
    ...notifier,
    sendSample(type, set = []) {
      const body = sampleBody(type);
      for (const assignment of set) applySet(body, assignment);
      const n: Notification = type.startsWith('chatbot.') ? chatbotNotification(type, body, secret) : { kind: type, body };
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
