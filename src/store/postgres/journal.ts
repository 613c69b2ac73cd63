import type { Client } from 'pg';
import { NetworkError } from '../../errors.js';
import type { JournalAppender, JournalKind, JournalRecord, Journals } from '../store.js';
import { JOURNAL_KEEP_MS } from '../../files/state.js';
import { redactValues } from '../../redact.js';
import { describe, shownUrl } from './pool.js';
import { migrate, schemaStatus, SCHEMA_VERSION } from './schema.js';
import { said } from '../../said.js';

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Journals in the PostgreSQL store (`callctl_journals`: one row per record, in order), so that a
 * host sees what another host's run of the same work sent: an upload host A finished is not sent
 * again from host B, and a batch or row A left uncertain stays uncertain on B. The names are the
 * file journals' (a hash of the work, never a path), so the same work has the same journal on
 * every host. The runs that write a journal hold its shared lock (lock.ts).
 *
 * Appends go out at once, in order, on one connection of the appender's own; a `durable` one
 * resolves once it and every record before it are committed. A record appended without it is
 * committed by then too, or is lost only with the run (the next intent's commit waits behind it),
 * as the file journal's unflushed lines: its request is then uncertain, never forgotten.
 * Reads take a connection each (a run reads a few times, at its start), so a run needs no
 * explicit close of the store; an appender holds one until it is closed.
 */
export class PgJournals implements Journals {
  private ready: Promise<void> | undefined;
  private readonly shown: string;

  constructor(
    private readonly url: string,
    readonly kind: JournalKind,
  ) {
    this.shown = shownUrl(url);
  }

  where(name: string): string {
    return `journal ${this.kind} ${name} in the store ${this.shown}`;
  }

  async read(name: string): Promise<JournalRecord[] | undefined> {
    const rows = await this.query<{ record: string }>(
      'read',
      'SELECT record FROM callctl_journals WHERE kind = $1 AND name = $2 ORDER BY seq',
      [this.kind, name],
    );
    return rows.length === 0 ? undefined : rows.map((r) => JSON.parse(r.record) as JournalRecord);
  }

  async first(name: string): Promise<JournalRecord | undefined> {
    const rows = await this.query<{ record: string }>(
      'read',
      'SELECT record FROM callctl_journals WHERE kind = $1 AND name = $2 ORDER BY seq LIMIT 1',
      [this.kind, name],
    );
    return rows[0] ? (JSON.parse(rows[0].record) as JournalRecord) : undefined;
  }

  async list(prefix = ''): Promise<string[]> {
    const rows = await this.query<{ name: string }>(
      'read',
      'SELECT DISTINCT name FROM callctl_journals WHERE kind = $1 AND left(name, length($2)) = $2 ORDER BY name',
      [this.kind, prefix],
    );
    return rows.map((r) => r.name);
  }

  async remove(name: string): Promise<void> {
    await this.query('write to', 'DELETE FROM callctl_journals WHERE kind = $1 AND name = $2', [this.kind, name]);
  }

  async prune(finished: (records: JournalRecord[]) => boolean, keepMs = JOURNAL_KEEP_MS): Promise<string[]> {
    const old = await this.query<{ name: string }>(
      'read',
      'SELECT name FROM callctl_journals WHERE kind = $1 GROUP BY name HAVING max(at) < $2',
      [this.kind, new Date(Date.now() - keepMs)],
    );
    const removed: string[] = [];
    for (const { name } of old) {
      const records = await this.read(name);
      if (!records || !finished(records)) continue;
      await this.remove(name);
      removed.push(this.where(name));
    }
    return removed;
  }

  open(name: string, header: () => JournalRecord): JournalAppender {
    return new PgAppender(this, name, header);
  }

  /** A failure of the store, named with the store (without its password). */
  trouble(doing: string, error: unknown): NetworkError {
    return new NetworkError(said`cannot ${doing} the journal in the store ${this.shown}: ${describe(error)}`);
  }

  /** A connection of its own (an appender's: its statements then run in order), on the schema brought up to date. */
  async client(): Promise<Client> {
    await this.schema();
    return this.connect();
  }

  /** One statement on a connection of its own: a run reads a few times, at its start. */
  private async query<T extends object>(doing: string, sql: string, args: unknown[]): Promise<T[]> {
    try {
      const client = await this.client();
      try {
        return (await client.query<T>(sql, args)).rows;
      } finally {
        await close(client);
      }
    } catch (error) {
      throw this.trouble(doing, error);
    }
  }

  /** Brings the schema up to date once per run, when it is behind. */
  private schema(): Promise<void> {
    this.ready ??= (async () => {
      const c = await this.connect();
      try {
        const q = c as unknown as Parameters<typeof migrate>[0];
        if ((await schemaStatus(q)).version < SCHEMA_VERSION) await migrate(q);
      } finally {
        await close(c);
      }
    })();
    this.ready.catch(() => (this.ready = undefined));
    return this.ready;
  }

  private async connect(): Promise<Client> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'callctl journal',
    });
    client.on('error', () => undefined); // told by the query that meets it
    // end() on a connection the server already closed would wait forever: it is skipped then.
    client.once('end', () => ENDED.add(client));
    try {
      await client.connect();
    } catch (error) {
      await close(client);
      throw error;
    }
    return client;
  }
}

