import type { Client, ClientConfig, Pool } from 'pg';
import { AuthError, CliError, LocalError, NetworkError } from '../../errors.js';
import { said } from '../../said.js';
import { oneLine } from '../events.js';

/** Connections per process: enough for 50 concurrent requests to share without queueing long. */
const POOL_SIZE = 16;
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * How every connection to a store is made: from its URL, named `application` (what
 * pg_stat_activity shows; the URL's own application_name wins). The URL's sslmode means what it
 * means to libpq (psql): `require` encrypts without verifying the certificate, `verify-ca` and
 * `verify-full` verify it (pg-connection-string's libpq compatibility, so node-postgres neither
 * takes `require` as verify-full nor prints its warning about it). Nothing here rests on a
 * session (no SET, no session lock, no named statement), so any pooler may hand each statement
 * to another server connection.
 */
async function connection(url: string, application: string): Promise<ClientConfig> {
  const { parse, toClientConfig } = await import('pg-connection-string');
  // The URL may ask for it itself (uselibpqcompat=true), which the option must then not repeat.
  const own = /[?&]uselibpqcompat=/i.test(url);
  const config = toClientConfig(parse(url, own ? {} : { useLibpqCompat: true }));
  return { application_name: application, ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS };
}

/**
 * The pool of connections to a PostgreSQL store (the `pg` driver is loaded only now). No connection
 * is made until the first query.
 */
export async function openPool(url: string, options: { application?: string; max?: number } = {}): Promise<Pool> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    ...(await connection(url, options.application ?? 'callctl')),
    max: options.max ?? POOL_SIZE,
    idleTimeoutMillis: 30_000,
  });
  // Without a handler, a connection dropped while idle (the server restarting) would crash the process.
  pool.on('error', () => undefined);
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
  const client = new pg.Client(await connection(url, application));
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

/**
 * One piece of work on a connection of its own (`connect`), ended after; a failure, of the
 * connection or of the work, as `trouble` says.
 */
export async function onClient<T>(
  connect: () => Promise<Client>,
  trouble: (error: unknown) => Error,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  let client: Client | undefined;
  try {
    client = await connect();
    return await work(client);
  } catch (error) {
    throw trouble(error);
  } finally {
    if (client) await endClient(client);
  }
}

/** Clients whose connection has ended (the server closed it, or end() was called). */
const ENDED = new WeakSet<object>();

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
    return `callctl's tables are not in the store (${oneLine(error)}): run \`callctl store migrate\``;
  return oneLine(error);
}

/**
 * What a store's failure means for the run, as its error: refused credentials (exit 4) and a
 * missing privilege (exit 6) stay so until someone changes them, so they never say "run again
 * later"; anything else (the server away, a timeout) may pass by itself (exit 5). `doing` says
 * what failed ("reach", "write to the journal in"), `shown` the store without its password.
 */
export function storeFailure(doing: string, shown: string, error: unknown): CliError {
  if (error instanceof CliError) return error;
  const e = error as { code?: string; message?: string; path?: string };
  const role = roleOf(shown);
  if (
    e.code === '28P01' ||
    e.code === '28000' ||
    // PgBouncer's refusal of a password (08P01, "SASL authentication failed"), and a server asking
    // for a password the URL does not give.
    (e.code === '08P01' && /authentication/i.test(e.message ?? '')) ||
    /client password must be a string/.test(e.message ?? '')
  )
    return new AuthError(
      said`the store ${shown} refused the credentials of role ${role} (${oneLine(error)}): check the role and its password in the store's URL`,
    );
  if (e.code === '42501')
    return new LocalError(
      said`the store ${shown} refused role ${role} a privilege (${oneLine(error)}): callctl needs SELECT, INSERT, UPDATE and DELETE on its tables and USAGE on their sequences; \`callctl store migrate\` prints the GRANTs their owner runs`,
    );
  if ((e.code === 'ENOENT' || e.code === 'EACCES') && e.path)
    return new LocalError(
      said`cannot read ${e.path}, named by the URL of the store ${shown} (${e.code}): fix the path in the URL or the file's rights`,
    );
  return new NetworkError(said`cannot ${doing} the store ${shown}: ${oneLine(error)}`);
}

/** The role a shown store URL names (its user), quoted as PostgreSQL names it. */
function roleOf(shown: string): string {
  try {
    const user = decodeURIComponent(new URL(shown).username);
    return user ? `"${user}"` : '(the default role)';
  } catch {
    return '(unknown)';
  }
}

export const interval = (n: number) => `${Math.max(0, Math.round(n))} milliseconds`;
