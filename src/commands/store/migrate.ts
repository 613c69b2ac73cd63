import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { StoreMigrateJson } from '../../schemas/local-output.js';
import type { StoreFlags } from '../../store/resolve.js';
import { storeTables } from './status.js';
import { said } from '../../said.js';

export interface StoreMigrateOptions extends StoreFlags {
  /** The role the printed GRANTs are for. */
  grantTo: string;
}

/** Creates or upgrades callctl's tables, and prints the GRANTs a role of its own needs on them. */
export async function runStoreMigrate(ctx: Context, opts: StoreMigrateOptions): Promise<number> {
  // A name PostgreSQL takes as is, else quoted (as an identifier is).
  const role = /^[a-z_][a-z0-9_]*$/.test(opts.grantTo) ? opts.grantTo : `"${opts.grantTo.replaceAll('"', '""')}"`;
  const { store, schema } = await storeTables(ctx, opts);
  const out = await ctx.output();
  const result = await schema.migrate();
  if (result.from > result.latest) {
    throw new UsageError(
      said`the store's schema is version ${result.from}, newer than this callctl's ${result.latest}: upgrade callctl`,
    );
  }
  const to = result.applied.at(-1) ?? result.from;
  const grants = schema.grants(role);
  if (out.json) {
    out.writeJson({
      store: store.where,
      from: result.from,
      to,
      applied: result.applied,
      grants,
    } satisfies StoreMigrateJson);
    return 0;
  }
  if (result.applied.length === 0) out.success(said`${store.where}: schema version ${to}, up to date`);
  else out.success(said`${store.where}: schema version ${result.from} -> ${to} (applied ${result.applied.join(', ')})`);
  // On stdout, so that `callctl store migrate --grant-to ROLE | psql ...` runs them as the owner.
  out.text(
    `-- A role that runs serve-hooks or cron runs on these tables without owning them (no CREATE needed), as their owner:\n${grants.join('\n')}\n`,
  );
  return 0;
}
