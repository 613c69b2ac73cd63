import type { Client } from 'pg';
import { NetworkError } from '../../errors.js';
import type { Ledger, Ledgers } from '../store.js';
import { describe, shownUrl } from './pool.js';
import { migrate, schemaStatus, SCHEMA_VERSION } from './schema.js';
import { said } from '../../said.js';

const CONNECT_TIMEOUT_MS = 5_000;

type Last = Map<string, { state: string; at: string }>;

/**
 * The never-twice ledgers in the PostgreSQL store (`callctl_reach_ledger`), keyed by the same
 * destination text as the ledger files, so that a person reached from one host is skipped by a
 * run on another. The caller holds the destination's shared lock (State.openLedger) for the run,
 * so the rows read at open stay true while it runs; each `pending` is committed before the
 * request leaves. The schema is brought up to date first when it is behind.
 */
export function pgLedgers(url: string): Ledgers {
  const where = shownUrl(url);
  const trouble = (doing: string, error: unknown) =>
    new NetworkError(said`cannot ${doing} the never-twice ledger in the store ${where}: ${describe(error)}`);

  /** A connection of its own on the schema brought up to date; `doing` names a failure. */
  async function connect(doing: string): Promise<Client> {
    const { default: pg } = await import('pg');
    const client: Client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'callctl ledger',
    });
    try {
      await client.connect();
      // `migrate` wants a PoolClient only for query(): a Client has the same.
      const c = client as unknown as Parameters<typeof migrate>[0];
      if ((await schemaStatus(c)).version < SCHEMA_VERSION) await migrate(c);
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw trouble(doing, error);
    }
  }

  /** One piece of work on a connection of its own. */
  async function once<T>(doing: string, work: (client: Client) => Promise<T>): Promise<T> {
    const client = await connect(doing);
    try {
      return await work(client);
    } catch (error) {
      throw error instanceof NetworkError ? error : trouble(doing, error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async function readLast(client: Client, destination: string): Promise<Last> {
    const rows = await client.query<{ person: string; state: string; at: Date }>(
      'SELECT person, state, at FROM callctl_reach_ledger WHERE destination = $1',
      [destination],
    );
    return new Map(rows.rows.map((r) => [r.person, { state: r.state, at: r.at.toISOString() }]));
  }

  const reachedAt = (last: Last) => (person: string) => {
    const e = last.get(person);
    return e?.state === 'pending' ? e.at : undefined;
  };

  return {
    async open(destination): Promise<Ledger> {
      const client = await connect('read');
      let broken: Error | undefined;
      client.on('error', (error) => (broken = error));
      let last: Last;
      try {
        last = await readLast(client, destination);
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
        lastReached: reachedAt(last),
        pending: (person, at) => write(person, 'pending', at),
        cleared: (person, at) => write(person, 'clear', at),
        close: () => client.end().catch(() => undefined),
      };
    },
    peek: (destination) => once('read', async (client) => reachedAt(await readLast(client, destination))),
    has: (destination) =>
      once('read', async (client) => {
        const r = await client.query('SELECT 1 FROM callctl_reach_ledger WHERE destination = $1 LIMIT 1', [
          destination,
        ]);
        return r.rows.length > 0;
      }),
    adopt: (from, to, rekey) =>
      once('write to', async (client) => {
        await client.query('BEGIN');
        try {
          const old = await readLast(client, from);
          for (const [person, e] of old) {
            // The latest of the old and any existing entry wins, as the file ledger's last line does.
            await client.query(
              `INSERT INTO callctl_reach_ledger (destination, person, state, at) VALUES ($1, $2, $3, $4)
               ON CONFLICT (destination, person) DO UPDATE SET state = EXCLUDED.state, at = EXCLUDED.at
               WHERE callctl_reach_ledger.at <= EXCLUDED.at`,
              [to, rekey(person), e.state, e.at],
            );
          }
          await client.query('DELETE FROM callctl_reach_ledger WHERE destination = $1', [from]);
          await client.query('COMMIT');
          return old.size;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
    list: () =>
      once('read', async (client) => {
        const r = await client.query<{ destination: string; people: string; last_at: Date | null }>(
          `SELECT destination, count(*) AS people, max(at) FILTER (WHERE state = 'pending') AS last_at
             FROM callctl_reach_ledger GROUP BY destination ORDER BY destination`,
        );
        return r.rows.map((row) => ({
          destination: row.destination,
          people: Number(row.people),
          ...(row.last_at ? { lastAt: row.last_at.toISOString() } : {}),
        }));
      }),
  };
}
