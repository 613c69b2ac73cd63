import type { Client } from 'pg';
import type { Ledger, Ledgers } from '../store.js';
import { fenceCondition } from './lease.js';
import { endClient, onClient, storeFailure, type Link } from './pool.js';

type Last = Map<string, { state: string; at: string }>;

/** Sets a person's last entry, when the run still holds its leases (fenceCondition). */
const WRITE = `INSERT INTO callctl_reach_ledger (destination, person, state, at)
  SELECT $1, $2, $3, $4::timestamptz WHERE ${fenceCondition(5)}
  ON CONFLICT (destination, person) DO UPDATE SET state = EXCLUDED.state, at = EXCLUDED.at`;

/**
 * The never-twice ledgers in the PostgreSQL store (`callctl_reach_ledger`), keyed by the same
 * destination text as the ledger files, so that a person reached from one host is skipped by a
 * run on another. The caller holds the destination's lease (openLedger) for the run, so the rows
 * read at open stay true while it runs; each `pending` is committed before the request leaves, in
 * a statement that checks the run still holds its leases (fenced): a run that lost one writes
 * nothing more, and stops before its next send.
 */
export function pgLedgers(link: Link): Ledgers {
  const trouble = (doing: string, error: unknown) =>
    storeFailure(`${doing} the never-twice ledger in`, link.shown, error);

  const connect = () => link.connect('callctl ledger');
  /** One piece of work on a connection of its own; `doing` names a failure. */
  const once = <T>(doing: string, work: (client: Client) => Promise<T>) =>
    onClient(connect, (error) => trouble(doing, error), work);

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
      const client = await connect().catch((error: unknown) => {
        throw trouble('read', error);
      });
      let broken: Error | undefined;
      client.on('error', (error) => (broken = error));
      let last: Last;
      try {
        last = await readLast(client, destination);
      } catch (error) {
        await endClient(client);
        throw trouble('read', error);
      }
      const write = async (person: string, state: 'pending' | 'clear', at: string) => {
        try {
          if (broken) throw broken;
          const r = await client.query(WRITE, [destination, person, state, at, link.fence()]);
          if (r.rowCount !== 1) throw link.fenceFailed();
        } catch (error) {
          throw trouble('write to', error);
        }
        last.set(person, { state, at });
      };
      return {
        lastReached: reachedAt(last),
        pending: (person, at) => write(person, 'pending', at),
        cleared: (person, at) => write(person, 'clear', at),
        close: () => endClient(client),
      };
    },
    peek: (destination) => once('read', async (client) => reachedAt(await readLast(client, destination))),
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
