import type { Pool } from 'pg';

/**
 * Each receiver forgets the identities not seen for twice the dedup window, this often, a batch
 * at a time (an arrival past the window starts a new event anyway: forgetting its identity
 * changes no answer, only the table's size; the second window is room for receivers' clocks to
 * differ). The first pass runs a minute after the first append.
 */
export const FORGET_EVERY_MS = 10 * 60_000;
const FORGET_FIRST_MS = 60_000;
const FORGET_BATCH = 5_000;

/**
 * Deletes the identities last seen before `before`, a batch at a time (rows another receiver is
 * counting an arrival on right now are skipped, not waited for). Returns how many were deleted.
 */
export async function forgetKeys(pool: Pool, before: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await pool.query(
      `DELETE FROM callctl_event_keys WHERE key IN (
         SELECT key FROM callctl_event_keys WHERE last_at < $1 ORDER BY last_at LIMIT ${FORGET_BATCH} FOR UPDATE SKIP LOCKED)`,
      [before],
    );
    total += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < FORGET_BATCH) return total;
  }
}

export interface ForgettingState {
  windowMs: number;
  everyMs: number;
  /** One pass: deletes the identities last seen before the date. */
  forget: (before: Date) => Promise<number>;
}

/** The passes of forgetting, started by the first append (a store only read never deletes). */
export class Forgetting {
  private timer: NodeJS.Timeout | undefined;
  /** Set by stop(): an append it did not wait for, finishing later, starts no forgetting. */
  private stopped = false;

  constructor(private readonly state: ForgettingState) {}

  start(): void {
    if (this.timer || this.stopped) return;
    const pass = (next: number) => {
      this.timer = setTimeout(() => {
        this.state
          .forget(new Date(Date.now() - 2 * this.state.windowMs))
          .catch(() => undefined) // the next pass tries again
          .finally(() => {
            if (!this.stopped) pass(this.state.everyMs);
          });
      }, next);
      this.timer.unref();
    };
    pass(Math.min(FORGET_FIRST_MS, this.state.everyMs));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
