import type { Pool, PoolClient } from 'pg';
import { DEDUP_WINDOW_MS, SHARED_PAIR_MS } from './dedup.js';
import type { EventSummary } from '../schemas/detect.js';
import type { HookRecord } from './event-log.js';
import { recordFacts } from './facts.js';
import { migrate, schemaStatus, SCHEMA_VERSION, type SchemaStatus } from './pg-schema.js';
import {
  StoreUnavailable,
  type Appended,
  type EventFilter,
  type EventStore,
  type ForwardClaim,
  type ForwardResult,
  type PairMemory,
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
/**
 * Each receiver forgets the identities not seen for twice the dedup window, this often, a batch
 * at a time (an arrival past the window starts a new event anyway: forgetting its identity
 * changes no answer, only the table's size; the second window is room for receivers' clocks to
 * differ). The first pass runs a minute after the first append.
 */
const FORGET_EVERY_MS = 10 * 60_000;
const FORGET_FIRST_MS = 60_000;
const FORGET_BATCH = 5_000;

/**
 * Appends a batch (group commit) in one statement, so one transaction and one commit: the events'
 * rows and their identities' arrival counts are committed together or not at all. The batch comes
 * as one JSON parameter (an array of {n, s, r, p, t, c, o, l}: position, seen key, record, plan,
 * task, callee, forward owner, lease ms), not as arrays of many parameters: serialising one string
 * is what costs the receiver least, and PostgreSQL reads the records out of it as jsonb without
 * parsing them a second time. Identities are locked in the order of their keys, so two batches (of
 * this receiver or another) never deadlock. Rows without a seen key (a request refused before it
 * was judged) are appended as new. The answer is one JSON array (one row to read, not one per
 * append) of [position n, id, retry, claimed, first id].
 */
const APPEND = {
  name: 'callctl_append_v1',
  text: `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(n int, s text, r jsonb, p text, t text, c text, o text, l int)
), k AS (
  INSERT INTO callctl_event_keys AS k (key, arrivals, first_id, last_at)
  SELECT s, 1, nextval('callctl_events_id_seq'), (r->>'time')::timestamptz FROM input WHERE s IS NOT NULL ORDER BY s
  ON CONFLICT (key) DO UPDATE SET
    arrivals = CASE WHEN k.last_at >= EXCLUDED.last_at - $2 * interval '1 millisecond' THEN k.arrivals + 1 ELSE 1 END,
    first_id = CASE WHEN k.last_at >= EXCLUDED.last_at - $2 * interval '1 millisecond' THEN k.first_id ELSE EXCLUDED.first_id END,
    last_at  = GREATEST(k.last_at, EXCLUDED.last_at)
  RETURNING key, arrivals, first_id
), rows AS (
  SELECT i.*, coalesce(k.arrivals, 1) AS arrivals, k.first_id,
         CASE WHEN k.arrivals = 1 THEN k.first_id ELSE nextval('callctl_events_id_seq') END AS id
  FROM input i LEFT JOIN k ON k.key = i.s
), ins AS (
  INSERT INTO callctl_events (id, received_at, type, key, seen_key, retry, answer, verdict, plan, task, callee, record, fwd_state, fwd_owner, fwd_lease)
  SELECT id, (r->>'time')::timestamptz, r->>'type', r->>'key', s, arrivals - 1, (r->>'answer')::int, r->>'verdict', p, t, c, r,
         CASE WHEN o IS NOT NULL AND s IS NOT NULL AND arrivals = 1 THEN 'claimed' END,
         CASE WHEN o IS NOT NULL AND s IS NOT NULL AND arrivals = 1 THEN o END,
         CASE WHEN o IS NOT NULL AND s IS NOT NULL AND arrivals = 1 THEN now() + l * interval '1 millisecond' END
  FROM rows
  RETURNING id, retry, fwd_state
)
SELECT json_agg(json_build_array(rows.n, ins.id::text, ins.retry, ins.fwd_state = 'claimed', coalesce(rows.first_id, ins.id)::text)) AS done
FROM ins JOIN rows ON rows.id = ins.id`,
} as const;

/**
 * Appends in one batch at most (and record bytes, a soft bound: a batch holds at least one), and
 * batches under way at once per receiver. One at a time makes each as large as it can be: the
 * appends that come while a batch runs go together in the next, so the cost of a statement and of
 * its commit is shared by more of them (bench/hooks.mjs: 4 at once gave batches of 18 and twice
 * the CPU per event of PostgreSQL; 2 at once, 15-25% more than 1).
 */
const MAX_BATCH = 500;
const MAX_BATCH_BYTES = 4 << 20;
const MAX_FLUSHES = 1;

/** What the store answers for one append: [position in the batch, id, retry, claimed, first id]. */
type AppendRow = [n: number, id: string, retry: number, claimed: boolean, firstId: string];

/** One append waiting for its batch: the element of the batch's JSON, and who waits. */
interface Pending {
  key: string | undefined;
  item: { n?: number; s?: string; r: Partial<HookRecord>; p?: string; t?: string; c?: string; o?: string; l?: number };
  bytes: number;
  done: (error?: unknown, row?: AppendRow) => void;
}

/**
 * PostgreSQL text cannot hold a NUL character, and anyone can POST one. A body holding one is kept
 * as base64 (its bytes stay exact, as for a body that is not UTF-8); a NUL anywhere else (an id
 * taken from a JSON escape, the identity) is kept as U+FFFD. Runs only when the batch's JSON has one.
 */
function withoutNul(batch: Pending[]): string {
  for (const p of batch) {
    const r = p.item.r;
    if (r.body !== undefined && r.encoding === undefined && r.body.includes('\u0000')) {
      p.item.r = { ...r, body: Buffer.from(r.body, 'utf8').toString('base64'), encoding: 'base64' };
    }
  }
  // A \u0000 escape is one whose backslash is not itself escaped (preceded by an even number).
  return JSON.stringify(batch.map((p) => p.item)).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd');
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
  private forgetTimer: NodeJS.Timeout | undefined;
  /** Set by close(): an append it did not wait for, finishing later, starts no forgetting. */
  private closed = false;

  private constructor(
    private readonly pool: Pool,
    url: string,
    private readonly windowMs: number,
    private readonly forgetEveryMs: number,
  ) {
    this.where = shownUrl(url);
  }

  /**
   * Connects (lazily: no connection is made until the first query) and loads the driver.
   * `onIdleError` hears about connections lost while idle (the pool replaces them).
   */
  static async open(
    url: string,
    options: { windowMs?: number; forgetEveryMs?: number; onIdleError?: (error: Error) => void } = {},
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
    return new PostgresStore(pool, url, options.windowMs ?? DEDUP_WINDOW_MS, options.forgetEveryMs ?? FORGET_EVERY_MS);
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
   * Appends go to the database in batches (group commit): the appends waiting when a batch can
   * start go together in one statement ({@link APPEND}), and each waits for the commit of its
   * batch before it is answered.
   */
  append(
    record: HookRecord,
    seenKey: string | undefined,
    forward?: ForwardClaim,
    facts?: EventSummary,
  ): Promise<Appended> {
    const f = facts ?? recordFacts(record);
    // Without retry and duplicate, which the store answers (a rest copy: `delete` would make
    // V8 keep the object as a slow dictionary, and JSON.stringify it slowly).
    const { retry: _retry, duplicate: _duplicate, ...stored } = record;
    const item: Pending['item'] = { r: stored };
    if (seenKey !== undefined) item.s = seenKey;
    if (f.plan !== undefined) item.p = f.plan;
    if (f.task !== undefined) item.t = f.task;
    if (f.callee !== undefined) item.c = f.callee;
    if (forward && seenKey !== undefined) [item.o, item.l] = [forward.owner, Math.max(0, Math.round(forward.leaseMs))];
    return new Promise<Appended>((resolve, reject) => {
      this.queue.push({
        key: seenKey,
        item,
        bytes: record.body?.length ?? 0,
        done: (error, row) => {
          if (error || !row)
            return reject(
              new StoreUnavailable(
                `cannot write to the store: ${writeFailure(error ?? new Error('the store did not return an appended row'))}`,
              ),
            );
          const [, id, retry, claimed, firstId] = row;
          record.retry = retry;
          record.duplicate = retry > 0;
          resolve({ id, retry, firstId, claimed, ...(seenKey !== undefined ? { seenKey } : {}) });
        },
      });
      this.pumpSoon();
    });
  }

  private readonly queue: Pending[] = [];
  private flushing = 0;
  private pumpScheduled = false;

  /**
   * Starts a batch once the requests read in this turn of the event loop have all been appended
   * (setImmediate runs after the poll phase): a burst of requests arriving together goes in one
   * batch, instead of the first alone and the others in the next. No wait when idle.
   */
  private pumpSoon(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /**
   * Starts a batch when appends wait and fewer than MAX_FLUSHES batches are under way. Two
   * arrivals of one identity never share a batch (the second waits for the next), so each sees
   * the other's count.
   */
  private pump(): void {
    while (this.queue.length > 0 && this.flushing < MAX_FLUSHES) {
      const batch: Pending[] = [];
      const keys = new Set<string>();
      let bytes = 0;
      const rest: Pending[] = [];
      for (const p of this.queue) {
        if (
          batch.length >= MAX_BATCH ||
          (batch.length > 0 && bytes + p.bytes > MAX_BATCH_BYTES) ||
          (p.key !== undefined && keys.has(p.key))
        ) {
          rest.push(p);
          continue;
        }
        if (p.key !== undefined) keys.add(p.key);
        bytes += p.bytes;
        batch.push(p);
      }
      this.queue.length = 0;
      this.queue.push(...rest);
      this.flushing += 1;
      void this.flush(batch).finally(() => {
        this.flushing -= 1;
        this.pump();
      });
    }
  }

  private async flush(batch: Pending[]): Promise<void> {
    let rows: AppendRow[];
    try {
      for (let i = 0; i < batch.length; i++) batch[i]!.item.n = i;
      let json = JSON.stringify(batch.map((p) => p.item));
      if (json.includes('\\u0000')) json = withoutNul(batch);
      rows =
        (await this.pool.query<{ done: AppendRow[] | null }>({ ...APPEND, values: [json, this.windowMs] })).rows[0]
          ?.done ?? [];
    } catch (error) {
      for (const p of batch) p.done(error);
      return;
    }
    const byN = new Map(rows.map((r) => [r[0], r]));
    for (let i = 0; i < batch.length; i++) batch[i]!.done(undefined, byN.get(i));
    this.notifySoon();
    this.forgetLater();
  }

  /** Starts forgetting old identities, after the first append (a store only read never deletes). */
  private forgetLater(): void {
    if (this.forgetTimer || this.closed) return;
    const pass = (next: number) => {
      this.forgetTimer = setTimeout(() => {
        this.forgetKeys(new Date(Date.now() - 2 * this.windowMs))
          .catch(() => undefined) // the next pass tries again
          .finally(() => {
            if (!this.closed) pass(this.forgetEveryMs);
          });
      }, next);
      this.forgetTimer.unref();
    };
    pass(Math.min(FORGET_FIRST_MS, this.forgetEveryMs));
  }

  /**
   * Deletes the identities last seen before `before`, a batch at a time (rows another receiver is
   * counting an arrival on right now are skipped, not waited for). Returns how many were deleted.
   */
  async forgetKeys(before: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const r = await this.pool.query(
        `DELETE FROM callctl_event_keys WHERE key IN (
           SELECT key FROM callctl_event_keys WHERE last_at < $1 ORDER BY last_at LIMIT ${FORGET_BATCH} FOR UPDATE SKIP LOCKED)`,
        [before],
      );
      total += r.rowCount ?? 0;
      if ((r.rowCount ?? 0) < FORGET_BATCH) return total;
    }
  }

  planPairs(windowMs: number): PairMemory {
    const failed = (error: unknown) => new StoreUnavailable(`cannot write to the store: ${writeFailure(error)}`);
    return {
      replay: async (pair, key, now) => {
        const r = await this.pool
          .query<{ first: Date | null; mine: boolean | null }>(
            'SELECT min(at) AS first, bool_or(key = $2) AS mine FROM callctl_plan_pairs WHERE pair = $1 AND at >= $3',
            [pair, key, new Date(now - windowMs)],
          )
          .catch((error: unknown) => {
            throw failed(error);
          });
        const { first, mine } = r.rows[0] ?? { first: null, mine: null };
        return first !== null && mine !== true && now - first.getTime() > SHARED_PAIR_MS;
      },
      claim: async (pair, key, now) => {
        // Pairs past the window go as new ones come (plan ends are few: one per plan).
        const r = await this.pool
          .query(
            `WITH gone AS (DELETE FROM callctl_plan_pairs WHERE at < $4)
             INSERT INTO callctl_plan_pairs (pair, key, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
            [pair, key, new Date(now), new Date(now - windowMs)],
          )
          .catch((error: unknown) => {
            throw failed(error);
          });
        if (r.rowCount !== 1) return () => undefined;
        return () => {
          // Best effort: a claim left behind only refuses other events under the pair, as a kept one would.
          this.pool
            .query('DELETE FROM callctl_plan_pairs WHERE pair = $1 AND key = $2', [pair, key])
            .catch(() => undefined);
        };
      },
    };
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
    this.closed = true;
    clearTimeout(this.forgetTimer);
    this.forgetTimer = undefined;
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

/**
 * Why an append failed, as one line: a database without callctl's tables (one restored empty,
 * say) is told with what fixes it, since every append fails alike until then.
 */
function writeFailure(error: unknown): string {
  if ((error as { code?: string }).code === '42P01')
    return `callctl's tables are not in the store (${describe(error)}): run \`callctl store migrate\``;
  return describe(error);
}

/** A driver or network error as one short line, without the URL (which holds the password). */
export function describe(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const text = (e.message ?? String(error)).split('\n')[0]!.slice(0, 200);
  return e.code && !text.includes(e.code) ? `${text} (${e.code})` : text;
}
