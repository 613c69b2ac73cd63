import type { Pool } from 'pg';
import { interval } from './pg-pool.js';
import { COLUMNS, toEvent, type Row } from './pg-read.js';
import type { Appended, ForwardClaim, Forwarded, ForwardResult, StoredEvent } from './types.js';

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

  async renewClaim(id: string, claim: ForwardClaim): Promise<number | false> {
    const r = await this.pool.query<{ n: number }>(
      `UPDATE callctl_events SET fwd_lease = now() + $3::interval, fwd_attempts = coalesce(fwd_attempts, 0) + 1
       WHERE id = $1 AND fwd_owner = $2 AND fwd_state = 'claimed' RETURNING fwd_attempts AS n`,
      [id, claim.owner, interval(claim.leaseMs)],
    );
    return r.rows[0]?.n ?? false;
  }

  async finishForward(id: string, owner: string, result: ForwardResult): Promise<void> {
    await this.pool.query(
      `UPDATE callctl_events SET fwd_state = $3, fwd_status = $4, fwd_error = $5, fwd_attempts = greatest(coalesce(fwd_attempts, 0), $6), fwd_at = now(), fwd_lease = NULL
       WHERE id = $1 AND fwd_owner = $2 AND fwd_state = 'claimed'`,
      [id, owner, result.ok ? 'done' : 'failed', result.status ?? null, result.error ?? null, result.attempts],
    );
  }

  async takeAbandoned(claim: ForwardClaim, limit: number): Promise<StoredEvent[]> {
    const r = await this.pool.query<Row>(
      `UPDATE callctl_events SET fwd_owner = $1, fwd_lease = now() + $2::interval
       WHERE id IN (SELECT id FROM callctl_events WHERE fwd_state = 'claimed' AND fwd_lease < now() ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}`,
      [claim.owner, interval(claim.leaseMs), limit],
    );
    return r.rows.map(toEvent);
  }
}
