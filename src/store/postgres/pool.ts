import type { Pool } from 'pg';

/** Connections per process: enough for 50 concurrent requests to share without queueing long. */
const POOL_SIZE = 16;
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The pool of connections to a PostgreSQL store (the `pg` driver is loaded only now). No connection
 * is made until the first query. `onIdleError` hears about connections lost while idle (the pool
 * replaces them).
 */
export async function openPool(url: string, onIdleError?: (error: Error) => void): Promise<Pool> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    application_name: 'callctl',
  });
  // Without a handler, a connection dropped while idle (the server restarting) would crash the process.
  pool.on('error', (error) => onIdleError?.(error));
  return pool;
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
