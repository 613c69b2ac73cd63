import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { StoreFlags } from '../../store/resolve.js';
import type { Store, StoreSchema } from '../../store/store.js';
import { said } from '../../said.js';

/** The run's store and its tables; a usage error for a store that has none (the files store). */
export async function storeTables(ctx: Context, flags: StoreFlags): Promise<{ store: Store; schema: StoreSchema }> {
  const store = await ctx.store(flags);
  if (!store.schema)
    throw new UsageError(
      said`no store with tables: give --store-file, CALLCTL_STORE or CALLCTL_STORE_FILE (postgres://...); the state folder and an NDJSON log need none`,
    );
  return { store, schema: store.schema };
}
