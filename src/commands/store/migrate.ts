import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { StoreMigrateJson } from '../../schemas/local-output.js';
import { SCHEMA_VERSION } from '../../state/pg-schema.js';
import type { StoreFlags } from '../../state/choice.js';
import { sharedStore, unreachable } from './shared.js';

/** Creates or upgrades callctl's tables. */
export async function runStoreMigrate(ctx: Context, opts: StoreFlags): Promise<number> {
  const store = await sharedStore(ctx, opts);
  const out = await ctx.output();
  try {
    let result: { from: number; applied: number[] };
    try {
      result = await store.migrate();
    } catch (error) {
      return await unreachable(store, error);
    }
    if (result.from > SCHEMA_VERSION) {
      throw new UsageError(
        `the store's schema is version ${result.from}, newer than this callctl's ${SCHEMA_VERSION}: upgrade callctl`,
      );
    }
    const to = result.applied.at(-1) ?? result.from;
    if (out.json)
      out.writeJson({ store: store.where, from: result.from, to, applied: result.applied } satisfies StoreMigrateJson);
    else if (result.applied.length === 0) out.success(`${store.where}: schema version ${to}, up to date`);
    else out.success(`${store.where}: schema version ${result.from} -> ${to} (applied ${result.applied.join(', ')})`);
    return 0;
  } finally {
    await store.close();
  }
}
