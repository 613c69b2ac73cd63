import type { Pool } from 'pg';
import type { EventSummary } from '../../schemas/detect.js';
import { DEDUP_WINDOW_MS } from '../dedup.js';
import {
  oneLine,
  pollUntil,
  StoreUnavailable,
  type Appended,
  type EventFilter,
  type EventPage,
  type EventStore,
  type ForwardClaim,
  type Forwarded,
  type ForwardResult,
  type HookRecord,
  type PageCursor,
  type PairMemory,
  type StoredEvent,
} from '../events.js';
import { recordFacts } from '../facts.js';
import { AppendBatcher, type AppendItem } from './batch.js';
import { ForwardClaims } from './claims.js';
import { FORGET_EVERY_MS, Forgetting, forgetKeys } from './forget.js';
import { pgPairMemory } from './pairs.js';
import { openPool, shownUrl, storeFailure, writeFailure } from './pool.js';
import { getEvent, pageEvents, readEvents } from './read.js';

/** How long readiness waits for the store's answer (a load balancer's check waits a few seconds). */
const READY_TIMEOUT_MS = 2_000;
/** After an append failed (and none succeeded since), readiness says so this long. */
const READY_AFTER_FAILURE_MS = 5_000;
/** A follower asks for the store's last id this often (waitForMore)... */
const FOLLOW_POLL_MS = 300;
/** ...and wakes this often in any case. */
const FOLLOW_WAKE_MS = 2_000;

interface StoreState {
  pool: Pool;
  url: string;
  windowMs: number;
  forgetEveryMs: number;
}

/**
 * The shared store's events: every serve-hooks naming the same database sees one record. Each
 * append is one statement (so one transaction): the event's row and its identity's arrival count
 * are committed together or not at all, and the answer 200 goes out only after the commit.
 */
export class PostgresEvents implements EventStore {
  readonly where: string;
  readonly shared = true;
  readonly writesTo = 'store';
  readonly summary: string;
  readonly notices: string[] = [];
  private readonly pool: Pool;
  private readonly batcher: AppendBatcher;
  /** The store's last id at the previous look of waitForMore. */
  private lastSeen: string | null | undefined;
  private readonly claims: ForwardClaims;
  private readonly forgetting: Forgetting;
  /** The last append's failure, until one succeeds. */
  private writeFailed: { at: number; why: string } | undefined;

  private constructor(state: StoreState) {
    this.pool = state.pool;
    this.where = shownUrl(state.url);
    this.summary = `store ${this.where}`;
    this.claims = new ForwardClaims(this.pool);
    // Through the method, so that what calls it is the one a caller sees (and may wrap).
    this.forgetting = new Forgetting({
      windowMs: state.windowMs,
      everyMs: state.forgetEveryMs,
      forget: (before) => this.forgetKeys(before),
    });
    this.batcher = new AppendBatcher({
      pool: this.pool,
      windowMs: state.windowMs,
      onCommitted: () => this.forgetting.start(),
    });
  }

  /** Connects (lazily: no connection is made until the first query) and loads the driver. */
  static async open(url: string, options: { windowMs?: number; forgetEveryMs?: number } = {}): Promise<PostgresEvents> {
    return new PostgresEvents({
      pool: await openPool(url),
      url,
      windowMs: options.windowMs ?? DEDUP_WINDOW_MS,
      forgetEveryMs: options.forgetEveryMs ?? FORGET_EVERY_MS,
    });
  }

  /** Each append waits for the commit of its batch (pg-batch.ts) before it is answered. */
  async append(
    record: HookRecord,
    seenKey: string | undefined,
    forward?: ForwardClaim,
    facts?: EventSummary,
  ): Promise<Appended> {
    const f = facts ?? recordFacts(record);
    // Without retry and duplicate, which the store answers (a rest copy: `delete` would make
    // V8 keep the object as a slow dictionary, and JSON.stringify it slowly).
    const { retry: _retry, duplicate: _duplicate, ...stored } = record;
    const item: AppendItem = { r: stored };
    if (seenKey !== undefined) item.s = seenKey;
    if (f.plan !== undefined) item.p = f.plan;
    if (f.task !== undefined) item.t = f.task;
    if (f.callee !== undefined) item.c = f.callee;
    if (forward && seenKey !== undefined) [item.o, item.l] = [forward.owner, Math.max(0, Math.round(forward.leaseMs))];
    let row;
    try {
      row = await this.batcher.append(item, record.body?.length ?? 0);
      this.writeFailed = undefined;
    } catch (error) {
      this.writeFailed = { at: performance.now(), why: oneLine(error) };
      throw new StoreUnavailable(`cannot write to the store: ${writeFailure(error)}`);
    }
    const [, id, retry, claimed, firstId] = row;
    record.retry = retry;
    record.duplicate = retry > 0;
    const appended: Appended = { id, retry, firstId, claimed, ...(seenKey !== undefined ? { seenKey } : {}) };
    // A live claim counted its first attempt (pg-batch.ts); a lapsed one is anyone's to take.
    if (claimed && item.l === 0) appended.left = true;
    else if (claimed) appended.attempt = 1;
    return appended;
  }

