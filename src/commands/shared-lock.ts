import type { Context } from '../context.js';
import type { JournalStore } from '../state/journal.js';
import type { LedgerStore } from '../state/ledger.js';
import { isPostgresUrl } from '../state/open.js';
import { storeValue } from './store-option.js';

/** Takes a named lock for the run; resolves to its release. */
export type TakeSharedLock = (name: string, what: string) => Promise<() => Promise<void>>;

/**
 * With a PostgreSQL store (CALLCTL_STORE, CALLCTL_STORE_FILE or the profile's `store`), the
 * locks of uploads, pushes and template sends are also taken there, so that two hosts (cron on
 * each) cannot run the same work at once; undefined with no store or an NDJSON one (the files
 * in the state folder are then the only locks, as before). A lock lost under the run (the
 * database gone away) is said on stderr.
 */
export async function sharedLocks(ctx: Context): Promise<TakeSharedLock | undefined> {
  const chosen = await storeValue(ctx, {});
  if (!chosen || !isPostgresUrl(chosen.value)) return undefined;
  const url = chosen.value;
  const { acquireSharedLock } = await import('../state/pg-lock.js');
  return async (name: string, what: string) => {
    const lock = await acquireSharedLock(url, name, what, (error) => {
      void ctx
        .output()
        .then((out) =>
          out.warn(
            `the lock of this ${what} in the store was lost (${error.message.split('\n')[0]}): another host may now start the same work`,
          ),
        );
    });
    return () => lock.release();
  };
}

/**
 * The never-twice ledgers of push and template send in the PostgreSQL store, when there is one
 * (the same setting as sharedLocks); undefined otherwise (the ledger files in the state folder).
 */
export async function sharedLedgers(ctx: Context): Promise<LedgerStore | undefined> {
  const chosen = await storeValue(ctx, {});
  if (!chosen || !isPostgresUrl(chosen.value)) return undefined;
  const { pgLedgers } = await import('../state/pg-ledger.js');
  return pgLedgers(chosen.value);
}

/**
 * The journals of uploads (`upload`) or of push and template send (`reach`) in the PostgreSQL
 * store, when there is one (the same setting as sharedLocks), so that what one host's run sent is
 * known to every host; undefined otherwise (the journal files in the state folder).
 */
export async function sharedJournals(ctx: Context, kind: 'upload' | 'reach'): Promise<JournalStore | undefined> {
  const chosen = await storeValue(ctx, {});
  if (!chosen || !isPostgresUrl(chosen.value)) return undefined;
  const { PgJournals } = await import('../state/pg-journal.js');
  return new PgJournals(chosen.value, kind);
}
