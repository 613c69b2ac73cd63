import { randomBytes } from 'node:crypto';
import type { Transport } from '../api/transport.js';
import { Forwarder } from './forwarder.js';
import { Front, type FrontOptions, type Reply, type TlsFiles } from './front.js';
import { HandlerErrors, type Handler } from './guard.js';
import { Intake, type IntakeOptions, type Outcome } from './intake.js';
import type { ListenerEvent } from './listener-events.js';
import { Health } from './health.js';
import { hookMetrics, refusalReason, serveMetrics, type HookMetrics } from './metrics.js';
import { VERDICT_HEADER, passOnHeaders } from './send.js';

export type { ListenerEvent } from './listener-events.js';

export interface ListenerOptions extends IntakeOptions, FrontOptions {
  /** Accepted events are sent on, bytes and headers as received, to this URL. */
  forwardTo?: string;
  /** The transport forwards go through (default: one with the forwarding defaults). */
  forwardTransport?: Transport;
  /** Forwards are signed as Standard Webhooks defines with this key (a `whsec_` secret's), when given. */
  forwardKey?: Buffer;
  /**
   * How long a forward claimed by this instance holds before another instance sharing the store
   * may take it over (it should outlast a forward's attempts).
   */
  forwardLeaseMs: number;
  /** Forwards waiting or under way, at most (count and bytes); past it events wait in the store. */
  forwardQueue: number;
  forwardQueueBytes: number;
  /** On close, how long requests in flight and forwards get to finish. */
  drainTimeoutMs: number;
  /** Prometheus metrics: GET on this path of the listener's port, and/or on a port of their own. */
  metricsPath?: string;
  metricsPort?: number;
  /** Where the metrics port listens (default: `host`). */
  metricsHost?: string;
}

/** What /healthz shows: counters of refused requests, connections and forwards. */
export interface ListenerStats {
  refused: number;
  refusedUnlogged: number;
  /** Requests whose sender went away before its body was all in. */
  cutShort: number;
  connectionsRefused: number;
  /** Forwards waiting or under way. */
  forwardQueue: number;
  /** Accepted events past the queue, waiting in the store to be forwarded. */
  forwardDeferred: number;
  /** Requests whose handler failed unexpectedly (answered 500). */
  handlerErrors: number;
}

export interface Listener {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  port: number;
  /** The metrics' URL, with `metricsPort`. */
  metricsUrl?: string;
  on(handler: (event: ListenerEvent) => void): () => void;
  stats(): ListenerStats;
  /** Takes a new certificate for new connections (open ones keep theirs); throws when it cannot be used. */
  reloadTls(tls: TlsFiles): void;
  /** Counts lines of the run's own output that could not be written (the metrics say so). */
  outputLost(lines: number): void;
  /** A request beside the listener (the inspector's) whose handler failed unexpectedly: counted and told once. */
  handlerFailed(handler: Handler, error: unknown): void;
  /** Whether the store could take a record now (asked as /readyz asks it, at most once a second). */
  storeReady(): Promise<boolean>;
  /**
   * Stops accepting, lets in-flight requests and forwards finish within the drain timeout, or
   * until `now` settles (a second signal): then what is left is cut.
   */
  close(now?: Promise<unknown>): Promise<void>;
}