  forgetKeys(before: Date): Promise<number> {
    return forgetKeys(this.pool, before);
  }

  planPairs(windowMs: number): PairMemory {
    return pgPairMemory(this.pool, windowMs);
  }

  readFailure(error: unknown): Error {
    return storeFailure('read', this.where, error);
  }

  reclaimFailed(appended: Appended, claim: ForwardClaim): Promise<Forwarded | undefined> {
    return this.claims.reclaimFailed(appended, claim);
  }

  renewClaim(id: string, claim: ForwardClaim, count = true): Promise<number | false> {
    return this.claims.renewClaim(id, claim, count);
  }

  finishForward(id: string, owner: string, result: ForwardResult): Promise<void> {
    return this.claims.finishForward(id, owner, result);
  }

  takeAbandoned(claim: ForwardClaim, limit: number): Promise<StoredEvent[]> {
    return this.claims.takeAbandoned(claim, limit);
  }

  waitingForwards(): Promise<{ count: number; oldest?: Date }> {
    return this.claims.waiting();
  }

  read(filter: EventFilter, after?: string): AsyncGenerator<StoredEvent> {
    return readEvents(this.pool, filter, after);
  }

  page(filter: EventFilter, cursor: PageCursor): Promise<EventPage> {
    return pageEvents(this.pool, filter, cursor);
  }

  get(id: string): Promise<StoredEvent | undefined> {
    return getEvent(this.pool, id);
  }

  /**
   * Resolves once the store's last id has changed since the previous look (polled, not LISTENed:
   * LISTEN/NOTIFY rest on a session, which a pooler in transaction mode does not keep), or every
   * FOLLOW_WAKE_MS (rows may commit out of id order: the reader looks back); false when `signal`
   * aborts.
   */
  waitForMore(signal: AbortSignal): Promise<boolean> {
    const started = performance.now();
    return pollUntil(signal, FOLLOW_POLL_MS, async () => {
      // A store that cannot be asked now: the reader's next read tells.
      const last = await this.pool.query<{ id: string | null }>('SELECT max(id)::text AS id FROM callctl_events').then(
        (r) => r.rows[0]?.id ?? null,
        () => undefined,
      );
      const changed = last === undefined || last !== this.lastSeen;
      if (last !== undefined) this.lastSeen = last;
      return changed || performance.now() - started >= FOLLOW_WAKE_MS;
    });
  }

  /**
   * Not ready while the append statement fails (run with nothing to append: the tables missing, a
   * right revoked, a read-only server), or while the last append failed, for READY_AFTER_FAILURE_MS
   * at most (a failure the empty statement cannot meet: then the next notification tells).
   */
  async ready(): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>(
      (r) => (timer = setTimeout(() => r('the store does not answer'), READY_TIMEOUT_MS)),
    );
    const asked = this.batcher.probe().then(
      () =>
        this.writeFailed && performance.now() - this.writeFailed.at < READY_AFTER_FAILURE_MS
          ? `the store refused the last write (${this.writeFailed.why})`
          : undefined,
      (error: unknown) => {
        const code = (error as { code?: string }).code;
        if (code === '42P01') return "callctl's tables are not in the store";
        // A SQLSTATE is the server's answer; anything else, the way to it.
        return code && /^[0-9A-Z]{5}$/.test(code)
          ? `the store refuses writes (${oneLine(error)})`
          : 'the store cannot be reached';
      },
    );
    try {
      return await Promise.race([asked, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.forgetting.stop();
    await this.pool.end();
  }
}
