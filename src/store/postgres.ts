import type { Pool, PoolClient } from 'pg';
import { DEDUP_WINDOW_MS } from '../hooks/defaults.js';
import type { HookRecord } from '../hooks/event-log.js';
import { recordFacts } from './facts.js';
import { migrate, schemaStatus, SCHEMA_VERSION, type SchemaStatus } from './pg-schema.js';
import {
  StoreUnavailable,
  type Appended,
  type EventFilter,
  type EventStore,
  type ForwardClaim,
  type ForwardResult,
  type StoredEvent,
} from './types.js';

/** The URL as it may be shown: the password is never part of it. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** Connections per process: enough for 50 concurrent requests to share without queueing long. */
const POOL_SIZE = 16;
const CONNECT_TIMEOUT_MS = 5_000;
/** After an append, followers are woken within this long (one NOTIFY for all appends meanwhile). */
const NOTIFY_DELAY_MS = 50;
/** A follower also looks every so often, in case a notification was missed (a lost connection). */
const FOLLOW_POLL_MS = 2_000;

const APPEND_KEYED = `
WITH k AS (
  INSERT INTO callctl_event_keys AS k (key, arrivals, first_id, last_at)
  VALUES ($1, 1, nextval('callctl_events_id_seq'), $2)
  ON CONFLICT (key) DO UPDATE SET
    arrivals = CASE WHEN k.last_at >= $2::timestamptz - $3::interval THEN k.arrivals + 1 ELSE 1 END,
    first_id = CASE WHEN k.last_at >= $2::timestamptz - $3::interval THEN k.first_id ELSE EXCLUDED.first_id END,
    last_at  = GREATEST(k.last_at, EXCLUDED.last_at)
  RETURNING arrivals, first_id
)
INSERT INTO callctl_events (id, received_at, type, key, seen_key, retry, answer, verdict, plan, task, callee, record, fwd_state, fwd_owner, fwd_lease)
SELECT CASE WHEN k.arrivals = 1 THEN k.first_id ELSE nextval('callctl_events_id_seq') END,
       $2, $4, $5, $1, k.arrivals - 1, $6, $7, $8, $9, $10, $11,
       CASE WHEN $12::text IS NOT NULL AND k.arrivals = 1 THEN 'claimed' END,
       CASE WHEN $12::text IS NOT NULL AND k.arrivals = 1 THEN $12::text END,
       CASE WHEN $12::text IS NOT NULL AND k.arrivals = 1 THEN now() + $13::interval END
FROM k
RETURNING id, retry, (SELECT first_id FROM k) AS first_id, fwd_state`;

/** The same for a batch of appends with distinct identities, in one statement (arrays in, rows out). */
const APPEND_BATCH = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::interval[])
    AS t(seen_key, at, type, key, answer, verdict, plan, task, callee, record, owner, lease)
), k AS (
  INSERT INTO callctl_event_keys AS k (key, arrivals, first_id, last_at)
  SELECT seen_key, 1, nextval('callctl_events_id_seq'), at FROM input ORDER BY seen_key
  ON CONFLICT (key) DO UPDATE SET
    arrivals = CASE WHEN k.last_at >= EXCLUDED.last_at - $13::interval THEN k.arrivals + 1 ELSE 1 END,
    first_id = CASE WHEN k.last_at >= EXCLUDED.last_at - $13::interval THEN k.first_id ELSE EXCLUDED.first_id END,
    last_at  = GREATEST(k.last_at, EXCLUDED.last_at)
  RETURNING key, arrivals, first_id
)
INSERT INTO callctl_events (id, received_at, type, key, seen_key, retry, answer, verdict, plan, task, callee, record, fwd_state, fwd_owner, fwd_lease)
SELECT CASE WHEN k.arrivals = 1 THEN k.first_id ELSE nextval('callctl_events_id_seq') END,
       i.at, i.type, i.key, i.seen_key, k.arrivals - 1, i.answer, i.verdict, i.plan, i.task, i.callee, i.record::jsonb,
       CASE WHEN i.owner IS NOT NULL AND k.arrivals = 1 THEN 'claimed' END,
       CASE WHEN i.owner IS NOT NULL AND k.arrivals = 1 THEN i.owner END,
       CASE WHEN i.owner IS NOT NULL AND k.arrivals = 1 THEN now() + i.lease END
