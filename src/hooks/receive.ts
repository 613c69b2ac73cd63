import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Transport } from '../api/transport.js';
import { CliError, fsReason, LocalError, UsageError } from '../errors.js';
import type { EventStore } from '../store/events.js';
import type { Store } from '../store/store.js';
import { said } from '../said.js';
import type { TlsFiles } from './front.js';
import type { Handler } from './guard.js';
import { historyWindowMs } from './intake.js';
import type { ListenerEvent } from './listener-events.js';
import { startListener, type Listener, type ListenerStats } from './listener.js';
import type { ReceivePlan, TlsPaths } from './plan.js';

/** What receiving tells the command: the listener's events, its start, and the end of a store outage. */
export type ReceiverEvent =
  | ListenerEvent
  /** Listening on `url`; `store`: what the events' store says of itself (its summary and notices). */
  | { kind: 'listening'; url: string; metricsUrl?: string; store: { summary: string; notices: readonly string[] } }
  /** Everything is up (the inspector beside it too): from here on the run receives until stopped. */
  | { kind: 'ready'; url: string }
  /**
   * The shared store answers again, `ms` after its first failure (told by readiness or by the
   * first record written, whichever comes first); `refused` requests were answered 503 meanwhile.
   */
  | { kind: 'recovered'; ms: number; refused: number }
  /** A hang-up was done: the certificate read again, the log reopened. */
  | { kind: 'hangup'; message: string };

/** What a run received, told when it stops (with the listener's counts of what it refused). */
export type ReceiverSummary = { events: number; retries: number; rejected: number } & Pick<
  ListenerStats,
  'refused' | 'refusedUnlogged' | 'cutShort' | 'connectionsRefused'
>;

/** What a run of receiving is given beside its plan: where, whom to tell, and when to stop. */
export interface ReceiveRun {
  /** The run's store: the events are kept in it (its `events`, with the plan's log). */
  store: Store;
  onEvent(event: ReceiverEvent): void;
  /** Aborted: stop accepting (/readyz answers 503), finish what is in flight within the drain timeout. */
  signal: AbortSignal;
  /** Aborted after `signal`: what is still in flight is cut at once. */
  cut?: AbortSignal;
  /** The source of hang-ups (SIGHUP): each reads the certificate again and reopens the log. */
  hangups?(reload: () => void): () => void;
  /** The source of the count of the command's own output lines that could not be written (a metric). */
  outputLost?(count: (lines: number) => void): void;
  /** Started once listening, beside the receiver (the inspector); what it resolves with is called on stop. */
  beside?(failed: (handler: Handler, error: unknown) => void): Promise<() => Promise<void>>;
  /** The transport forwards go through (the run's: --timeout and --verbose apply). */
  transport?: Transport;
  now(): number;
}

/** Distinct reasons told during one store outage, at most (the count of 503s is told at its end). */
const MAX_OUTAGE_REASONS = 5;
/** How often the store is asked whether it is back during an outage. */
const PROBE_OUTAGE_MS = 1_000;

/**
 * serve-hooks' engine: opens the events' store, listens, receives until `signal` is aborted,
 * drains and closes (always). Silent: it emits what happens (onEvent) and returns what the run
 * received; the command renders both and picks the exit code.
 */
export async function receive(plan: ReceivePlan, run: ReceiveRun): Promise<ReceiverSummary> {
  const events = await run.store.events({
    write: true,
    log: plan.log,
    fsync: plan.fsync,
    rememberMs: historyWindowMs(plan.maxAgeMs),
    now: run.now,
  });
  const cut = aborted(run.cut);
  const counts = { events: 0, retries: 0, rejected: 0 };
  let listener: Listener | undefined;
  let outage: ReturnType<typeof watchOutages> | undefined;
  let stopBeside: (() => Promise<void>) | undefined;
  let offHangup: (() => void) | undefined;
  try {
    if (plan.ui && events.writesTo === 'memory')
      throw new UsageError(said`--ui shows what is recorded: give --log FILE or a store`);
    const started = (listener = await listen(plan, events, run));
    const watch = (outage = watchOutages(events.shared, started, run));
    started.on((event) => {
      if (!watch.heard(event)) return;
      if (event.kind === 'event') {
        counts.events += 1;
        if (event.record.duplicate) counts.retries += 1;
        if (event.record.verdict === 'rejected') counts.rejected += 1;
      }
      run.onEvent(event);
    });
    run.outputLost?.((lines) => started.outputLost(lines));
    const { url, metricsUrl } = started;
    const { summary, notices } = events;
    run.onEvent({ kind: 'listening', url, ...(metricsUrl ? { metricsUrl } : {}), store: { summary, notices } });
    stopBeside = await run.beside?.((handler, error) => started.handlerFailed(handler, error));
    // A hang-up: the certificate and key are read again (after a renewal), without dropping
    // connections, and the log is reopened (logrotate moved it away).
    offHangup = run.hangups?.(() => {
      if (plan.tlsFiles) reloadTls(started, plan.tlsFiles, run.onEvent);
      const reopened = events.reopen?.();
      if (reopened) run.onEvent({ kind: reopened.ok ? 'hangup' : 'error', message: `SIGHUP: ${reopened.message}` });
    });
    run.onEvent({ kind: 'ready', url });
    await aborted(run.signal);
  } finally {
    outage?.stop();
    offHangup?.();
    // Stops accepting, then finishes what is in flight (requests, then forwards) within the drain
    // timeout, or until `cut`; then the inspector beside it.
    await listener?.close(cut);
    await stopBeside?.();
    // The log and the store are flushed and closed within what is left of the drain (a store that
    // cannot be reached does not hold the stop).
    const drained = new Promise((r) => setTimeout(r, plan.drainTimeoutMs).unref());
    await Promise.race([events.close(), cut, drained]);
  }
  const { refused, refusedUnlogged, cutShort, connectionsRefused } = listener.stats();
  return { ...counts, refused, refusedUnlogged, cutShort, connectionsRefused };
}

