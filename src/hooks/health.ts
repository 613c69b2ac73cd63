import type { EventStore } from '../store/events.js';
import type { Reply } from './front.js';

/** A store's answer is asked again after this long at most (a monitor may ask every second). */
const PROBE_EVERY_MS = 1_000;

export interface HealthState {
  store: EventStore;
  /** True when an event arriving now could be neither queued for forwarding nor kept to forward later. */
  queueFull: () => boolean;
  /** True once the receiver is stopping (it accepts nothing new). */
  stopping: () => boolean;
}

/**
 * Readiness: whether a notification arriving now would be acknowledged. Not ready, with the
 * reason, while the log or store cannot be written, the forward queue is at its limit with nowhere
 * to keep more, or the receiver is stopping; ready again by itself once that passes (the store is
 * asked again, the log tried again, without a notification having to come and fail).
 */
export class Health {
  private probed: { at: number; reason: Promise<string | undefined> } | undefined;

  constructor(private readonly state: HealthState) {}

  /** A record could not be written: the next question asks the store again (no answer kept from before). */
  failed(): void {
    this.probed = undefined;
  }

  /** Why the store could not take a record now (asked at most once a second); undefined when it can. */
  storeReason(): Promise<string | undefined> {
    const now = performance.now();
    if (!this.probed || now - this.probed.at >= PROBE_EVERY_MS)
      this.probed = { at: now, reason: this.state.store.ready().catch(() => 'the store cannot be asked') };
    return this.probed.reason;
  }

  /** Why notifications would get 503 now; empty when ready. */
  async reasons(): Promise<string[]> {
    const store = await this.storeReason();
    return [
      ...(this.state.stopping() ? ['stopping'] : []),
      ...(store ? [store] : []),
      ...(this.state.queueFull() ? ['the forward queue is full'] : []),
    ];
  }

  /** GET /readyz: 200 `{"ready":true}`, or 503 with the reasons. */
  async readyz(): Promise<Reply> {
    const reasons = await this.reasons();
    if (reasons.length === 0) return { status: 200, body: '{"ready":true}' };
    return { status: 503, body: JSON.stringify({ ready: false, reasons }), headers: { 'retry-after': '5' } };
  }
}
