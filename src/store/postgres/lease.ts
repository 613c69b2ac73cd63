import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Pool } from 'pg';
import { NetworkError, UsageError } from '../../errors.js';
import { storeFailure } from './pool.js';
import { oneLine } from '../events.js';
import { said } from '../../said.js';

/**
 * How long a lease holds unless renewed: a run that dies (SIGKILL, its host lost) leaves its
 * lease to the next run this long after its last renewal at most. Renewed every third of it.
 */
export const LEASE_TTL_MS = 30_000;

/** A lease this run holds: its row's name, owner id and fencing number. */
interface Held {
  name: string;
  what: string;
  owner: string;
  fence: string;
  /** performance.now() of the last renewal the store confirmed. */
  renewedAt: number;
  timer: NodeJS.Timeout;
  /** Why it was lost (expired, or taken by another run); undefined while held. */
  lost?: string;
}

/** Who holds a lease, as its row says. */
interface Holder {
  pid: number;
  host: string;
  what: string;
  started: Date;
}

export interface LeaseOptions {
  pool: Pool;
  /** The store, as it may be shown (no password). */
  where: string;
  ttlMs?: number;
  /** Told once when a lease is lost under the run (it stops before its next send: see fence). */
  onLost: (what: string, why: string) => void;
}

/** Takes a lease when it is free or its holder let it expire; answers the new fencing number. */
const ACQUIRE = `
INSERT INTO callctl_leases AS l (name, owner, fence, pid, host, what, started, expires)
VALUES ($1, $2, nextval('callctl_lease_fence'), $3, $4, $5, now(), now() + $6 * interval '1 millisecond')
ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, fence = EXCLUDED.fence, pid = EXCLUDED.pid,
  host = EXCLUDED.host, what = EXCLUDED.what, started = EXCLUDED.started, expires = EXCLUDED.expires
WHERE l.expires < now()
RETURNING fence::text AS fence`;

/**
 * The leases of a run, recorded in the store's `callctl_leases` table (a row per lease: its name,
 * an owner id, the holder's pid, host, start and work, an expiry, and a fencing number), so that
 * they hold through any pooler: taking, renewing and releasing a lease are single statements,
 * and nothing rests on a session (PgBouncer's transaction pooling hands each statement to any
 * server connection). A lease is renewed every third of its TTL while the run lives; one whose
 * run died expires by itself. A lease lost under the run (its renewal finds it expired or
 * taken) is told once, and every fenced write then fails: the journal's intent and the ledger's
 * `pending` check, in the statement that writes them, that this run still holds every lease it
 * took (fenceCondition), so a run that lost its lease stops before its next send.
 */
export class Leases {
  private readonly held = new Map<string, Held>();
  private readonly ttlMs: number;

  constructor(private readonly o: LeaseOptions) {
    this.ttlMs = o.ttlMs ?? LEASE_TTL_MS;
  }

  /** Takes the lease `name`; busy: a UsageError naming its holder. Resolves to its release. */
  async acquire(name: string, what: string): Promise<() => Promise<void>> {
    const owner = randomBytes(12).toString('hex');
    let fence: string | undefined;
    try {
      const r = await this.o.pool.query<{ fence: string }>(ACQUIRE, [
        name,
        owner,
        process.pid,
        hostname(),
        what,
        this.ttlMs,
      ]);
      fence = r.rows[0]?.fence;
    } catch (error) {
      throw storeFailure(`take the lock of this ${what} in`, this.o.where, error);
    }
    if (fence === undefined) throw busy(what, this.o.where, await this.holder(name));
    const held: Held = {
      name,
      what,
      owner,
      fence,
      renewedAt: performance.now(),
      timer: setInterval(() => void this.renew(held), this.ttlMs / 3),
    };
    held.timer.unref();
    this.held.set(name, held);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      clearInterval(held.timer);
      if (this.held.get(name) === held) this.held.delete(name);
      // Best effort: a lease that cannot be released now expires by itself.
      await this.o.pool
        .query('DELETE FROM callctl_leases WHERE name = $1 AND owner = $2', [name, owner])
        .catch(() => undefined);
    };
  }

  /**
   * The leases a fenced write checks, as the JSON parameter of fenceCondition; throws at once
   * when one is known to be lost.
   */
  fence(): string {
    const all = [...this.held.values()];
    const lost = all.find((h) => h.lost !== undefined);
    if (lost) throw this.lostError(lost);
    return JSON.stringify(all.map((h) => ({ n: h.name, o: h.owner, f: h.fence })));
  }

  /** The error of a fenced write that found a lease gone (after fence() passed). */
  fenceFailed(): NetworkError {
    const first = [...this.held.values()][0];
    return first
      ? this.lostError({ ...first, lost: first.lost ?? 'it expired, or another run took it' })
      : new NetworkError(said`a lock of this run in the store ${this.o.where} was lost`);
  }

  /** Stops renewing (the run ends; its leases are released by their owners, or expire). */
  close(): void {
    for (const h of this.held.values()) clearInterval(h.timer);
  }

  private async renew(h: Held): Promise<void> {
    if (h.lost !== undefined) return;
    try {
      const r = await this.o.pool.query(
        `UPDATE callctl_leases SET expires = now() + $4 * interval '1 millisecond'
          WHERE name = $1 AND owner = $2 AND fence = $3 AND expires > now()`,
        [h.name, h.owner, h.fence, this.ttlMs],
      );
      if (r.rowCount === 1) {
        h.renewedAt = performance.now();
        return;
      }
      const now = await this.holder(h.name);
      this.lose(h, now ? `another run took it (${who(now)})` : 'it expired');
    } catch (error) {
      // The store away: the lease may still hold until its expiry; past that, it is lost.
      if (performance.now() - h.renewedAt >= this.ttlMs)
        this.lose(h, `it could not be renewed for ${Math.round(this.ttlMs / 1000)} s (${oneLine(error)})`);
    }
  }

  private lose(h: Held, why: string): void {
    if (h.lost !== undefined) return;
    h.lost = why;
    clearInterval(h.timer);
    this.o.onLost(h.what, why);
  }

  private lostError(h: Held): NetworkError {
    return new NetworkError(
      said`the lock of this ${h.what} in the store ${this.o.where} was lost (${h.lost}): stopped before the next send, which another run may now make`,
    );
  }

  private async holder(name: string): Promise<Holder | undefined> {
    const r = await this.o.pool
      .query<Holder>('SELECT pid, host, what, started FROM callctl_leases WHERE name = $1', [name])
      .catch(() => undefined);
    return r?.rows[0];
  }
}

/**
 * The SQL condition a fenced write adds to its statement: every lease in the JSON parameter
 * `$n` (Leases.fence) is still this run's and unexpired. True when the run holds none.
 */
export function fenceCondition(n: number): string {
  return `(SELECT count(*) FROM callctl_leases l, jsonb_to_recordset($${n}::jsonb) AS h(n text, o text, f bigint)
   WHERE l.name = h.n AND l.owner = h.o AND l.fence = h.f AND l.expires > now()) = jsonb_array_length($${n}::jsonb)`;
}

const who = (h: Holder) => `pid ${h.pid} on ${h.host}, started ${h.started.toISOString()}`;

function busy(what: string, where: string, holder: Holder | undefined): UsageError {
  return new UsageError(
    said`another ${what} is running (${holder ? who(holder) : 'another run'}; its lock is in the store ${where}); wait for it to finish, or stop it and run again`,
    holder ? { pid: holder.pid, host: holder.host } : {},
  );
}
