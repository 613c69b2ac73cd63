import type { Gauge } from 'prom-client';
import { guarded } from './guard.js';

/** What the gauges read when scraped. */
export interface MetricsSources {
  /** Forwards waiting or under way; accepted events waiting in the store; age of the oldest not yet forwarded (s). */
  forwardQueue: () => { depth: number; deferred: number; oldestSeconds: number };
  /** Why the receiver is not ready (empty when it is). */
  notReady: () => Promise<string[]>;
}

/** Why a request was refused, as a label: a short fixed word, never the request's own text. */
export type RefusedReason =
  | 'method'
  | 'path'
  | 'content_type'
  | 'too_large'
  | 'not_json'
  | 'too_deep'
  | 'duplicate_keys'
  | 'signature'
  | 'strict'
  | 'verify_unavailable'
  | 'write_failed'
  | 'queue_full'
  | 'connections'
  | 'timeout'
  | 'malformed'
  | 'headers_too_large';

export type HookMetrics = Awaited<ReturnType<typeof hookMetrics>>;

/**
 * serve-hooks' Prometheus metrics (prom-client, on a registry of the listener's own). Labels hold
 * only fixed words (types, verdicts, statuses, reasons): never a callee number, an id or a secret.
 * prom-client is loaded only when metrics are asked for (`--metrics-port`, `--metrics-path`).
 */
export async function hookMetrics(sources: MetricsSources) {
  const { default: client } = await import('prom-client');
  const registry = new client.Registry();
  const registers = [registry];
  const counter = <T extends string>(name: string, help: string, labelNames: T[] = []) =>
    new client.Counter<T>({ name: `callctl_hooks_${name}`, help, labelNames, registers });
  const gauge = (name: string, help: string, collect: (g: Gauge) => void | Promise<void>) =>
    new client.Gauge({
      name: `callctl_hooks_${name}`,
      help,
      registers,
      collect() {
        return collect(this);
      },
    });
  gauge('forward_queue_depth', 'Forwards waiting or under way.', (g) => g.set(sources.forwardQueue().depth));
  gauge('forward_deferred', 'Accepted events waiting in the log or store for room in the forward queue.', (g) =>
    g.set(sources.forwardQueue().deferred),
  );
  gauge('forward_queue_oldest_seconds', 'Age of the oldest accepted event not yet forwarded.', (g) =>
    g.set(sources.forwardQueue().oldestSeconds),
  );
  gauge('ready', '1 when notifications would be accepted (GET /readyz answers 200), else 0.', async (g) =>
    g.set((await sources.notReady()).length === 0 ? 1 : 0),
  );
  const refusals = counter('refused_total', 'Requests refused, by reason.', ['reason']);
  const attempts = counter('forward_attempts_total', 'Forward attempts, by result (ok, status, network).', ['result']);
  return {
    notifications: counter(
      'notifications_total',
      'Answers on the notification path (every request but GET /healthz, /readyz and the metrics), each counted once, by the HTTP status answered, and by type and verdict when its body was judged (else none).',
      ['type', 'verdict', 'status'],
    ),
    retries: counter('retries_total', "Arrivals that were the service's retry of an event already recorded.", ['type']),
    refused: (reason: RefusedReason) => refusals.inc({ reason }),
    cutShort: counter('bodies_cut_short_total', 'Requests whose sender went away before the body was all in.'),
    /** One attempt of a forward: `status` answered, or a network error. */
    attempt: (status: number | undefined) =>
      attempts.inc({ result: status === undefined ? 'network' : status < 300 ? 'ok' : 'status' }),
    forwardFailed: counter('forward_failures_total', 'Forwards that failed after their last attempt.'),
    forwardRepeated: counter(
      'forward_repeats_total',
      'Forwards of an event sent before (a failed forward retried, or one taken over).',
    ),
    forwardUnrecorded: counter(
      'forward_unrecorded_total',
      'Forwards whose outcome could not be recorded in the store.',
    ),
    outputLost: counter(
      'output_lost_total',
      "Lines of serve-hooks' own output (an event, a notice) that could not be written to stdout or stderr (a full disk, a closed pipe); receiving goes on.",
    ),
    handlerFailed: counter(
      'handler_errors_total',
      'Requests whose handler failed unexpectedly (a bug, answered 500; the receiver goes on), by handler (receiver, health, metrics, inspector).',
      ['handler'],
    ),
    wrote: new client.Histogram<'to'>({
      name: 'callctl_hooks_write_seconds',
      help: 'Time to record a request durably, by where (log, store, memory).',
      labelNames: ['to'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    /** The text a scrape gets, and its content type. */
    scrape: async () => ({ type: registry.contentType, text: await registry.metrics() }),
  };
}

/** The reason label of a request the intake refused: by its status and what it said. */
export function refusalReason(status: number, error: string | undefined, verdict: string | undefined): RefusedReason {
  switch (status) {
    case 405:
      return 'method';
    case 404:
      return 'path';
    case 415:
      return 'content_type';
    case 413:
      return 'too_large';
    case 503:
      return verdict === 'unavailable' ? 'verify_unavailable' : 'write_failed';
    case 401:
      return verdict === 'rejected' ? 'signature' : 'strict';
  }
  if (error === 'body is not JSON') return 'not_json';
  if (error?.startsWith('body nests deeper')) return 'too_deep';
  if (error?.includes('same key twice')) return 'duplicate_keys';
  return 'strict';
}

/**
 * Serves GET /metrics on a port of its own (`--metrics-port`); resolves once it listens. A scrape
 * that fails unexpectedly is answered 500 and told to `failed`.
 */
export async function serveMetrics(
  metrics: HookMetrics,
  host: string,
  port: number,
  failed: (error: unknown) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const { createServer } = await import('node:http');
  const server = createServer(
    guarded(async (req, res) => {
      if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"GET /metrics only"}');
        return;
      }
      const { type, text } = await metrics.scrape();
      res.writeHead(200, { 'content-type': type }).end(text);
    }, failed),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as { address: string; port: number; family: string };
  return {
    url: `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
