import type { Context } from '../../context.js';
import { NetworkError, UsageError } from '../../errors.js';
import type { StoreFlags } from '../../state/choice.js';
import type { PostgresStore } from '../../state/postgres.js';

/** The PostgreSQL store named by the flags or the environment; a usage error when there is none. */
export async function sharedStore(ctx: Context, flags: StoreFlags): Promise<PostgresStore> {
  const { choice } = await ctx.state(flags);
  if (choice.kind === 'files')
    throw new UsageError('no store: give --store-file, CALLCTL_STORE or CALLCTL_STORE_FILE (postgres://...)');
  if (choice.kind !== 'postgres')
    throw new UsageError(
      `${choice.from}: \`callctl store\` is for a postgres:// store; the NDJSON file needs no tables`,
    );
  const { PostgresStore } = await import('../../state/postgres.js');
  return PostgresStore.open(choice.url);
}

/** A failure to reach or query the database, as exit 5 naming the store without its password. */
export async function unreachable(store: PostgresStore, error: unknown): Promise<never> {
  const { describe } = await import('../../state/postgres.js');
  throw new NetworkError(`cannot reach the store ${store.where}: ${describe(error)}`);
}
