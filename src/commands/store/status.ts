import type { Command, FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { StoreStatusJson } from '../../schemas/local-output.js';
import type { Context } from '../../context.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { STORE_FLAGS_HELP, storeFileOption, storeOption } from '../flags/store.js';
import { UsageError } from '../../errors.js';
import type { StoreFlags } from '../../store/resolve.js';
import type { Store, StoreSchema } from '../../store/store.js';
import { said } from '../../said.js';

function declare(store: Command) {
  return store
    .command('status')
    .description('what is in the store: schema version, server version, events kept')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .addHelpText(
      'after',
      `${STORE_FLAGS_HELP}

Exit: 0 when the schema is this callctl's, 1 when it is missing, older or newer (run
\`callctl store migrate\` or upgrade callctl), 4 credentials refused, 5 unreachable.

Examples:
  callctl store status
  callctl store status --json | jq .version

JSON (--json):
${JSON_SHAPES.storeStatus}`,
    );
}

export type StoreStatusOptions = FlagsOf<typeof declare>;

export function register(store: Command, { start }: Deps): void {
  declare(store).action((flags, command) => start(command, runStoreStatus, flags));
}

/** Says what is in the store: schema version against this callctl's, and how many events. */
export async function runStoreStatus(ctx: Context, opts: StoreStatusOptions): Promise<number> {
  const { store, schema } = await storeTables(ctx, opts);
  const out = await ctx.output();
  const status = await schema.status();
  const events = status.events ?? { count: 0 };
  const state =
    status.version === 0
      ? 'no callctl tables (run `callctl store migrate`)'
      : status.version < status.latest
        ? `older than this callctl's ${status.latest} (run \`callctl store migrate\`)`
        : status.version > status.latest
          ? `newer than this callctl's ${status.latest} (upgrade callctl)`
          : 'up to date';
  if (out.json) {
    out.writeJson({
      store: store.where,
      server: status.server,
      version: status.version,
      latest: status.latest,
      history: status.history,
      events: events.count,
      firstEvent: events.first ?? null,
      lastEvent: events.last ?? null,
    } satisfies StoreStatusJson);
  } else {
    out.record([
      ['store', store.where],
      ['server', `PostgreSQL ${status.server}`],
      ['schema', `version ${status.version}: ${state}`],
      ...status.history.map((h) => [`  v${h.version}`, `${h.at}  ${h.description}`] as const),
      ['events', events.count],
      ...(events.first
        ? ([
            ['first', events.first],
            ['last', events.last ?? ''],
          ] as const)
        : []),
    ]);
  }
  return status.version === status.latest ? 0 : 1;
}

/** The run's store and its tables; a usage error for a store that has none (the files store). */
export async function storeTables(ctx: Context, flags: StoreFlags): Promise<{ store: Store; schema: StoreSchema }> {
  const store = await ctx.store(flags);
  if (!store.schema)
    throw new UsageError(
      said`no store with tables: give --store-file, CALLCTL_STORE or CALLCTL_STORE_FILE (postgres://...); the state folder and an NDJSON log need none`,
    );
  return { store, schema: store.schema };
}
