import { setMaxListeners } from 'node:events';
import type { Transport } from '../api/transport.js';
import { type Appended, type EventStore, type ForwardClaim, type HookRecord } from '../store/events.js';
import type { HookMetrics } from './metrics.js';
import type { ListenerEvent } from './listener-events.js';
import {
  ATTEMPT_HEADER,
  EVENT_HEADER,
  EVENT_ID_HEADER,
  VERDICT_HEADER,
  notificationTransport,
  post,
  recorded,
  signedAs,
} from './send.js';

/** Forwards under way at once (the rest wait in the queue). */
const FORWARD_CONCURRENCY = 16;
/** Abandoned forwards (and failed ones due again) taken over per query of the store. */
const TAKE_OVER_BATCH = 100;
/** A shared store's forwards waiting for a receiver are counted this often at most (a count of a long backlog costs). */
const COUNT_WAITING_EVERY_MS = 30_000;
/** Events past the queue kept by their place in the log; past this many, 503 (the service retries). */
const MAX_DEFERRED = 1_000_000;

/** One forward to make: the event (its first arrival's id and time), its bytes and headers. */
interface Job {
  id: string;
  time: string;
  raw: Buffer;
  headers: Record<string, string>;
  /** When it was accepted (performance.now()): the queue's age is its oldest job's. */
  at: number;
  /** The attempt its claim counted (shared store), and when the claim was taken (performance.now()). */
  first?: number;
  claimedAt?: number;
}

export interface ForwarderState {
  store: EventStore;
  to: string;
  /** The transport forwards go through (default: one with the forwarding defaults). */
  transport?: Transport;
  /** Signs each attempt as Standard Webhooks defines, when given (the key of a `whsec_` secret). */
  key?: Buffer;
  claim: ForwardClaim;
  /** Forwards waiting or under way at most, by count and by bytes of body. */
  queueCount: number;
  queueBytes: number;
  /** Whether events past the queue can wait in the store (an NDJSON file, or a shared store). */
  canDefer: boolean;
  emit: (event: ListenerEvent) => void;
  metrics?: HookMetrics;
}

/**
 * Sends accepted events on (the one outgoing delivery of serve-hooks). The queue bounds what waits
 * or is under way (count and bytes); an event past it waits in the store (deferred, by id, and by
 * offset in an NDJSON file) and joins the queue, oldest first, as it empties: nothing is held in
 * memory past the bound. With a shared store, each forward is claimed by one receiver, and forwards
 * whose receiver stopped before finishing them are taken over once their lease runs out; an event
 * past the queue is appended with a lapsed claim, left in the store for whichever receiver has room
 * first (no receiver keeps it in memory, and none has to renew a claim it is not working on).
 * Silent: it tells what happens through `emit`.
 */
export class Forwarder {
  private readonly reserved = { count: 0, bytes: 0 };
  private readonly waiting: Job[] = [];
  private readonly deferred: Array<{ id: string; time: string; at: number; offset?: number }> = [];
  /** When each forward under way was accepted. */
  private readonly started = new Set<Job>();
  private readonly under = new Set<Promise<void>>();
  private active = 0;
  private refilling = false;
  private transport: Transport | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;
  /** Events this receiver left in the shared store (counted, so a sweep that began before one knows). */
  private left = 0;
  /** The shared store's forwards claimed by no live receiver, as last counted (every 30 s at most). */
  private inStore: { count: number; oldest?: Date } = { count: 0 };
  private countedAt = -Infinity;
  private closing = false;
  /** Cuts the forwards under way when the drain ends first (their claims stay, to be taken over). */
  private readonly cut = new AbortController();

  constructor(private readonly state: ForwarderState) {
    setMaxListeners(Infinity, this.cut.signal); // one listener per forward under way
    // Swept for abandoned forwards (a shared store's) and failed ones to try again (any store's).
    const every = Math.max(50, Math.min(state.claim.leaseMs / 2, 5_000));
    this.sweeper = setInterval(() => void this.takeOver().then(() => this.countWaiting()), every);
    this.sweeper.unref();
    // A receiver started again after a crash takes over what waits at once, not a sweep later.
    setImmediate(() => void this.takeOver());
  }