/** Resolves when `signal` is aborted (never without one). */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve();
    else signal?.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Starts the listener on the plan's address; an address that cannot be listened on is a usage error. */
async function listen(plan: ReceivePlan, store: EventStore, run: ReceiveRun): Promise<Listener> {
  const { tlsFiles, ...options } = plan;
  const tls = tlsFiles ? readTls(tlsFiles) : undefined;
  try {
    return await startListener({
      ...options,
      ...(tls ? { tls } : {}),
      store,
      forwardTransport: run.transport,
      now: run.now,
    });
  } catch (error) {
    if (error instanceof CliError) throw error; // the certificate, say
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      said`cannot listen on ${plan.host}:${plan.port}: ${code === 'EADDRINUSE' ? 'the port is in use (--port 0 picks a free one)' : (code ?? (error as Error).message)}`,
    );
  }
}

/**
 * With a shared store, an outage is told once when it starts and once when it ends, not once per
 * request answered 503 meanwhile; and once more for each new reason on the way (the database
 * back, but empty: the first reason would no longer say what is wrong). During an outage the
 * store is asked once a second whether it is back, so that its end is told when the store is
 * back, not when the next notification happens to come. `heard` says whether to tell an event.
 */
function watchOutages(shared: boolean, listener: Listener, run: ReceiveRun) {
  let since = 0;
  let refused = 0;
  const reasons = new Set<string>();
  let probe: NodeJS.Timeout | undefined;
  const recovered = () => {
    clearInterval(probe);
    run.onEvent({ kind: 'recovered', ms: run.now() - since, refused });
    [since, refused] = [0, 0];
    reasons.clear();
  };
  return {
    heard(event: ListenerEvent): boolean {
      if (shared && event.kind === 'error' && /^cannot write to the store/.test(event.message)) {
        refused += 1;
        if (since === 0) {
          since = run.now();
          probe = setInterval(
            () =>
              void listener.storeReady().then(
                (ready) => ready && since && recovered(),
                () => undefined,
              ),
            PROBE_OUTAGE_MS,
          );
          probe.unref();
        }
        if (reasons.has(event.message) || reasons.size >= MAX_OUTAGE_REASONS) return false;
        reasons.add(event.message);
      } else if (shared && since && (event.kind === 'event' || event.kind === 'refused')) recovered();
      return true;
    },
    stop: () => clearInterval(probe),
  };
}

/**
 * Reads the certificate and key files again (a hang-up, after a renewal) for the connections to
 * come; open ones keep theirs. A pair that cannot be read or used is told, and the one in use kept.
 */
function reloadTls(listener: Listener, files: TlsPaths, tell: (event: ReceiverEvent) => void): void {
  try {
    listener.reloadTls(readTls(files));
    tell({ kind: 'hangup', message: 'certificate and key read again: new connections use them' });
  } catch (error) {
    tell({ kind: 'error', message: `${(error as Error).message}: not reloaded, the ones in use stay` });
  }
}

/** The certificate and key of `--tls-cert` and `--tls-key` (PEM), checked to be a usable pair. */
function readTls(files: TlsPaths): TlsFiles {
  const read = (path: string, flag: string) => {
    try {
      return readFileSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new LocalError(said`${flag}: cannot read ${path}: ${fsReason(code)}`, { path, ...(code ? { code } : {}) });
    }
  };
  const tls = { cert: read(files.cert, '--tls-cert'), key: read(files.key, '--tls-key') };
  try {
    createSecureContext(tls);
  } catch (error) {
    throw new UsageError(said`--tls-cert/--tls-key: not a PEM certificate and its key (${(error as Error).message})`);
  }
  return tls;
}
