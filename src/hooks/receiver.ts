import type { ListenerEvent } from './listener-events.js';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { fsReason, LocalError, UsageError } from '../errors.js';
import type { TlsFiles } from './front.js';
import type { Handler } from './guard.js';
import { startListener, type Listener, type ListenerOptions } from './listener.js';
import { said } from '../said.js';

/** What the receiver tells the command: the listener's events, and the end of a store outage. */
export type ReceiverEvent =
  | ListenerEvent
  /**
   * The shared store answers again, `ms` after its first failure (told by readiness or by the
   * first record written, whichever comes first); `refused` requests were answered 503 meanwhile.
   */
  | { kind: 'recovered'; ms: number; refused: number }
  /** SIGHUP was done: the certificate read again, the log reopened. */
  | { kind: 'hangup'; message: string };

/** What a run received, told when it stops. */
export interface ReceiverSummary {
  events: number;
  retries: number;
  rejected: number;
  refused: number;
  /** Refused requests not recorded (over --refused-log-rate). */
  refusedUnlogged: number;
  /** Requests whose sender went away before the body was all in. */
  cutShort: number;
  /** Connections closed at once, over the caps. */
  connectionsRefused: number;
}

export interface ReceiverOptions extends Omit<ListenerOptions, 'tls'> {
  now: () => number;
  /** Serve HTTPS with the certificate and key in these PEM files, read again by `reloadTls`. */
  tlsFiles?: { cert: string; key: string };
}

/** Distinct reasons told during one store outage, at most (the count of 503s is told at its end). */
const MAX_OUTAGE_REASONS = 5;
/** How often the store is asked whether it is back during an outage. */
const PROBE_OUTAGE_MS = 1_000;

/**
 * serve-hooks' engine: the listener, with what a run keeps about it (counts, store outages) and
 * the run until it is told to stop. Silent: it emits what happens and the command renders it.
 */
export class Receiver {
  private readonly handlers = new Set<(event: ReceiverEvent) => void>();
  private readonly counts = { events: 0, retries: 0, rejected: 0 };
  /**
   * With a shared store, an outage is told once when it starts and once when it ends, not once
   * per request answered 503 meanwhile; and once more for each new reason on the way (the
   * database back, but empty: the first reason would no longer say what is wrong).
   */
  private readonly outage = {
    since: 0,
    refused: 0,
    reasons: new Set<string>(),
    /** Asks the store whether it is back, once a second while it is away. */
    probe: undefined as NodeJS.Timeout | undefined,
  };

  private constructor(
    private readonly listener: Listener,
    private readonly options: ReceiverOptions,
  ) {
    listener.on((event) => this.heard(event));
  }

  /** Starts listening (rejects as `listen` does: the port in use, say). */
  static async start(options: ReceiverOptions): Promise<Receiver> {
    const tls = options.tlsFiles ? readTls(options.tlsFiles) : undefined;
    return new Receiver(await startListener({ ...options, ...(tls ? { tls } : {}) }), options);
  }

  /**
   * Reads the certificate and key files again (SIGHUP, after a renewal) for the connections to
   * come; open ones keep theirs. A pair that cannot be read or used is told, and the one in use kept.
   */
  reloadTls(): void {
    if (!this.options.tlsFiles) return;
    try {
      this.listener.reloadTls(readTls(this.options.tlsFiles));
      this.emit({ kind: 'hangup', message: 'certificate and key read again: new connections use them' });
    } catch (error) {
      this.emit({ kind: 'error', message: `${(error as Error).message}: not reloaded, the ones in use stay` });
    }
  }

  /** SIGHUP: the certificate and key read again (after a renewal), the log reopened (after logrotate). */
  hangup(): void {
    this.reloadTls();
    const reopened = this.options.store.reopen?.();
    if (reopened) this.emit({ kind: reopened.ok ? 'hangup' : 'error', message: `SIGHUP: ${reopened.message}` });
  }

  /** Counts lines of the run's own output that could not be written (the metrics say so). */
  outputLost(lines: number): void {
    this.listener.outputLost(lines);
  }

  /** A request beside the receiver (the inspector's) whose handler failed unexpectedly: counted and told once. */
  handlerFailed(handler: Handler, error: unknown): void {
    this.listener.handlerFailed(handler, error);
  }

  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  get url(): string {
    return this.listener.url;
  }

  /** Where GET /metrics answers, with a metrics port. */
  get metricsUrl(): string | undefined {
    return this.listener.metricsUrl;
  }

  on(handler: (event: ReceiverEvent) => void): void {
    this.handlers.add(handler);
  }

  /**
   * Receives until `stop` settles; then stops accepting (/readyz answers 503) and finishes what is
   * in flight (requests, then forwards) within the drain timeout, or until `now` settles (a second
   * signal: what is left is cut), and says what the run received.
   */
  async run(stop: Promise<unknown>, now?: Promise<unknown>): Promise<ReceiverSummary> {
    await stop;
    clearInterval(this.outage.probe);
    await this.listener.close(now);
    const stats = this.listener.stats();
    return {
      ...this.counts,
      refused: stats.refused,
      refusedUnlogged: stats.refusedUnlogged,
      cutShort: stats.cutShort,
      connectionsRefused: stats.connectionsRefused,
    };
  }

  private heard(event: ListenerEvent): void {
    const shared = this.options.store.shared;
    const { outage } = this;
    if (shared && event.kind === 'error' && /^cannot write to the store/.test(event.message)) {
      outage.refused += 1;
      if (outage.since === 0) this.outageBegins();
      if (outage.reasons.has(event.message) || outage.reasons.size >= MAX_OUTAGE_REASONS) return;
      outage.reasons.add(event.message);
    } else if (shared && outage.since && (event.kind === 'event' || event.kind === 'refused')) {
      this.recovered();
    }
    if (event.kind === 'event') {
      this.counts.events += 1;
      if (event.record.duplicate) this.counts.retries += 1;
      if (event.record.verdict === 'rejected') this.counts.rejected += 1;
    }
    this.emit(event);
  }

  /**
   * The store's first failure: the outage is timed from now, and the store asked once a second,
   * so that its end is told when the store is back, not when the next notification happens to come.
   */
  private outageBegins(): void {
    const { outage } = this;
    outage.since = this.options.now();
    outage.probe = setInterval(
      () =>
        void this.listener.storeReady().then(
          (ready) => ready && outage.since && this.recovered(),
          () => undefined,
        ),
      PROBE_OUTAGE_MS,
    );
    outage.probe.unref();
  }

  private recovered(): void {
    const { outage } = this;
    clearInterval(outage.probe);
    this.emit({ kind: 'recovered', ms: this.options.now() - outage.since, refused: outage.refused });
    outage.since = 0;
    outage.refused = 0;
    outage.reasons.clear();
  }

  private emit(event: ReceiverEvent): void {
    for (const h of this.handlers) h(event);
  }
}

/** The certificate and key of `--tls-cert` and `--tls-key` (PEM), checked to be a usable pair. */
function readTls(files: { cert: string; key: string }): TlsFiles {
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
