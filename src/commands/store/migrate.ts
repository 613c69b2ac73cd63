import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { StoreMigrateJson } from '../../schemas/local-output.js';
import type { StoreFlags } from '../../store/resolve.js';
import { storeTables } from './shared.js';
import { said } from '../../said.js';

/** Creates or upgrades callctl's tables. */
export async function runStoreMigrate(ctx: Context, opts: StoreFlags): Promise<number> {
  const { store, schema } = await storeTables(ctx, opts);
  const out = await ctx.output();
  const result = await schema.migrate();
  if (result.from > result.latest) {
    throw new UsageError(
      said`the store's schema is version ${result.from}, newer than this callctl's ${result.latest}: upgrade callctl`,
    );
  }
  const to = result.applied.at(-1) ?? result.from;
  if (out.json)
    out.writeJson({ store: store.where, from: result.from, to, applied: result.applied } satisfies StoreMigrateJson);
  else if (result.applied.length === 0) out.success(said`${store.where}: schema version ${to}, up to date`);
  else out.success(said`${store.where}: schema version ${result.from} -> ${to} (applied ${result.applied.join(', ')})`);
  return 0;
}
