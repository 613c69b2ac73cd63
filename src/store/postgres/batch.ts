import type { Pool } from 'pg';
import type { HookRecord } from '../events.js';

/**
 * Appends a batch (group commit) in one statement, so one transaction and one commit: the events'
 * rows and their identities' arrival counts are committed together or not at all. The batch comes
 * as one JSON parameter (an array of {n, s, r, p, t, c, o, l}: position, seen key, record, plan,
 * task, callee, forward owner, lease ms: 0 leaves the event to any receiver, any other counts the
 * forward's first attempt as the claim's), not as arrays of many parameters: serialising one string
 * is what costs the receiver least, and PostgreSQL reads the records out of it as jsonb without
 * parsing them a second time. Identities are locked in the order of their keys, so two batches (of
 * this receiver or another) never deadlock. Rows without a seen key (a request refused before it
 * was judged) are appended as new. The answer is one JSON array (one row to read, not one per
 * append) of [position n, id, retry, claimed, first id]. An unnamed statement: a named one is
 * prepared on one server connection, which a pooler in transaction mode does not keep for us.
 */
const APPEND = `
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
  INSERT INTO callctl_events (id, received_at, type, key, seen_key, retry, status, verdict, plan, task, callee, record, fwd_state, fwd_owner, fwd_lease, fwd_attempts)
  SELECT id, (r->>'time')::timestamptz, r->>'type', r->>'key', s, arrivals - 1, (r->>'status')::int, r->>'verdict', p, t, c, r,
         CASE WHEN o IS NOT NULL AND s IS NOT NULL AND arrivals = 1 THEN 'claimed' END,
         CASE WHEN o IS NOT NULL AND s IS NOT NULL AND arrivals = 1 THEN o END,
         CASE WHEN o IS NOT NULL AND s IS NOT NULL AND arrivals = 1 THEN now() + l * interval '1 millisecond' END,
         CASE WHEN o IS NOT NULL AND s IS NOT NULL AND arrivals = 1 AND l > 0 THEN 1 END
  FROM rows
  RETURNING id, retry, fwd_state
)
SELECT json_agg(json_build_array(rows.n, ins.id::text, ins.retry, ins.fwd_state = 'claimed', coalesce(rows.first_id, ins.id)::text)) AS done
FROM ins JOIN rows ON rows.id = ins.id`;

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
export type AppendRow = [n: number, id: string, retry: number, claimed: boolean, firstId: string];

/** One row to append, as the batch's JSON holds it (see {@link APPEND}). */
export interface AppendItem {
  n?: number;
  s?: string;
  r: Partial<HookRecord>;
  p?: string;
  t?: string;
  c?: string;
  o?: string;
  l?: number;
}

/** One append waiting for its batch: the element of the batch's JSON, and who waits. */
interface Pending {
  item: AppendItem;
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

export interface BatcherState {
  pool: Pool;
  /** The dedup window: an arrival within it of its identity's last one is a retry. */
  windowMs: number;
  /** Told after each batch committed (the store wakes its followers, starts forgetting). */
  onCommitted: () => void;
}

/**
 * Appends go to the database in batches (group commit): the appends waiting when a batch can start
 * go together in one statement ({@link APPEND}), and each waits for the commit of its batch.
 */
export class AppendBatcher {
  private readonly queue: Pending[] = [];
  private flushing = 0;
  private pumpScheduled = false;

  constructor(private readonly state: BatcherState) {}

  /**
   * Readiness: the append statement run with nothing to append, so that whatever would make
   * appends fail now (tables missing, a right revoked, a read-only server) fails it too.
   */
  async probe(): Promise<void> {
    await this.state.pool.query(APPEND, ['[]', this.state.windowMs]);
  }

  /** Resolves with the row of `item` once its batch is committed; rejects with why it was not. */
  append(item: AppendItem, bytes: number): Promise<AppendRow> {
    return new Promise<AppendRow>((resolve, reject) => {
      this.queue.push({
        item,
        bytes,
        done: (error, row) =>
          error || !row ? reject(error ?? new Error('the store did not return an appended row')) : resolve(row),
      });
      this.pumpSoon();
    });
  }

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
        const key = p.item.s;
        if (
          batch.length >= MAX_BATCH ||
          (batch.length > 0 && bytes + p.bytes > MAX_BATCH_BYTES) ||
          (key !== undefined && keys.has(key))
        ) {
          rest.push(p);
          continue;
        }
        if (key !== undefined) keys.add(key);
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
      const values = [json, this.state.windowMs];
      rows = (await this.state.pool.query<{ done: AppendRow[] | null }>(APPEND, values)).rows[0]?.done ?? [];
    } catch (error) {
      for (const p of batch) p.done(error);
      return;
    }
    const byN = new Map(rows.map((r) => [r[0], r]));
    for (let i = 0; i < batch.length; i++) batch[i]!.done(undefined, byN.get(i));
    this.state.onCommitted();
  }
}