  /**
   * The claim an event appended now is given: this receiver's, or with a shared store and a full
   * queue a lapsed one, so that the first receiver with room takes it from the store.
   */
  claimNow(): ForwardClaim {
    if (!this.state.store.shared || this.fits(0)) return this.state.claim;
    return { owner: this.state.claim.owner, leaseMs: 0 };
  }

  /**
   * An accepted event was appended: forward it when this receiver holds its claim (a new event),
   * or, for a retry of an event whose forward failed, when it reclaims it; one left in the store
   * is taken by a sweep as the queue empties. Says whether it is forwarded.
   */
  offer(appended: Appended, record: HookRecord, job: Pick<Job, 'raw' | 'headers'>): boolean | Promise<boolean> {
    const at = performance.now();
    if (appended.left) {
      this.left += 1;
      return true;
    }
    if (appended.claimed) {
      const first = appended.attempt !== undefined ? { first: appended.attempt, claimedAt: at } : {};
      this.dispatch({ ...job, id: appended.firstId, time: record.time, at, ...first }, appended.offset);
      return true;
    }
    if (!record.duplicate) return false;
    // A retry of an event whose forward failed: sent on again, by one receiver only, as that event.
    return this.state.store.reclaimFailed(appended, this.state.claim).then(
      (event) => {
        if (!event) return false;
        this.state.metrics?.forwardRepeated.inc();
        this.dispatch({ ...job, ...event, at });
        return true;
      },
      () => false,
    );
  }

  /** True when an event arriving now could be neither queued nor deferred (no log to keep it in). */
  full(): boolean {
    return !this.state.canDefer && !this.fits(0);
  }

  /** Forwards waiting or under way, and accepted events deferred to the store. */
  stats(): { forwardQueue: number; forwardDeferred: number } {
    return { forwardQueue: this.reserved.count, forwardDeferred: this.deferred.length + this.inStore.count };
  }

  /** How long the oldest accepted event not yet forwarded has waited, in seconds (0 when none). */
  oldestSeconds(): number {
    const oldest = Math.min(
      this.waiting[0]?.at ?? Infinity,
      this.deferred[0]?.at ?? Infinity,
      ...[...this.started].map((j) => j.at),
      this.inStore.oldest ? performance.now() - Math.max(0, Date.now() - this.inStore.oldest.getTime()) : Infinity,
    );
    return oldest === Infinity ? 0 : (performance.now() - oldest) / 1000;
  }

  private fits(bytes: number): boolean {
    const { count, bytes: held } = this.reserved;
    return count < this.state.queueCount && (count === 0 || held + bytes <= this.state.queueBytes);
  }

  private dispatch(job: Job, offset?: number): void {
    // A shared store's claim was given while the queue had room (claimNow): it is this receiver's to send.
    if (this.state.store.shared) return this.enqueue(job);
    if (this.deferred.length === 0 && this.fits(job.raw.length)) return this.enqueue(job);
    if (this.state.canDefer && this.deferred.length < MAX_DEFERRED) {
      this.deferred.push({ id: job.id, time: job.time, at: job.at, ...(offset !== undefined ? { offset } : {}) });
      return;
    }
    // Reached only when the store cannot hold it back either: it goes now rather than be lost.
    this.enqueue(job);
  }

  private enqueue(job: Job): void {
    this.reserved.count += 1;
    this.reserved.bytes += job.raw.length;
    this.waiting.push(job);
    this.pump();
  }

  private pump(): void {
    while (this.active < FORWARD_CONCURRENCY && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      this.active += 1;
      this.started.add(job);
      void this.forward(job).finally(() => {
        this.started.delete(job);
        this.active -= 1;
        this.reserved.count -= 1;
        this.reserved.bytes -= job.raw.length;
        void this.refill();
        // What this receiver left in the store comes back a batch at a time as room opens.
        if (this.left > 0 && this.state.queueCount - this.reserved.count >= this.takeOverBatch()) void this.takeOver();
        this.pump();
      });
    }
  }

