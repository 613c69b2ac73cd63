import type { Context } from '../../context.js';
import { LocalError, NetworkError, UsageError } from '../../errors.js';
import type { EventStore } from '../../store/events.js';
import type { StoreFlags } from '../../store/resolve.js';

/**
 * The store to read events from: `--log FILE` (an NDJSON log), else the store of `--store`,
 * `--store-file`, CALLCTL_STORE, CALLCTL_STORE_FILE or the profile (a postgres:// URL or a file).
 */
export async function readSource(ctx: Context, flags: StoreFlags): Promise<EventStore> {
  return (await ctx.store(flags)).events({});
}

/**
 * A read that failed half-way: the database went away (exit 5, store named without its
 * password), or the NDJSON log is a folder or unreadable (exit 6: running again will not help).
 */
export async function readFailed(store: EventStore, error: unknown): Promise<never> {
  if (error instanceof UsageError || error instanceof NetworkError || error instanceof LocalError) throw error;
  throw store.readFailure(error);
}
