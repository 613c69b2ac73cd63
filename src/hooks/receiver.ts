import type { ListenerEvent } from './listener-events.js';
import { startListener, type Listener, type ListenerOptions } from './listener.js';

/** What the receiver tells the command: the listener's events, and the end of a store outage. */
export type ReceiverEvent =
  | ListenerEvent
  /** The shared store answers again after `ms`; `refused` requests were answered 503 meanwhile. */
  | { kind: 'recovered'; ms: number; refused: number };

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

export interface ReceiverOptions extends ListenerOptions {
  now: () => number;
}

/** Distinct reasons told during one store outage, at most (the count of 503s is told at its end). */
const MAX_OUTAGE_REASONS = 5;

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
  private readonly outage = { since: 0, refused: 0, reasons: new Set<string>() };

  private constructor(
    private readonly listener: Listener,
    private readonly options: ReceiverOptions,
  ) {
    listener.on((event) => this.heard(event));
  }

  /** Starts listening (rejects as `listen` does: the port in use, say). */
  static async start(options: ReceiverOptions): Promise<Receiver> {
    return new Receiver(await startListener(options), options);
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
    const shared = this.options.store !== undefined;
    const { outage } = this;
    if (shared && event.kind === 'error' && /^cannot write to the store/.test(event.message)) {
      outage.refused += 1;
      if (outage.since === 0) outage.since = this.options.now();
      if (outage.reasons.has(event.message) || outage.reasons.size >= MAX_OUTAGE_REASONS) return;
      outage.reasons.add(event.message);
    } else if (shared && outage.since && (event.kind === 'event' || event.kind === 'refused')) {
      this.emit({ kind: 'recovered', ms: this.options.now() - outage.since, refused: outage.refused });
      outage.since = 0;
      outage.refused = 0;
      outage.reasons.clear();
    }
    if (event.kind === 'event') {
      this.counts.events += 1;
      if (event.record.duplicate) this.counts.retries += 1;
      if (event.record.verdict === 'rejected') this.counts.rejected += 1;
    }
    this.emit(event);
  }

  private emit(event: ReceiverEvent): void {
    for (const h of this.handlers) h(event);
  }
}