  /** Deferred events join the queue, oldest first, while it has room. */
  private async refill(): Promise<void> {
    if (this.refilling) return;
    this.refilling = true;
    try {
      while (this.deferred.length > 0 && this.fits(0)) {
        const d = this.deferred.shift()!;
        const record = await this.load(d);
        if (!record) {
          this.state.emit({
            kind: 'error',
            message: `event #${d.id} can no longer be read back from the store (log rotated?): not forwarded; hooks replay can send it`,
          });
          continue;
        }
        this.enqueue({ ...d, ...recorded(record) });
      }
    } finally {
      this.refilling = false;
    }
  }

  private async load(d: { id: string; offset?: number }): Promise<HookRecord | undefined> {
    const store = this.state.store;
    if (d.offset !== undefined && store.readAt) return store.readAt(d.offset);
    return (await store.get(d.id).catch(() => undefined))?.record;
  }

  private forward(job: Job): Promise<void> {
    const { store, claim, emit } = this.state;
    const since = performance.now();
    // With a shared store the claim is renewed as the forward starts: an event that waited in the
    // queue past its lease may have been taken over by another receiver, which then forwards it.
    // A claim taken within the last third of its lease is sent on as it is (its attempt counted).
    const fresh = job.first !== undefined && since - (job.claimedAt ?? 0) < claim.leaseMs / 3;
    const mine = fresh
      ? Promise.resolve(job.first!)
      : store.renewClaim(job.id, claim, job.first === undefined).catch(() => false as const);
    const done = mine.then(async (first) => {
      if (first !== false) return this.send(job, first, since);
      emit({
        kind: 'error',
        message: `event ${job.id}: its forward is no longer this receiver's (taken over, or the store is unreachable); not sent from here`,
      });
    });
    this.under.add(done);
    void done.finally(() => this.under.delete(done));
    return done;
  }

