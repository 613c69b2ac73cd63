import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import type { StoreMigrateJson } from '../../schemas/local-output.js';
import { STORE_FLAGS_HELP, storeFileOption, storeOption } from '../flags/store.js';
import { storeTables } from './status.js';
import { said } from '../../said.js';

function declare(store: Command) {
  return store
    .command('migrate')
    .description("create or upgrade callctl's tables in the store (serve-hooks also does it at start)")
    .addOption(storeOption())
    .addOption(storeFileOption())
    .option('--grant-to <role>', 'the role the printed GRANTs are for', 'callctl_receiver')
    .addHelpText(
      'after',
      `${STORE_FLAGS_HELP}

Each step is applied once, in one transaction, under an advisory lock: several callctl starting
at once take turns. A database newer than this callctl is left alone (exit 2).

Then it prints on stdout the GRANTs that let another role (--grant-to, a receiver's or a cron
host's) run callctl on these tables without owning them: read and write rights on each table,
USAGE on the sequences, no CREATE on the schema. Run them as the tables' owner.

Exit: 0 up to date (or brought up to date), 2 no store or a newer schema, 4 credentials refused,
5 unreachable, 6 a right missing.

Examples:
  CALLCTL_STORE_FILE=/etc/callctl/store-url callctl store migrate
  callctl store migrate --grant-to hooks | psql "$OWNER_URL"
  callctl store migrate --json

JSON (--json): "applied": the versions applied by this run, in order:
${JSON_SHAPES.storeMigrate}`,
    );
}

export type StoreMigrateOptions = FlagsOf<typeof declare>;

export function register(store: Command, { start }: Deps): void {
  declare(store).action((flags, command) => start(command, runStoreMigrate, flags));
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
