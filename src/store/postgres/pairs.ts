import type { Pool } from 'pg';
import { SHARED_PAIR_MS } from '../dedup.js';
import { writeFailure } from './pool.js';
import { StoreUnavailable, type PairMemory } from '../events.js';

/** Plan-end pairs remembered in the shared store for `windowMs` (see PairMemory). */
export function pgPairMemory(pool: Pool, windowMs: number): PairMemory {
  const failed = (error: unknown) => new StoreUnavailable(`cannot write to the store: ${writeFailure(error)}`);
  return {
    replay: async (pair, key, now) => {
      const r = await pool
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
      const r = await pool
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
        pool.query('DELETE FROM callctl_plan_pairs WHERE pair = $1 AND key = $2', [pair, key]).catch(() => undefined);
      };
    },
  };
}