  /** Sends a forward, its attempts numbered from `first`, and records how it ended. */
  private async send(job: Job, first: number, since: number): Promise<void> {
    const { id } = job;
    const n = Number(id);
    const { store, claim, emit, metrics } = this.state;
    this.transport ??= this.state.transport ?? notificationTransport();
    // The event's number, and an id no other event has (its first arrival's time with it; webhook-id
    // too): the same on every attempt, by any receiver, so that the app behind can drop a repeat.
    const eventId = `${id}@${job.time}`;
    const headers = { ...job.headers, [EVENT_HEADER]: id, [EVENT_ID_HEADER]: eventId };
    // The claim's lease is extended every third of it while the forward is under way: retries that
    // outlast the lease are not taken over meanwhile; one that was (the store away) stops.
    const lost = new AbortController();
    const heartbeat = setInterval(
      () =>
        void store.renewClaim(id, claim, false).then(
          (mine) => mine === false && lost.abort(),
          () => undefined, // the store away: the lease may still hold; the finish will tell
        ),
      Math.max(50, claim.leaseMs / 3),
    );
    const o = await post(this.transport, this.state.to, job.raw, headers, {
      signal: AbortSignal.any([this.cut.signal, lost.signal]),
      attemptHeader: { name: ATTEMPT_HEADER, first },
      ...signedAs(this.state.key, eventId, job.headers[VERDICT_HEADER]),
      onRetry: (attempt, failure) => {
        metrics?.attempt('status' in failure ? failure.status : undefined);
        const ms = Math.round(performance.now() - since);
        emit({ kind: 'forward', seq: n, attempt, final: false, ms, ...failure });
        since = performance.now() + (failure.waitMs ?? 0);
      },
    }).finally(() => clearInterval(heartbeat));
    // Cut by the end of the drain: its claim stays as it was, so that it is taken over (or replayed).
    if (this.cut.signal.aborted && !o.answer) return;
    if (lost.signal.aborted && !o.answer) {
      emit({
        kind: 'error',
        message: `event ${id}: its forward was taken over while under way (the store away past its lease); not sent again from here`,
      });
      return;
    }
    const ok = o.answer !== undefined && o.answer.status < 300;
    metrics?.attempt(o.answer?.status);
    if (!ok) metrics?.forwardFailed.inc();
    emit({
      kind: 'forward',
      seq: n,
      attempt: o.attempts,
      final: true,
      ...(o.answer ? { status: o.answer.status, ms: o.answer.ms } : { error: o.error }),
    });
    const result = {
      ok,
      attempts: first + o.attempts - 1,
      ...(o.answer ? { status: o.answer.status } : {}),
      ...(o.error ? { error: o.error } : {}),
    };
    // The store away (restarting): tried again while the claim may still hold, so that the app is
    // not sent it again by the receiver that would take it over.
    for (let wait = 100, until = performance.now() + claim.leaseMs; ; wait = Math.min(wait * 2, 2_000)) {
      const error = await store.finishForward(id, claim.owner, result).then(
        () => undefined,
        (e: Error) => e,
      );
      if (!error) return;
      if (this.cut.signal.aborted || performance.now() + wait > until) {
        // Sent (or tried), but the store does not know: another receiver may send it again.
        metrics?.forwardUnrecorded.inc();
        emit({ kind: 'error', message: `cannot record the forward of event ${id}: ${error.message}` });
        return;
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  /** Counts what waits in a shared store for a receiver with room (the deferred gauge shows it). */
  private async countWaiting(now = false): Promise<void> {
    if (!now && performance.now() - this.countedAt < COUNT_WAITING_EVERY_MS) return;
    this.countedAt = performance.now();
    this.inStore = (await this.state.store.waitingForwards?.().catch(() => undefined)) ?? this.inStore;
  }

  /** Taken over at once: a hundred, or half the queue when it is smaller. */
  private takeOverBatch(): number {
    return Math.max(1, Math.min(TAKE_OVER_BATCH, Math.floor(this.state.queueCount / 2)));
  }

  /** Forwards whose instance stopped before finishing them (their lease ran out) are taken over. */
  private async takeOver(): Promise<void> {
    if (this.sweeping || this.closing) return;
    this.sweeping = true;
    try {
      // As many as the queue has room for, a hundred at a time: after an outage or a receiver's
      // death thousands may wait, and one hundred a sweep (every 5 s) took minutes to catch up.
      while (this.fits(0) && !this.closing) {
        const limit = Math.min(this.takeOverBatch(), this.state.queueCount - this.reserved.count);
        const left = this.left;
        const taken = await this.state.store.takeAbandoned(this.state.claim, limit);
        if (taken.length < limit) this.left -= left; // all it had left before this sweep are taken
        const claimedAt = performance.now();
        for (const e of taken) {
          const first = e.forward?.attempts;
          // An event left in the store is on its first attempt: not a repeat.
          if ((first ?? 2) > 1) this.state.metrics?.forwardRepeated.inc();
          // Its age counts from when it was received, on whichever receiver.
          const at = performance.now() - Math.max(0, Date.now() - Date.parse(e.record.time));
          const job = { id: e.id, time: e.record.time, at, ...recorded(e.record) };
          this.enqueue(first === undefined ? job : { ...job, first, claimedAt });
        }
        if (taken.length < limit) break;
      }
    } catch {
      // The store is unreachable: the next sweep tries again.
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * Stops taking over; once `accepting` ends (requests in flight may still hand it events), lets
   * forwards under way, then what waits in the queue, finish until `grace` ends. What is left then
   * is told (it is in the store: hooks replay sends it).
   */
  async close(grace: Promise<unknown>, accepting: Promise<unknown>): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await accepting;
    const drained = (async () => {
      while (this.under.size > 0) await Promise.all([...this.under]);
    })();
    await Promise.race([drained, grace]);
    this.cut.abort();
    const left = [...this.waiting, ...this.deferred].map((j) => Number(j.id));
    if (left.length > 0 || this.active > 0) {
      this.state.emit({
        kind: 'error',
        message: `${left.length + this.active} accepted events not forwarded before stopping${left.length ? ` (from event #${Math.min(...left)})` : ''}: they are in the store; hooks replay --since sends them`,
      });
    }
    // A shared store's: left there past a full queue (by any receiver), not yet taken.
    if (!this.state.store.waitingForwards) return;
    await Promise.race([this.countWaiting(true), new Promise((r) => setTimeout(r, 1_000).unref())]);
    if (this.inStore.count > 0) {
      this.state.emit({
        kind: 'error',
        message: `${this.inStore.count} accepted events wait in the store for a receiver with room (claimed by none): the next receiver to start forwards them, or hooks replay --since`,
      });
    }
  }
}
