import type { Pool } from 'pg';
import { coalesced } from './coalesce.js';
import { interval } from './pool.js';
import { COLUMNS, toEvent, type Row } from './read.js';
import type { Appended, ForwardClaim, Forwarded, ForwardResult, StoredEvent } from '../events.js';

/**
 * Who forwards which event, among the receivers sharing a store: a claim (owner and lease) on the
 * event's row, taken with its first append, renewed as the forward starts, released when it ends;
 * a claim whose lease ran out (its receiver died) is taken over by another. See EventStore.
 */
export class ForwardClaims {
  constructor(private readonly pool: Pool) {}

  async reclaimFailed(appended: Appended, claim: ForwardClaim): Promise<Forwarded | undefined> {
    const r = await this.pool.query<{ id: string; time: string }>(
      `UPDATE callctl_events SET fwd_state = 'claimed', fwd_owner = $2, fwd_lease = now() + $3::interval
       WHERE id = $1 AND fwd_state = 'failed' RETURNING id::text, record->>'time' AS time`,
      [appended.firstId, claim.owner, interval(claim.leaseMs)],
    );
    return r.rows[0];
  }

  /** Renewed together: the claims of forwards starting while a statement runs go in the next. */
  readonly renewClaim = (id: string, claim: ForwardClaim, count = true): Promise<number | false> =>
    this.renew({ id, claim, count });
  private readonly renew = coalesced<{ id: string; claim: ForwardClaim; count: boolean }, number | false>(
    async (items) => {
      const r = await this.pool.query<{ id: string; n: number }>({
        text: `UPDATE callctl_events e SET fwd_lease = now() + t.l * interval '1 millisecond', fwd_attempts = coalesce(e.fwd_attempts, 0) + t.c
               FROM jsonb_to_recordset($1::jsonb) AS t(id bigint, o text, l int, c int)
               WHERE e.id = t.id AND e.fwd_owner = t.o AND e.fwd_state = 'claimed' RETURNING e.id::text AS id, e.fwd_attempts AS n`,
        values: [
          JSON.stringify(
            items.map(({ id, claim, count }) => ({
              id,
              o: claim.owner,
              l: Math.round(claim.leaseMs),
              c: count ? 1 : 0,
            })),
          ),
        ],
      });
      const renewed = new Map(r.rows.map((row) => [row.id, row.n]));
      return items.map(({ id }) => renewed.get(id) ?? false);
    },
    ({ id }) => id,
  );

  /** Recorded together, as renewClaim: a busy receiver finishes many forwards in one statement. */
  readonly finishForward = (id: string, owner: string, result: ForwardResult): Promise<void> =>
    this.finish({ id, owner, result });
  private readonly finish = coalesced<{ id: string; owner: string; result: ForwardResult }, void>(
    async (items) => {
      await this.pool.query({
        text: `UPDATE callctl_events e SET fwd_state = t.state, fwd_status = t.status, fwd_error = t.error,
                 fwd_attempts = greatest(coalesce(e.fwd_attempts, 0), t.attempts), fwd_at = now(), fwd_lease = NULL
               FROM jsonb_to_recordset($1::jsonb) AS t(id bigint, o text, state text, status int, error text, attempts int)
               WHERE e.id = t.id AND e.fwd_owner = t.o AND e.fwd_state = 'claimed'`,
        values: [
          JSON.stringify(
            items.map(({ id, owner, result }) => ({
              id,
              o: owner,
              state: result.ok ? 'done' : 'failed',
              status: result.status ?? null,
              error: result.error ?? null,
              attempts: result.attempts,
            })),
          ),
        ],
      });
      return items.map(() => undefined);
    },
    ({ id }) => id,
  );

  /**
   * Lapsed claims (by the claims' index): how many, and when the first in the lease's order (the
   * oldest left past a queue, or about the oldest of a dead receiver's) was received.
   */
  async waiting(): Promise<{ count: number; oldest?: Date }> {
    const r = await this.pool.query<{ n: number; oldest: Date | null }>(
      `SELECT count(*)::int AS n,
         (SELECT received_at FROM callctl_events WHERE fwd_state = 'claimed' AND fwd_lease < now()
          ORDER BY fwd_lease LIMIT 1) AS oldest
       FROM callctl_events WHERE fwd_state = 'claimed' AND fwd_lease < now()`,
    );
    const { n, oldest } = r.rows[0]!;
    return oldest ? { count: n, oldest } : { count: n };
  }

  /**
   * Forwards no receiver is doing: claims whose lease ran out (their receiver died), and forwards
   * that failed after their retries (the app down or refusing), tried again once a wait that grows
   * with their attempts has passed (an eighth of the lease per attempt, at most 20 of them: 15 s to
   * 5 min with the default lease), for a day after the event was received; `hooks replay` after that.
   * Events left in the store past a receiver's forward queue (claimed with a lapsed lease) are taken
   * the same way, oldest first. The attempt about to be made is counted, as by renewClaim.
   * Each kind is read in the order of its own index (lease, time of failure), a plain index scan:
   * every renewal leaves an old entry with a past lease in the claims' index, and a plain scan
   * marks those dead as it passes them, where a bitmap scan of both kinds visited each one again
   * (57 ms a sweep by a tenth of the campaign day, growing with the day).
   */
  async takeAbandoned(claim: ForwardClaim, limit: number): Promise<StoredEvent[]> {
    const r = await this.pool.query<Row>(
      `WITH lapsed AS (
         SELECT id FROM callctl_events WHERE fwd_state = 'claimed' AND fwd_lease < now()
         ORDER BY fwd_lease LIMIT $3 FOR UPDATE SKIP LOCKED
       ), failed AS (
         SELECT id FROM callctl_events
         WHERE fwd_state = 'failed' AND fwd_at < now() - $4::interval AND received_at > now() - interval '1 day'
           AND fwd_at < now() - least(coalesce(fwd_attempts, 1), 20) * $4::interval
         ORDER BY fwd_at LIMIT $3 FOR UPDATE SKIP LOCKED
       )
       UPDATE callctl_events SET fwd_state = 'claimed', fwd_owner = $1, fwd_lease = now() + $2::interval,
         fwd_attempts = coalesce(fwd_attempts, 0) + 1
       WHERE id IN (SELECT id FROM (SELECT id FROM lapsed UNION ALL SELECT id FROM failed) t LIMIT $3)
       RETURNING ${COLUMNS}`,
      [claim.owner, interval(claim.leaseMs), limit, interval(claim.leaseMs / 8)],
    );
    return r.rows.map(toEvent);
  }
}
