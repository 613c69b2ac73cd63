import type { Client, ClientConfig, Pool } from 'pg';

/** Connections per process: enough for 50 concurrent requests to share without queueing long. */
const POOL_SIZE = 16;
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * How every connection to a store is made: from its URL, named `application` (what
 * pg_stat_activity shows). Nothing here rests on a session (no SET, no session lock, no named
 * statement), so any pooler may hand each statement to another server connection.
 */
function connection(url: string, application: string): ClientConfig {
  return { connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: application };
}

/**
 * The pool of connections to a PostgreSQL store (the `pg` driver is loaded only now). No connection
 * is made until the first query. `onIdleError` hears about connections lost while idle (the pool
 * replaces them).
 */
export async function openPool(
  url: string,
  options: { application?: string; max?: number; onIdleError?: (error: Error) => void } = {},
): Promise<Pool> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    ...connection(url, options.application ?? 'callctl'),
    max: options.max ?? POOL_SIZE,
    idleTimeoutMillis: 30_000,
  });
  // Without a handler, a connection dropped while idle (the server restarting) would crash the process.
  pool.on('error', (error) => options.onIdleError?.(error));
  return pool;
}

/**
 * What a store's journals and ledgers share (PostgresStore makes it): where the store is, a
 * connection of their own, and the run's leases, which every write they make checks (fenced).
 */
export interface Link {
  /** The store as it may be shown (no password). */
  readonly shown: string;
  /** A connection of its own, named `application`, on a schema this callctl can use. End it with endClient. */
  connect(application: string): Promise<Client>;
  /** The run's leases, as the parameter of fenceCondition (Leases.fence): throws when one is known lost. */
  fence(): string;
  /** The error of a fenced write that found a lease gone. */
  fenceFailed(): Error;
}

/** A connection of its own (a journal's appender, an open ledger, a read), connected. */
export async function connectClient(url: string, application: string): Promise<Client> {
  const { default: pg } = await import('pg');
  const client = new pg.Client(connection(url, application));
  client.on('error', () => undefined); // told by the query that meets it
  // end() on a connection the server already closed would wait forever: it is skipped then.
  client.once('end', () => ENDED.add(client));
  try {
    await client.connect();
  } catch (error) {
    await endClient(client);
    throw error;
  }
  return client;
}

/** Clients whose connection has ended (the server closed it, or end() was called). */
const ENDED = new WeakSet<object>();

/** Ends a client's connection unless it has ended already. */
export async function endClient(client: Client): Promise<void> {
  if (ENDED.has(client)) return;
  ENDED.add(client);
  await client.end().catch(() => undefined);
}

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

/**
 * Why a write failed, as one line: a database without callctl's tables (one restored empty,
 * say) is told with what fixes it, since every write fails alike until then.
 */
export function writeFailure(error: unknown): string {
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

/** `n` milliseconds as a PostgreSQL interval. */
export const interval = (n: number) => `${Math.max(0, Math.round(n))} milliseconds`;
