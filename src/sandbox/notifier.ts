import { setMaxListeners } from 'node:events';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { NOTIFY_MAX_RETRIES, NOTIFY_RETRY_INTERVAL_MS } from './spec/limits.js';
import type { Variants } from './variants.js';
import {
  notificationId,
  notifyShape,
  planEndBody,
  taskEndBody,
  TEMPLATE_PATH,
  templateStatusBody,
  type Notification,
} from './notify-bodies.js';
import { templatePath } from './routes/template.js';
import type { Notifier, SandboxEvents } from './types.js';

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
  /** Simulated time between two states of a template message (default 5 s). */
  templateStepMs?: number;
  /** The sandbox's live variants (the notification ones are decided in this file). */
  variants?: Variants;
  /** Attempts under way at once at most (default 256); the others wait their turn, in order. */
  concurrency?: number;
}

/** The User-Agent the sandbox sends (the spec: optional, by default the service's own name). */
export const NOTIFY_USER_AGENT = 'callctl-sandbox';

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
        o.events.emit('notify.sent', { kind: n.kind, id: n.id, url: o.url, attempt: attemptNo, status: answered });
        return done(n, true);
      }
      failure = `HTTP ${answered}`;
    } catch (e) {
      failure = (e as Error).message;
    }
    if (closed) return done(n);
    const willRetry = attemptNo <= maxRetries;
    const status = answered === undefined ? {} : { status: answered };
    o.events.emit('notify.failed', {
      kind: n.kind,
      id: n.id,
      url: o.url,
      attempt: attemptNo,
      ...status,
      error: failure,
      willRetry,
    });
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

/**
 * Sends the sandbox's notifications: task end when a simulated task finishes, plan end after a
 * plan's last round, template status as each received template message moves through
 * wait, send, delivery, read (a step of simulated time after the previous state was settled).
 * A caller sends others through it (`sandbox.notifier`).
 */
export function attachNotifier(o: NotifierOptions): Notifier {
  const notifier = createNotifier(o);
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

  return {
    ...notifier,
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await notifier.close();
    },
  };
}