FROM input i JOIN k ON k.key = i.seen_key
RETURNING id, retry, seen_key, fwd_state, (SELECT first_id FROM k WHERE k.key = callctl_events.seen_key) AS first_id`;

const APPEND_PLAIN = `
INSERT INTO callctl_events (received_at, type, key, retry, answer, verdict, plan, task, callee, record)
VALUES ($1, $2, $3, 0, $4, $5, $6, $7, $8, $9)
RETURNING id, retry, id AS first_id, fwd_state`;

/** Appends in one transaction at most, and transactions under way at once per receiver. */
const MAX_BATCH = 100;
const MAX_FLUSHES = 4;

interface AppendRow {
  id: string;
  retry: number;
  first_id: string;
  fwd_state: string | null;
}

interface Pending {
  key: string | undefined;
  sql: string;
  args: unknown[];
  done: (error?: unknown, row?: AppendRow) => void;
}

const COLUMNS = 'id, retry, record, fwd_state, fwd_owner, fwd_status, fwd_error, fwd_attempts, fwd_at';

interface Row {
  id: string;
  retry: number;
  record: HookRecord;
  fwd_state: 'claimed' | 'done' | 'failed' | null;
  fwd_owner: string | null;
  fwd_status: number | null;
  fwd_error: string | null;
  fwd_attempts: number | null;
  fwd_at: Date | null;
}

function toEvent(row: Row): StoredEvent {
  const record = { ...row.record, retry: row.retry, duplicate: row.retry > 0 };
  const event: StoredEvent = { id: String(row.id), record };
  if (row.fwd_state) {
    event.forward = {
      state: row.fwd_state,
      ...(row.fwd_owner ? { owner: row.fwd_owner } : {}),
      ...(row.fwd_status !== null ? { status: row.fwd_status } : {}),
      ...(row.fwd_error !== null ? { error: row.fwd_error } : {}),
      ...(row.fwd_attempts !== null ? { attempts: row.fwd_attempts } : {}),
      ...(row.fwd_at ? { at: row.fwd_at.toISOString() } : {}),
    };
  }
  return event;
}

const ms = (n: number) => `${Math.max(0, Math.round(n))} milliseconds`;

/**
 * The shared store: every serve-hooks naming the same database sees one record. Each append is
 * one statement (so one transaction): the event's row and its identity's arrival count are
 * committed together or not at all, and the answer 200 goes out only after the commit.
 * The `pg` driver is loaded only when a PostgreSQL store is opened (`open`).
 */
export class PostgresStore implements EventStore {
  readonly kind = 'postgres';
  readonly where: string;
  private listener: PoolClient | undefined;
  private wakers = new Set<() => void>();
  private notifyTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly pool: Pool,
    url: string,
    private readonly windowMs: number,
  ) {
    this.where = shownUrl(url);
  }

  /**
   * Connects (lazily: no connection is made until the first query) and loads the driver.
   * `onIdleError` hears about connections lost while idle (the pool replaces them).
   */
  static async open(
    url: string,
    options: { windowMs?: number; onIdleError?: (error: Error) => void } = {},
  ): Promise<PostgresStore> {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({
      connectionString: url,
      max: POOL_SIZE,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
      application_name: 'callctl',
    });
    // Without a handler, a connection dropped while idle (the server restarting) would crash the process.
    pool.on('error', (error) => options.onIdleError?.(error));
    return new PostgresStore(pool, url, options.windowMs ?? DEDUP_WINDOW_MS);
  }

  /** Runs `work` on one connection of the pool. */
  async withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      return await work(client);
    } finally {
      client.release();
    }
  }

  migrate(): Promise<{ from: number; applied: number[] }> {
    return this.withClient(migrate);
  }

  status(): Promise<SchemaStatus> {
    return this.withClient(schemaStatus);
  }

  /** Fails unless the tables are there at a version this callctl can use. */
  async check(): Promise<void> {
    const s = await this.status();
    if (s.version === 0) throw new SchemaError('the store has no callctl tables yet: run `callctl store migrate`');
    if (s.version > SCHEMA_VERSION)
      throw new SchemaError(
        `the store's schema is version ${s.version}, newer than this callctl's ${SCHEMA_VERSION}: upgrade callctl`,
      );
    if (s.version < SCHEMA_VERSION)
      throw new SchemaError(
        `the store's schema is version ${s.version}, older than this callctl's ${SCHEMA_VERSION}: run \`callctl store migrate\``,
      );
  }

  /**
   * Appends go to the database in batches (group commit): the appends waiting when a connection
   * is free go in one transaction, one statement each, in the order of their keys so that two
   * batches (of this receiver or another) always lock identities in the same order and never
   * deadlock. Each waits for the commit of its batch. Two arrivals of one identity never share
   * a batch (the second waits for the next), so each sees the other's count.
   */
  append(record: HookRecord, seenKey: string | undefined, forward?: ForwardClaim): Promise<Appended> {
    const f = recordFacts(record);
    const stored = { ...record } as Partial<HookRecord>;
    delete stored.retry;
    delete stored.duplicate;
    const args =
      seenKey === undefined
        ? [
            record.time,
            record.type,
            record.key ?? null,
            record.answer,
            record.verdict ?? null,
            f.plan ?? null,
            f.task ?? null,
            f.callee ?? null,
            stored,
          ]
        : [
            seenKey,
            record.time,
            ms(this.windowMs),
            record.type,
            record.key ?? null,
            record.answer,
            record.verdict ?? null,
            f.plan ?? null,
            f.task ?? null,
            f.callee ?? null,
            stored,
            forward?.owner ?? null,
            ms(forward?.leaseMs ?? 0),
          ];
    return new Promise<Appended>((resolve, reject) => {
      this.queue.push({
        key: seenKey,
        sql: seenKey === undefined ? APPEND_PLAIN : APPEND_KEYED,
        args,
        done: (error, row) => {
          if (error || !row) return reject(new StoreUnavailable(`cannot write to the store: ${describe(error)}`));
          record.retry = row.retry;
          record.duplicate = row.retry > 0;
          resolve({
            id: String(row.id),
            retry: row.retry,
            firstId: String(row.first_id),
            claimed: row.fwd_state === 'claimed',
            ...(seenKey !== undefined ? { seenKey } : {}),
          });
        },
      });
      this.pump();
    });
  }

  private readonly queue: Pending[] = [];
  private flushing = 0;

  /** Starts a batch when appends wait and fewer than MAX_FLUSHES batches are under way. */
  private pump(): void {
    while (this.queue.length > 0 && this.flushing < MAX_FLUSHES) {
      const batch: Pending[] = [];
      const keys = new Set<string>();
      for (let i = 0; i < this.queue.length && batch.length < MAX_BATCH;) {
        const p = this.queue[i]!;
        if (p.key !== undefined && keys.has(p.key)) {
          i += 1; // a second arrival of one identity waits for the next batch
          continue;
        }
        if (p.key !== undefined) keys.add(p.key);
        batch.push(p);
        this.queue.splice(i, 1);
      }
      this.flushing += 1;
      void this.flush(batch).finally(() => {
        this.flushing -= 1;
        this.pump();
      });
    }
  }

  private async flush(batch: Pending[]): Promise<void> {
    try {
      const keyed = batch.filter((p) => p.key !== undefined);
      const plain = batch.filter((p) => p.key === undefined);
      const rows = new Map<Pending, AppendRow>();
      if (keyed.length === 1)
        rows.set(keyed[0]!, (await this.pool.query<AppendRow>(keyed[0]!.sql, keyed[0]!.args)).rows[0]!);
      else if (keyed.length > 1) {
        // One statement: one transaction, one commit (and one disk flush) for the whole batch.
        const col = (i: number) => keyed.map((p) => p.args[i]);
        const args: unknown[] = [0, 1, 3, 4, 5, 6, 7, 8, 9].map(col);
        args.push(
          keyed.map((p) => JSON.stringify(p.args[10])),
          col(11),
          col(12),
          ms(this.windowMs),
        );
        const result = await this.pool.query<AppendRow & { seen_key: string }>(APPEND_BATCH, args);
        const byKey = new Map(result.rows.map((r) => [r.seen_key, r]));
        for (const p of keyed) {
          const row = byKey.get(p.key!);
          if (!row) throw new Error('the store did not return an appended row');
          rows.set(p, row);
        }
      }
      for (const p of plain) rows.set(p, (await this.pool.query<AppendRow>(p.sql, p.args)).rows[0]!);
      for (const p of batch) p.done(undefined, rows.get(p));
      this.notifySoon();
    } catch (error) {
      for (const p of batch) p.done(error);
    }
  }

  async reclaimFailed(appended: Appended, claim: ForwardClaim): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE callctl_events SET fwd_state = 'claimed', fwd_owner = $2, fwd_lease = now() + $3::interval
       WHERE id = $1 AND fwd_state = 'failed' RETURNING id`,
      [appended.firstId, claim.owner, ms(claim.leaseMs)],
    );
    return r.rowCount === 1;
  }

  async renewClaim(id: string, claim: ForwardClaim): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE callctl_events SET fwd_lease = now() + $3::interval WHERE id = $1 AND fwd_owner = $2 AND fwd_state = 'claimed' RETURNING id`,
      [id, claim.owner, ms(claim.leaseMs)],
    );
    return r.rowCount === 1;
  }

  async finishForward(id: string, owner: string, result: ForwardResult): Promise<void> {
    await this.pool.query(
      `UPDATE callctl_events SET fwd_state = $3, fwd_status = $4, fwd_error = $5, fwd_attempts = coalesce(fwd_attempts, 0) + $6, fwd_at = now(), fwd_lease = NULL
       WHERE id = $1 AND fwd_owner = $2 AND fwd_state = 'claimed'`,
      [id, owner, result.ok ? 'done' : 'failed', result.status ?? null, result.error ?? null, result.attempts],
    );
  }

  async takeAbandoned(claim: ForwardClaim, limit: number): Promise<StoredEvent[]> {
    const r = await this.pool.query<Row>(
      `UPDATE callctl_events SET fwd_owner = $1, fwd_lease = now() + $2::interval
       WHERE id IN (SELECT id FROM callctl_events WHERE fwd_state = 'claimed' AND fwd_lease < now() ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [claim.owner, ms(claim.leaseMs), limit],
    );
    return r.rows.map(toEvent);
  }

  async *read(filter: EventFilter, after?: string): AsyncGenerator<StoredEvent> {
    const where: string[] = [];
    const args: unknown[] = [];
    const arg = (v: unknown) => `$${args.push(v)}`;
    if (after !== undefined) where.push(`id > ${arg(after)}`);
    if (filter.types) {
      const types = [...filter.types];
      const named = types.filter((t) => t !== 'refused');
      const parts = [
        named.length ? `type = ANY(${arg(named)})` : undefined,
        types.includes('refused') ? 'type IS NULL' : undefined,
      ].filter(Boolean);
      where.push(`(${parts.join(' OR ')})`);
    }
    if (filter.since !== undefined) where.push(`received_at >= ${arg(new Date(filter.since).toISOString())}`);
    if (filter.until !== undefined) where.push(`received_at < ${arg(new Date(filter.until).toISOString())}`);
    if (filter.plan !== undefined) where.push(`plan = ${arg(filter.plan)}`);
    if (filter.task !== undefined) where.push(`task = ${arg(filter.task)}`);
    if (filter.callee !== undefined) where.push(`callee = ${arg(filter.callee)}`);
    if (filter.verdicts) {
      const v = [...filter.verdicts];
      where.push(`(verdict = ANY(${arg(v)})${v.includes('refused') ? ' OR (verdict IS NULL AND answer <> 200)' : ''})`);
    }
    if (filter.key !== undefined) where.push(`key = ${arg(filter.key)}`);
    if (filter.retries !== undefined) where.push(filter.retries ? 'retry > 0' : 'retry = 0');
    const cond = where.length ? `WHERE ${where.join(' AND ')}` : '';
    // The latest N (shown oldest first) when a limit is given without a position; else in pages.
    if (filter.limit !== undefined && after === undefined) {
      const rows = await this.pool.query<Row>(
        `SELECT * FROM (SELECT ${COLUMNS} FROM callctl_events ${cond} ORDER BY id DESC LIMIT ${arg(filter.limit)}) t ORDER BY id`,
        args,
      );
      for (const row of rows.rows) yield toEvent(row);
      return;
    }
    let last = after;
    let left = filter.limit ?? Infinity;
    const page = 1000;
    for (;;) {
      const pageArgs = [...args];
      const pageWhere = [...where];
      if (last !== undefined) pageWhere.push(`id > $${pageArgs.push(last)}`);
      const rows = await this.pool.query<Row>(
        `SELECT ${COLUMNS} FROM callctl_events ${pageWhere.length ? `WHERE ${pageWhere.join(' AND ')}` : ''} ORDER BY id LIMIT ${Math.min(page, left)}`,
        pageArgs,
      );
      for (const row of rows.rows) yield toEvent(row);
      left -= rows.rows.length;
      if (rows.rows.length < page || left <= 0) return;
      last = String(rows.rows.at(-1)!.id);
    }
  }

  async get(id: string): Promise<StoredEvent | undefined> {
    if (!/^[1-9]\d{0,18}$/.test(id)) return undefined;
    const r = await this.pool.query<Row>(`SELECT ${COLUMNS} FROM callctl_events WHERE id = $1`, [id]);
    return r.rows[0] ? toEvent(r.rows[0]) : undefined;
  }

  /** LISTEN on a connection of its own; a NOTIFY (or a lost connection) wakes every waiter. */
  async waitForMore(signal: AbortSignal): Promise<boolean> {
    if (!this.listener) {
      this.listener = await this.pool.connect();
      this.listener.on('notification', () => this.wake());
      this.listener.on('error', () => this.wake());
      await this.listener.query('LISTEN callctl_events');
    }
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(false);
      const onAbort = () => {
        this.wakers.delete(waker);
        resolve(false);
      };
      const poll = setTimeout(() => {
        this.wakers.delete(waker);
        waker();
      }, FOLLOW_POLL_MS);
      const onAbortAll = () => {
        clearTimeout(poll);
        onAbort();
      };
      const waker = () => {
        clearTimeout(poll);
        signal.removeEventListener('abort', onAbortAll);
        resolve(true);
      };
      this.wakers.add(waker);
      signal.addEventListener('abort', onAbortAll, { once: true });
    });
  }

  /** One NOTIFY for the appends of the last moment, outside their transactions. */
  private notifySoon(): void {
    if (this.notifyTimer) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      this.pool.query("SELECT pg_notify('callctl_events', '')").catch(() => undefined);
    }, NOTIFY_DELAY_MS);
    this.notifyTimer.unref();
  }

  private wake(): void {
    const wakers = [...this.wakers];
    this.wakers.clear();
    for (const w of wakers) w();
  }

  async close(): Promise<void> {
    if (this.notifyTimer) {
      clearTimeout(this.notifyTimer);
      this.notifyTimer = undefined;
      await this.pool.query("SELECT pg_notify('callctl_events', '')").catch(() => undefined);
    }
    if (this.listener) {
      this.listener.release(true);
      this.listener = undefined;
    }
    await this.pool.end();
  }
}

/** The store's tables are missing or at a version this callctl cannot use. */
export class SchemaError extends Error {}

/** A driver or network error as one short line, without the URL (which holds the password). */
export function describe(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const text = (e.message ?? String(error)).split('\n')[0]!.slice(0, 200);
  return e.code && !text.includes(e.code) ? `${text} (${e.code})` : text;
}
