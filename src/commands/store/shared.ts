import type { Context } from '../../context.js';
import { NetworkError, UsageError } from '../../errors.js';
import { isPostgresUrl } from '../../state/open.js';
import type { PostgresStore } from '../../state/postgres.js';
import { storeValue, type StoreFlags } from '../store-option.js';

/** The PostgreSQL store named by the flags or the environment; a usage error when there is none. */
export async function sharedStore(ctx: Context, flags: StoreFlags): Promise<PostgresStore> {
  const chosen = await storeValue(ctx, flags);
  if (!chosen)
    throw new UsageError('no store: give --store-file, CALLCTL_STORE or CALLCTL_STORE_FILE (postgres://...)');
  if (!isPostgresUrl(chosen.value))
    throw new UsageError(
      `${chosen.from}: \`callctl store\` is for a postgres:// store; the NDJSON file needs no tables`,
    );
  const { PostgresStore } = await import('../../state/postgres.js');
  return PostgresStore.open(chosen.value);
}

/** A failure to reach or query the database, as exit 5 naming the store without its password. */
export async function unreachable(store: PostgresStore, error: unknown): Promise<never> {
  const { describe } = await import('../../state/postgres.js');
  throw new NetworkError(`cannot reach the store ${store.where}: ${describe(error)}`);
}
