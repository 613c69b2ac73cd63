import type { StoreStatusJson } from '../../schemas/local-output.js';
import type { Context } from '../../context.js';
import type { StoreFlags } from '../../store/resolve.js';
import { storeTables } from './shared.js';

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