/**
 * Starts the notification listener: the HTTP front (front.ts: node:http on loopback by default,
 * POST on any path or only on `path`, `GET /healthz`, caps and deadlines), the intake that judges
 * and records each body (intake.ts), and with `forwardTo` the forwarder (forwarder.ts). This is
 * the wiring between them: it answers what the intake decides and tells what happened.
 */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const claim = {
    owner: `${process.pid}-${randomBytes(4).toString('hex')}`,
    leaseMs: options.forwardLeaseMs,
  };
  const wantMetrics = options.metricsPath !== undefined || options.metricsPort !== undefined;
  // Made before the intake and forwarder that feed it; its gauges read them when scraped.
  const metrics: HookMetrics | undefined = wantMetrics
    ? await hookMetrics({
        forwardQueue: (): { depth: number; deferred: number; oldestSeconds: number } => ({
          depth: forwarder?.stats().forwardQueue ?? 0,
          deferred: forwarder?.stats().forwardDeferred ?? 0,
          oldestSeconds: forwarder?.oldestSeconds() ?? 0,
        }),
        notReady: () => health.reasons(),
      })
    : undefined;
  const intake: Intake = new Intake({
    ...options,
    ...(options.forwardTo ? { forwardClaim: () => forwarder?.claimNow() ?? claim } : {}),
    ...(metrics ? { onWrite: (s: number) => metrics.wrote.observe({ to: writesTo }, s) } : {}),
  });
  const writesTo = intake.store.writesTo;
  let stopping = false;
  const handlers = new Set<(e: ListenerEvent) => void>();
  // What renders an event failing is a bug of ours too: counted and told once, never thrown into
  // a request or a forward.
  const emit = (e: ListenerEvent) =>
    handlers.forEach((h) => {
      try {
        h(e);
      } catch (error) {
        handlerErrors.failed('receiver', error);
      }
    });
  const handlerErrors = new HandlerErrors(
    (message) => emit({ kind: 'error', message }),
    (handler) => metrics?.handlerFailed.inc({ handler }),
  );
  const forwarder: Forwarder | undefined = options.forwardTo
    ? new Forwarder({
        store: intake.store,
        to: options.forwardTo,
        transport: options.forwardTransport,
        ...(options.forwardKey ? { key: options.forwardKey } : {}),
        claim,
        queueCount: options.forwardQueue,
        queueBytes: options.forwardQueueBytes,
        canDefer: intake.store.writesTo !== 'memory',
        emit,
        metrics,
      })
    : undefined;
  const health = new Health({
    store: intake.store,
    queueFull: () => forwarder?.full() ?? false,
    stopping: () => stopping,
  });

  // Refused requests left out of the log, and bodies cut short by their sender: counted, and told
  // at most once every 10 s each.
  const unlogged = notice((count, total) => emit({ kind: 'unlogged', count, total }));
  const cut = notice((count, total) => emit({ kind: 'cut', count, total }));
  let cutShort = 0;
  const noteUnlogged = () => unlogged(intake.counters.refusedUnlogged);

  /**
   * The answer to a judged request; once written, tells what arrived (numbered as the store
   * numbers it) and, for a new accepted event with a forwarder, hands it on (`raw` absent:
   * refused before it was judged).
   */
  function reply(outcome: Outcome, raw?: Buffer, headers?: Reply['headers']): Reply {
    const after = () => {
      const { record, summary, appended } = outcome;
      const n = Number(appended?.id ?? 0);
      if (metrics) {
        if (raw === undefined || outcome.status !== 200)
          metrics.refused(refusalReason(outcome.status, record.error, record.verdict));
        if (raw !== undefined && record.duplicate) metrics.retries.inc({ type: record.type ?? 'none' });
      }
      if (outcome.unlogged) return noteUnlogged();
      if (raw === undefined) return emit({ kind: 'refused', seq: n, record });
      const show = (forwarding: boolean) => emit({ kind: 'event', seq: n, record, summary, forwarding });
      const ok = outcome.status === 200 && record.verdict !== 'rejected' && record.verdict !== 'unavailable';
      if (!forwarder || !ok || !appended) return show(false);
      const passed = { ...passOnHeaders(headers ?? {}), [VERDICT_HEADER]: record.verdict ?? 'unsigned' };
      const forwarding = forwarder.offer(appended, record, { raw, headers: passed });
      if (forwarding instanceof Promise)
        void forwarding.then(show).catch((error: unknown) => handlerErrors.failed('receiver', error));
      else show(forwarding);
    };
    const { type, verdict } = outcome.record;
    const labels = raw === undefined ? undefined : { type: type ?? 'none', verdict: verdict ?? 'none' };
    return { status: outcome.status, body: outcome.reply, ...(labels ? { labels } : {}), after };
  }

  const stats = (): ListenerStats => ({
    refused: intake.counters.refused,
    refusedUnlogged: intake.counters.refusedUnlogged,
    cutShort,
    connectionsRefused: front.connectionsRefused,
    ...(forwarder?.stats() ?? { forwardQueue: 0, forwardDeferred: 0 }),
    handlerErrors: handlerErrors.count,
  });

  const front: Front = new Front({
    ...options,
    routes: {
      '/healthz': {
        handler: 'health',
        answer: () => ({ status: 200, body: JSON.stringify({ ok: true, ...stats() }) }),
      },
      '/readyz': { handler: 'health', answer: () => health.readyz() },
      ...(metrics && options.metricsPath !== undefined
        ? {
            [options.metricsPath]: {
              handler: 'metrics',
              answer: async () => {
                const { type, text } = await metrics.scrape();
                return { status: 200, body: text, headers: { 'content-type': type } };
              },
            },
          }
        : {}),
    },
    refusedEarly: (reason) => metrics?.refused(reason),
    answered: (status, labels) =>
      metrics?.notifications.inc({
        type: labels?.type ?? 'none',
        verdict: labels?.verdict ?? 'none',
        status: String(status),
      }),
    refuse: async (meta, status, error) => reply(await intake.refuse(meta, status, error)),
    judge: async (meta, raw) => {
      // Forward queue full and nowhere to keep the event until it has room: not acknowledged (the
      // service sends it again later), and not recorded, so its retry is taken as new.
      if (forwarder?.full()) {
        metrics?.refused('queue_full');
        return {
          status: 503,
          body: JSON.stringify({ error: 'forward queue full: send it again later' }),
          headers: { 'retry-after': '5' },
        };
      }
      const outcome = await intake.accept(meta, raw);
      if (outcome.record.type === null) return reply(outcome); // refused: not JSON
      return reply(outcome, raw, meta.headers as Record<string, string>);
    },
    // A log or store that cannot be written: the request is not acknowledged.
    failed: (error) => {
      health.failed();
      metrics?.refused('write_failed');
      emit({ kind: 'error', message: error.message });
    },
    handlerFailed: (handler, error) => handlerErrors.failed(handler, error),
    cutShort: () => {
      metrics?.cutShort.inc();
      cut(++cutShort);
    },
  });
  const { url, port } = await front.listen();
  const metricsServer =
    metrics && options.metricsPort !== undefined
      ? await serveMetrics(metrics, options.metricsHost ?? options.host, options.metricsPort, (e) =>
          handlerErrors.failed('metrics', e),
        )
      : undefined;

  return {
    url,
    port,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    stats,
    reloadTls: (tls) => front.reloadTls(tls),
    outputLost: (lines) => metrics?.outputLost.inc(lines),
    handlerFailed: (handler, error) => handlerErrors.failed(handler, error),
    storeReady: async () => (await health.storeReason()) === undefined,
    on(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    async close(now) {
      stopping = true;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, options.drainTimeoutMs)));
      const grace = now ? Promise.race([late, now]) : late;
      // Requests in flight are answered first; forwards under way, then what waits in the queue,
      // get the rest of the grace period.
      const accepting = front.stop(grace);
      await forwarder?.close(grace, accepting);
      const { closed } = await accepting;
      clearTimeout(timer);
      await closed;
      await metricsServer?.close();
    },
  };
}

/**
 * A notice at most every 10 s of a count that grows: `tell(count since the last notice, total)`.
 * Returns what to call with the total each time it grows.
 */
function notice(tell: (count: number, total: number) => void): (total: number) => void {
  let shown = 0;
  let at = -Infinity;
  return (total) => {
    const now = performance.now();
    if (now - at < 10_000) return;
    tell(total - shown, total);
    [shown, at] = [total, now];
  };
}
