import { NetworkError, UsageError } from '../../errors.js';
import type { EventStore } from '../events.js';
import { lockFile } from '../lock-file.js';
import type { EventsOptions, JournalKind, Journals, Ledgers, LockRequest, Store, StoreSchema } from '../store.js';
import { PostgresEvents, SchemaError } from './events.js';
import { PgJournals } from './journal.js';
import { pgLedgers } from './ledger.js';
import { acquireSharedLock } from './lock.js';
import { describe, shownUrl } from './pool.js';
import { SCHEMA_VERSION } from './schema.js';
import { said } from '../../said.js';

export interface PostgresStoreOptions {
  /** The database's URL, password included (a secret of the run). */
  url: string;
  /** The state folder: this host's lock files, beside the database's locks. */
  dir: string;
  /** Told when a lock held in the database is lost under the run (the database went away). */
  onLockLost?: (what: string, error: Error) => void;
}

/**
 * The store in PostgreSQL: events, dedup, journals, ledgers and locks in one database that every
 * host naming it shares (the parts: events.ts and what it uses, journal.ts, ledger.ts, lock.ts,
 * schema.ts). The `pg` driver is loaded by the resolver with this module, only for such a store.
 */
export class PostgresStore implements Store {
  readonly shared = true;
  readonly where: string;
  readonly schema: StoreSchema;
  private readonly journalStores = new Map<JournalKind, Journals>();
  private ledgerStore: Ledgers | undefined;

  constructor(private readonly o: PostgresStoreOptions) {
    this.where = shownUrl(o.url);
    this.schema = {
      migrate: () => this.withEvents(async (e) => ({ ...(await e.migrate()), latest: SCHEMA_VERSION })),
      status: () => this.withEvents((e) => e.status()),
    };
  }

  async journals(kind: JournalKind): Promise<Journals> {
    let journals = this.journalStores.get(kind);
    if (!journals) this.journalStores.set(kind, (journals = new PgJournals(this.o.url, kind)));
    return journals;
  }

  async ledgers(): Promise<Ledgers> {
    return (this.ledgerStore ??= pgLedgers(this.o.url));
  }

  /** The database's lock first (another host's run is refused before this one touches local files), then the lock file. */
  async lock(request: LockRequest): Promise<() => Promise<void>> {
    const shared = await acquireSharedLock(this.o.url, request.name, request.what, (error) =>
      this.o.onLockLost?.(request.what, error),
    );
    try {
      const releaseFile = lockFile(this.o.dir, request);
      return async () => {
        try {
          releaseFile();
        } finally {
          await shared.release();
        }
      };
    } catch (error) {
      await shared.release();
      throw error;
    }
  }

  /**
   * The events, in the database: for writing, its tables brought up to date first (under the
   * migration lock, so receivers starting together take turns). Tables missing or of another
   * version: a UsageError; a database that cannot be reached: a NetworkError (exit 5).
   */
  async events(options: EventsOptions): Promise<EventStore> {
    if (options.log !== undefined || options.fsync)
      throw new UsageError(
        said`--log and --fsync are for the NDJSON store; with a PostgreSQL store every event is committed before it is answered`,
      );
    const events = await PostgresEvents.open(this.o.url);
    try {
      if (options.write) await events.migrate();
      await events.check();
    } catch (error) {
      await events.close().catch(() => undefined);
      if (error instanceof SchemaError) throw new UsageError(error.message);
      throw new NetworkError(said`cannot reach the store ${events.where}: ${describe(error)}`);
    }
    return events;
  }

  async close(): Promise<void> {}

  /** Runs `work` on an event store of its own; a database that cannot be reached is exit 5. */
  private async withEvents<T>(work: (events: PostgresEvents) => Promise<T>): Promise<T> {
    const events = await PostgresEvents.open(this.o.url);
    try {
      return await work(events);
    } catch (error) {
      throw new NetworkError(said`cannot reach the store ${events.where}: ${describe(error)}`);
    } finally {
      await events.close();
    }
  }
}
