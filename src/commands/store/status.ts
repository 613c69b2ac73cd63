import type { StoreStatusJson } from '../../schemas/local-output.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { StoreFlags } from '../../store/resolve.js';
import type { Store, StoreSchema } from '../../store/store.js';
import { said } from '../../said.js';

/** Says what is in the store: schema version against this callctl's, and how many events. */
export async function runStoreStatus(ctx: Context, opts: StoreFlags): Promise<number> {
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
