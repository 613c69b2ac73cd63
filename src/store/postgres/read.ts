import type { Pool } from 'pg';
import type { EventFilter, EventPage, HookRecord, PageCursor, StoredEvent } from '../events.js';

/** The columns an event is read back with (toEvent). */
export const COLUMNS = 'id, retry, record, fwd_state, fwd_owner, fwd_status, fwd_error, fwd_attempts, fwd_at';

export interface Row {
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

export function toEvent(row: Row): StoredEvent {
  // The row's own object, not a copy (read lists may hold a million): the same keys in the same order.
  const { record } = row;
  record.retry = row.retry;
  record.duplicate = row.retry > 0;
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

/** The SQL conditions of a filter, their values pushed onto `args`. */
function conditions(filter: EventFilter, args: unknown[]): string[] {
  const where: string[] = [];
  const arg = (v: unknown) => `$${args.push(v)}`;
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
    where.push(`(verdict = ANY(${arg(v)})${v.includes('refused') ? ' OR (verdict IS NULL AND status <> 200)' : ''})`);
  }
  if (filter.key !== undefined) where.push(`key = ${arg(filter.key)}`);
  if (filter.retries !== undefined) where.push(filter.retries ? 'retry > 0' : 'retry = 0');
  return where;
}

/** One page of events matching `filter`, newest first, by id (the inspector's list). */
export async function pageEvents(pool: Pool, filter: EventFilter, cursor: PageCursor): Promise<EventPage> {
  const args: unknown[] = [];
  const where = conditions(filter, args);
  if (cursor.before !== undefined) where.push(`id < $${args.push(cursor.before)}`);
  if (cursor.after !== undefined) where.push(`id > $${args.push(cursor.after)}`);
  const [rows, newest] = await Promise.all([
    pool.query<Row>(
      `SELECT ${COLUMNS} FROM callctl_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${cursor.limit + 1}`,
      args,
    ),
    pool.query<{ id: string | null }>('SELECT max(id) AS id FROM callctl_events'),
  ]);
  return {
    events: rows.rows.slice(0, cursor.limit).map(toEvent),
    newest: String(newest.rows[0]?.id ?? '0'),
    more: rows.rows.length > cursor.limit,
  };
}

/** Events matching `filter`, oldest first, after id `after` (exclusive) when given. */
export async function* readEvents(pool: Pool, filter: EventFilter, after?: string): AsyncGenerator<StoredEvent> {
  // The latest N (shown oldest first) when a limit is given without a position; else in pages.
  if (filter.limit !== undefined && after === undefined) {
    yield* (await pageEvents(pool, filter, { limit: filter.limit })).events.reverse();
    return;
  }
  const args: unknown[] = [];
  const where = conditions(filter, args);
  let last = after;
  let left = filter.limit ?? Infinity;
  const page = 1000;
  for (;;) {
    const pageArgs = [...args];
    const pageWhere = [...where];
    if (last !== undefined) pageWhere.push(`id > $${pageArgs.push(last)}`);
    const rows = await pool.query<Row>(
      `SELECT ${COLUMNS} FROM callctl_events ${pageWhere.length ? `WHERE ${pageWhere.join(' AND ')}` : ''} ORDER BY id LIMIT ${Math.min(page, left)}`,
      pageArgs,
    );
    for (const row of rows.rows) yield toEvent(row);
    left -= rows.rows.length;
    if (rows.rows.length < page || left <= 0) return;
    last = String(rows.rows.at(-1)!.id);
  }
}

export async function getEvent(pool: Pool, id: string): Promise<StoredEvent | undefined> {
  if (!/^[1-9]\d{0,18}$/.test(id)) return undefined;
  const r = await pool.query<Row>(`SELECT ${COLUMNS} FROM callctl_events WHERE id = $1`, [id]);
  return r.rows[0] ? toEvent(r.rows[0]) : undefined;
}
