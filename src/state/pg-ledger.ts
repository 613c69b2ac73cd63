import type { Client } from 'pg';
import { NetworkError } from '../errors.js';
import type { Ledger, LedgerStore } from './ledger.js';
import { describe, shownUrl } from './pg-pool.js';
import { migrate, schemaStatus, SCHEMA_VERSION } from './pg-schema.js';

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The never-twice ledgers in the PostgreSQL store (`callctl_reach_ledger`), keyed by the same
 * normalised destination as the ledger files, so that a person reached from one host is skipped
 * by a run on another. The caller holds the destination's shared lock (src/state/pg-lock.ts)
 * for the run, so the rows read at open stay true while it runs; each `pending` is committed
 * before the request leaves. The schema is brought up to date first when it is behind.
 */
export function pgLedgers(url: string): LedgerStore {
  const where = shownUrl(url);
  const trouble = (doing: string, error: unknown) =>
    new NetworkError(`cannot ${doing} the never-twice ledger in the store ${where}: ${describe(error)}`);
  return {
    async open(destination): Promise<Ledger> {
      const { default: pg } = await import('pg');
      const client: Client = new pg.Client({
        connectionString: url,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        application_name: 'callctl ledger',
      });
      let broken: Error | undefined;
      client.on('error', (error) => (broken = error));
      const last = new Map<string, { state: string; at: string }>();
      try {
        await client.connect();
        // `migrate` wants a PoolClient only for query(): a Client has the same.
        const c = client as unknown as Parameters<typeof migrate>[0];
        if ((await schemaStatus(c)).version < SCHEMA_VERSION) await migrate(c);
        const rows = await client.query<{ person: string; state: string; at: Date }>(
          'SELECT person, state, at FROM callctl_reach_ledger WHERE destination = $1',
          [destination],
        );
        for (const r of rows.rows) last.set(r.person, { state: r.state, at: r.at.toISOString() });
      } catch (error) {
        await client.end().catch(() => undefined);
        throw trouble('read', error);
      }
      const write = async (person: string, state: 'pending' | 'clear', at: string) => {
        try {
          if (broken) throw broken;
          await client.query(
            `INSERT INTO callctl_reach_ledger (destination, person, state, at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (destination, person) DO UPDATE SET state = EXCLUDED.state, at = EXCLUDED.at`,
            [destination, person, state, at],
          );
        } catch (error) {
          throw trouble('write to', error);
        }
        last.set(person, { state, at });
      };
      return {
        lastReached: (person) => {
          const e = last.get(person);
          return e?.state === 'pending' ? e.at : undefined;
        },
        pending: (person, at) => write(person, 'pending', at),
        cleared: (person, at) => write(person, 'clear', at),
        close: () => client.end().catch(() => undefined),
      };
    },
  };
}