/** Clients whose connection has ended (the server closed it, or end() was called). */
const ENDED = new WeakSet<object>();

/** Ends a client's connection unless it has ended already. */
async function close(client: Client): Promise<void> {
  if (ENDED.has(client)) return;
  ENDED.add(client);
  await client.end().catch(() => undefined);
}

class PgAppender implements JournalAppender {
  private client: Promise<Client> | undefined;
  /** Appends sent and not yet answered, in order: a durable one waits for all of them. */
  private last: Promise<unknown> = Promise.resolve();
  /** The first failure of an append nobody waited for: told by the next durable one, or close. */
  private failed: unknown;
  /** The failure was told to a caller already: close does not throw it again (cleanup goes on). */
  private told = false;
  private closed = false;

  constructor(
    private readonly store: PgJournals,
    private readonly name: string,
    private readonly header: () => JournalRecord,
  ) {}

  append(record: JournalRecord, durable: boolean): void | Promise<void> {
    if (this.closed) throw new Error(`journal ${this.name} is closed`);
    const kind = this.store.kind;
    // A record may quote the service, which may echo a secret: never into the store.
    const text = redactValues(JSON.stringify(record));
    if (!this.client) {
      this.client = this.store.client();
      // The header first, when the journal is new (one writer at a time: the run holds its lock).
      const header = redactValues(JSON.stringify(this.header()));
      this.send(
        `INSERT INTO callctl_journals (kind, name, record)
         SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM callctl_journals WHERE kind = $1 AND name = $2)`,
        [kind, this.name, header],
      );
    }
    // After a failure nothing more is written: a durable append (an intent) must never succeed.
    if (this.failed !== undefined && durable) return Promise.reject(this.store.trouble('write to', this.failed));
    this.send('INSERT INTO callctl_journals (kind, name, record) VALUES ($1, $2, $3)', [kind, this.name, text]);
    if (durable)
      return this.settle().then(() => {
        if (this.failed !== undefined) throw this.store.trouble('write to', this.failed);
      });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.client) return;
    try {
      await this.settle();
    } finally {
      const client = await this.client.catch(() => undefined);
      if (client) await close(client);
    }
  }

  /** Sends a statement after the ones before it; a failure is kept for the next settle. */
  private send(sql: string, args: unknown[]): void {
    const client = this.client!;
    this.last = this.last
      .then(async () => {
        if (this.failed !== undefined) return;
        await (await client).query(sql, args);
      })
      .catch((error: unknown) => {
        this.failed ??= error;
      });
  }

  /** Waits for every append so far to be committed; rejects if any failed (once). */
  private async settle(): Promise<void> {
    await this.last;
    if (this.failed === undefined || this.told) return;
    this.told = true;
    throw this.store.trouble('write to', this.failed);
  }
}
