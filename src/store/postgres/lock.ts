import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Client } from 'pg';
import { NetworkError, UsageError } from '../../errors.js';
import { describe, shownUrl } from './pool.js';
import { said } from '../../said.js';

/** A lock held in PostgreSQL by this process. */
export interface SharedLock {
  /** Ends the lock's session (which releases it). Safe to call more than once. */
  release(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 5_000;
/** Advisory-lock names are prefixed so that callctl's keys cannot meet another program's by chance. */
const PREFIX = 'callctl lock\0';

/**
 * The 64-bit advisory-lock key of a name (the first 8 bytes of its SHA-256, signed as PostgreSQL's
 * bigint is), with the two 32-bit halves pg_locks shows it as (classid, objid).
 */
export function lockKey(name: string): { key: string; classid: string; objid: string } {
  const digest = createHash('sha256')
    .update(PREFIX + name)
    .digest();
  const unsigned = digest.readBigUInt64BE(0);
  return {
    key: BigInt.asIntN(64, unsigned).toString(),
    classid: (unsigned >> 32n).toString(),
    objid: (unsigned & 0xffffffffn).toString(),
  };
}

/**
 * Takes a session advisory lock named `name` in the database at `url`, on a connection of its
 * own held for the run: PostgreSQL releases it when that session ends, so a process that dies
 * (even by SIGKILL, or with its host) loses it as soon as the server sees the connection gone.
 * The connection is named `callctl <pid> <host>` (application_name) so that a refused run can
 * name the holder. Busy: a UsageError (exit 2) naming the holder; database unreachable: a
 * NetworkError (exit 5), since nothing was sent and a later run may find it.
 * `onLost` hears of the session ending under the run (the lock is then no longer held).
 */
export async function acquireSharedLock(
  url: string,
  name: string,
  what: string,
  onLost: (error: Error) => void = () => undefined,
): Promise<SharedLock> {
  const { default: pg } = await import('pg');
  const where = shownUrl(url);
  const client: Client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: `callctl ${process.pid} ${hostname()}`.slice(0, 63),
  });
  let released = false;
  // Without a handler, a connection dropped under the run would crash the process.
  client.on('error', (error) => {
    if (!released) onLost(error);
  });
  const { key, classid, objid } = lockKey(name);
  try {
    await client.connect();
    const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
    if (got.rows[0]?.ok) {
      return {
        release: async () => {
          if (released) return;
          released = true;
          // Ending the session releases every lock it holds, the unlock included.
          await client.end().catch(() => undefined);
        },
      };
    }
    const holder = await client.query<{ app: string | null; started: Date | null; addr: string | null }>(
      `SELECT a.application_name AS app, a.backend_start AS started, host(a.client_addr) AS addr
         FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 1
        LIMIT 1`,
      [classid, objid],
    );
    released = true;
    await client.end().catch(() => undefined);
    throw busy(what, where, holder.rows[0]);
  } catch (error) {
    if (!released) {
      released = true;
      await client.end().catch(() => undefined);
    }
    if (error instanceof UsageError) throw error;
    throw new NetworkError(said`cannot take the lock of this ${what} in the store ${where}: ${describe(error)}`);
  }
}

function busy(
  what: string,
  where: string,
  row: { app: string | null; started: Date | null; addr: string | null } | undefined,
): UsageError {
  const m = /^callctl (\d+) (.+)$/.exec(row?.app ?? '');
  const who = m
    ? `pid ${m[1]} on ${m[2]}`
    : row?.app
      ? `${row.app}${row.addr ? ` from ${row.addr}` : ''}`
      : 'another session';
  const at = row?.started ? `, started ${row.started.toISOString()}` : '';
  return new UsageError(
    said`another ${what} is running (${who}${at}; its lock is in the store ${where}); wait for it to finish, or stop it and run again`,
    {
      ...(m ? { pid: Number(m[1]), host: m[2] } : {}),
    },
  );
}
