import { NOTIFY_MAX_RETRIES, NOTIFY_RETRY_INTERVAL_MS } from '../limits.js';
import { planSign, taskSign } from '../hooks/sign.js';
import type { CallingTask } from '../schemas/task.js';
import type { PlanView } from './state.js';
import type { SandboxEvents } from './types.js';

/** One notification to deliver: its kind (for events) and its JSON body. */
export interface Notification {
  /** `task.end`, `plan.end`, or another kind the webhooks side adds. */
  kind: string;
  body: Record<string, unknown>;
  /** Extra request headers (e.g. a chatbot `X-Service-Sign`). */
  headers?: Record<string, string>;
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

export interface NotifierOptions {
  url: string;
  /** KEY of the MD5 `Sign`. */
  key: string;
  events: SandboxEvents;
  /** Simulated-time speed: the 1-minute retry interval is divided by it. */
  timeScale: number;
  /** Default NOTIFY_RETRY_INTERVAL_MS / timeScale. */
  retryIntervalMs?: number;
  /** Default NOTIFY_MAX_RETRIES. */
  maxRetries?: number;
  /** Per attempt, default 10 s. */
  timeoutMs?: number;
}

/** Task end status notification body: `Sign` = md5(TaskID + KEY). */
export function taskEndBody(task: CallingTask, key: string, planName?: string): Record<string, unknown> {
  const body: Record<string, unknown> = { TaskID: task.TaskID, TaskName: task.TaskName, Sign: taskSign(task.TaskID, key) };
  if (planName) body.PlanName = planName;
  return body;
}

/**
 * Plan end status notification body: `Timestamp` is the real request time in Unix seconds, as
 * text (a receiver may check freshness against its own clock); `Sign` = md5(Timestamp + KEY).
 */
export function planEndBody(plan: PlanView, key: string, nowMs = Date.now()): Record<string, unknown> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return { PlanName: plan.PlanName, Timestamp: timestamp, Sign: planSign(timestamp, key), PlanDetails: plan.PlanDetails };
}

/** A notifier posting JSON to one URL. The body is the same on every attempt, so receivers can dedup. */
export function createNotifier(o: NotifierOptions): Notifier {
  const interval = o.retryIntervalMs ?? NOTIFY_RETRY_INTERVAL_MS / o.timeScale;
  const maxRetries = o.maxRetries ?? NOTIFY_MAX_RETRIES;
  const timers = new Set<NodeJS.Timeout>();
  const aborter = new AbortController();
  let pending = 0;
  let waiters: Array<() => void> = [];
  let closed = false;

  const done = () => {
    pending--;
    if (pending === 0) {
      for (const w of waiters) w();
      waiters = [];
    }
  };

  const attempt = async (n: Notification, text: string, attemptNo: number): Promise<void> => {
    if (closed) return done();
    let failure: string;
    try {
      const res = await fetch(o.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'callctl-sandbox', ...n.headers },
        body: text,
        signal: AbortSignal.any([aborter.signal, AbortSignal.timeout(o.timeoutMs ?? 10_000)]),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) {
        o.events.emit('notify.sent', { kind: n.kind, url: o.url, attempt: attemptNo, status: res.status });
        return done();
      }
      failure = `HTTP ${res.status}`;
    } catch (e) {
      failure = (e as Error).message;
    }
    if (closed) return done();
    const willRetry = attemptNo <= maxRetries;
    o.events.emit('notify.failed', { kind: n.kind, url: o.url, attempt: attemptNo, error: failure, willRetry });
    if (!willRetry) return done();
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
      void attempt(n, JSON.stringify(n.body), 1);
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

/** Sends task-end and plan-end notifications for the simulation's events. */
export function attachNotifier(o: NotifierOptions): Notifier {
  const notifier = createNotifier(o);
  o.events.on('task.finished', ({ task, planName }) => notifier.send({ kind: 'task.end', body: taskEndBody(task, o.key, planName) }));
  o.events.on('plan.finished', ({ plan }) => notifier.send({ kind: 'plan.end', body: planEndBody(plan, o.key) }));
  return notifier;
}
