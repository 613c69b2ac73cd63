import type { Client } from 'pg';
import type { CliError } from '../../errors.js';
import {
  JOURNAL_KEEP_MS,
  type JournalAppender,
  type JournalKind,
  type JournalRecord,
  type Journals,
} from '../store.js';
import { redactValues } from '../../redact.js';
import { fenceCondition } from './lease.js';
import { endClient, onClient, storeFailure, type Link } from './pool.js';

/**
 * Journals in the PostgreSQL store (`callctl_journals`: one row per record, in order), so that a
 * host sees what another host's run of the same work sent: an upload host A finished is not sent
 * again from host B, and a batch or row A left uncertain stays uncertain on B. The names are the
 * file journals' (a hash of the work, never a path), so the same work has the same journal on
 * every host. The runs that write a journal hold its lease (lease.ts), and every append checks,
 * in its own statement, that the run still holds its leases (fenced): a run that lost one stops
 * before its next send.
 *
 * Appends go out at once, in order, on one connection of the appender's own; a `durable` one
 * resolves once it and every record before it are committed. A record appended without it is
 * committed by then too, or is lost only with the run (the next intent's commit waits behind it),
 * as the file journal's unflushed lines: its request is then uncertain, never forgotten.
 * Reads take a connection each (a run reads a few times, at its start), so a run needs no
 * explicit close of the store; an appender holds one until it is closed.
 */
export class PgJournals implements Journals {
  constructor(
    readonly link: Link,
    readonly kind: JournalKind,
  ) {}

  where(name: string): string {
    return `journal ${this.kind} ${name} in the store ${this.link.shown}`;
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

  /** A failure of the store, named with the store (without its password); a lost lease says so itself. */
  trouble(doing: string, error: unknown): CliError {
    return storeFailure(`${doing} the journal in`, this.link.shown, error);
  }

  /** A connection of its own (an appender's: its statements then run in order). */
  client(): Promise<Client> {
    return this.link.connect('callctl journal');
  }

  /** One statement on a connection of its own: a run reads a few times, at its start. */
  private query<T extends object>(doing: string, sql: string, args: unknown[]): Promise<T[]> {
    return onClient(
      () => this.client(),
      (error) => this.trouble(doing, error),
      async (client) => (await client.query<T>(sql, args)).rows,
    );
  }
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
      // The header first, when the journal is new (one writer at a time: the run holds its lease).
      const header = redactValues(JSON.stringify(this.header()));
      this.send(
        `INSERT INTO callctl_journals (kind, name, record)
         SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM callctl_journals WHERE kind = $1 AND name = $2)
           AND ${fenceCondition(4)}`,
        [kind, this.name, header],
        'header',
      );
    }
    // After a failure nothing more is written: a durable append (an intent) must never succeed.
    if (this.failed !== undefined && durable) return Promise.reject(this.store.trouble('write to', this.failed));
    // Only an intent (durable: it comes before a send) is fenced. A record of what happened (an
    // answer) is true whoever holds the lease now, and may still be on its way when the run
    // releases its leases at its end.
    if (durable)
      this.send(
        `INSERT INTO callctl_journals (kind, name, record) SELECT $1, $2, $3 WHERE ${fenceCondition(4)}`,
        [kind, this.name, text],
        'fenced',
      );
    else
      this.send(
        'INSERT INTO callctl_journals (kind, name, record) VALUES ($1, $2, $3)',
        [kind, this.name, text],
        'plain',
      );
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
      if (client) await endClient(client);
    }
  }

  /**
   * Sends a statement after the ones before it. A fenced one and the header get the run's leases
   * as their last parameter (fenceCondition), taken as it goes out: a lease the run released
   * meanwhile (its ledger's, at the end) is no longer asked for, a lost one is. A failure is kept
   * for the next settle; a fenced statement that wrote nothing found a lease gone.
   */
  private send(sql: string, args: unknown[], how: 'fenced' | 'header' | 'plain'): void {
    const client = this.client!;
    this.last = this.last
      .then(async () => {
        if (this.failed !== undefined) return;
        const r = await (await client).query(sql, how === 'plain' ? args : [...args, this.store.link.fence()]);
        if (how === 'fenced' && r.rowCount !== 1) throw this.store.link.fenceFailed();
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
