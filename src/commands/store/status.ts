import type { StoreStatusJson } from '../../schemas/local-output.js';
import type { Context } from '../../context.js';
import type { StoreFlags } from '../../state/choice.js';
import { sharedStore, unreachable } from './shared.js';

/** Says what is in the store: schema version against this callctl's, and how many events. */
export async function runStoreStatus(ctx: Context, opts: StoreFlags): Promise<number> {
  const store = await sharedStore(ctx, opts);
  const out = await ctx.output();
  try {
    let status;
    let events: { n: number; first: string | null; last: string | null } = { n: 0, first: null, last: null };
    try {
      status = await store.status();
      if (status.version > 0) {
        events = await store.withClient(async (c) => {
          const r = await c.query(
            'SELECT count(*)::int AS n, min(received_at) AS first, max(received_at) AS last FROM callctl_events',
          );
          const row = r.rows[0];
          return { n: row.n, first: row.first?.toISOString() ?? null, last: row.last?.toISOString() ?? null };
        });
      }
    } catch (error) {
      return await unreachable(store, error);
    }
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
        events: events.n,
        firstEvent: events.first,
        lastEvent: events.last,
      } satisfies StoreStatusJson);
    } else {
      out.record([
        ['store', store.where],
        ['server', `PostgreSQL ${status.server}`],
        ['schema', `version ${status.version}: ${state}`],
        ...status.history.map((h) => [`  v${h.version}`, `${h.at}  ${h.description}`] as const),
        ['events', events.n],
        ...(events.first
          ? ([
              ['first', events.first],
              ['last', events.last],
            ] as const)
          : []),
      ]);
    }
    return status.version === status.latest ? 0 : 1;
  } finally {
    await store.close();
  }
}
