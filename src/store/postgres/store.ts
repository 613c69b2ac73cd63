import type { Client, Pool } from 'pg';
import { LocalError, UsageError } from '../../errors.js';
import type { EventStore } from '../events.js';
import { lockFile } from '../lock-file.js';
import type { EventsOptions, JournalKind, Journals, Ledgers, LockRequest, Store, StoreSchema } from '../store.js';
import { PostgresEvents } from './events.js';
import { PgJournals } from './journal.js';
import { Leases } from './lease.js';
import { pgLedgers } from './ledger.js';
import { connectClient, endClient, onClient, openPool, shownUrl, storeFailure, type Link } from './pool.js';
import { checkSchema, grants, migrate, missingRights, schemaStatus, SCHEMA_VERSION } from './schema.js';
import { said } from '../../said.js';

export interface PostgresStoreOptions {
  /** The database's URL, password included (a secret of the run). */
  url: string;
  /** The state folder: this host's lock files, beside the store's leases. */
  dir: string;
  /** Told (once a lease) when a lease of the run is lost under it: expired, or taken by another run. */
  onLockLost?: (what: string, why: string) => void;
  /** How long a lease holds unless renewed (lease.ts LEASE_TTL_MS); tests shorten it. */
  leaseTtlMs?: number;
}

/**
 * The store in PostgreSQL: events, dedup, journals, ledgers and leases in one database that every
 * host naming it shares (the parts: events.ts and what it uses, journal.ts, ledger.ts, lease.ts,
 * schema.ts). The `pg` driver is loaded by the resolver with this module, only for such a store.
 * Nothing rests on a database session (lease.ts), so it works through PgBouncer's transaction
 * pooling as straight.
 */
export class PostgresStore implements Store {
  readonly shared = true;
  readonly where: string;
  readonly schema: StoreSchema;
  private readonly journalStores = new Map<JournalKind, Journals>();
  private ledgerStore: Ledgers | undefined;
  /** The run's leases, and their pool: made at the first lock (heldLeases once made: fence asks synchronously). */
  private leases: Promise<{ pool: Pool; leases: Leases }> | undefined;
  private heldLeases: Leases | undefined;
  private schemaChecked: Promise<void> | undefined;
  private readonly link: Link;

  constructor(private readonly o: PostgresStoreOptions) {
    this.where = shownUrl(o.url);
    this.schema = {
      migrate: () => this.onSchema(async (c) => ({ ...(await migrate(c)), latest: SCHEMA_VERSION })),
      status: () => this.onSchema(schemaStatus),
      grants,
    };
    this.link = {
      shown: this.where,
      connect: async (application) => {
        await this.schemaUpToDate();
        return connectClient(o.url, application);
      },
      fence: () => this.heldLeases?.fence() ?? '[]',
      // Only a run that holds leases writes fenced statements that can fail so.
      fenceFailed: () => this.heldLeases!.fenceFailed(),
    };
  }

  async journals(kind: JournalKind): Promise<Journals> {
    let journals = this.journalStores.get(kind);
    if (!journals) this.journalStores.set(kind, (journals = new PgJournals(this.link, kind)));
    return journals;
  }

  async ledgers(): Promise<Ledgers> {
    return (this.ledgerStore ??= pgLedgers(this.link));
  }

  /** The store's lease first (another host's run is refused before this one touches local files), then the lock file. */
  async lock(request: LockRequest): Promise<() => Promise<void>> {
    const { leases } = await this.leaseSet();
    const releaseLease = await leases.acquire(request.name, request.what);
    try {
      const releaseFile = lockFile(this.o.dir, request);
      return async () => {
        try {
          releaseFile();
        } finally {
          await releaseLease();
        }
      };
    } catch (error) {
      await releaseLease();
      throw error;
    }
  }

  /**
   * The events, in the database: for writing, its tables brought up to date first (under the
   * migration lock, so receivers starting together take turns), and the rights to write them
   * checked. Tables missing or of another version: a UsageError; rights missing: a LocalError
   * (exit 6); credentials refused: exit 4; a database that cannot be reached: exit 5 (storeFailure).
   */
  async events(options: EventsOptions): Promise<EventStore> {
    if (options.log !== undefined || options.fsync)
      throw new UsageError(
        said`--log and --fsync are for the NDJSON store; with a PostgreSQL store every event is committed before it is answered`,
      );
    await this.onSchema(async (c) => {
      if (options.write) await migrate(c);
      checkSchema(await schemaStatus(c));
      if (options.write) await this.mayWrite(c);
    });
    return PostgresEvents.open(this.o.url);
  }

  /** Stops renewing the run's leases (their owners released them, or they expire) and ends their pool. */
  async close(): Promise<void> {
    const made = await this.leases?.catch(() => undefined);
    this.leases = undefined;
    if (!made) return;
    made.leases.close();
    await made.pool.end().catch(() => undefined);
  }

  private leaseSet(): Promise<{ pool: Pool; leases: Leases }> {
    this.leases ??= (async () => {
      await this.schemaUpToDate();
      const pool = await openPool(this.o.url, { application: 'callctl lease', max: 2 });
      try {
        await this.mayWrite(pool);
      } catch (error) {
        await pool.end().catch(() => undefined);
        throw storeFailure('reach', this.where, error);
      }
      const leases = new Leases({
        pool,
        where: this.where,
        ttlMs: this.o.leaseTtlMs,
        onLost: (what, why) => this.o.onLockLost?.(what, why),
      });
      this.heldLeases = leases;
      return { pool, leases };
    })();
    this.leases.catch(() => (this.leases = undefined));
    return this.leases;
  }

  /** Brings the schema up to date once per run, when it is behind (journals, ledgers and leases need it). */
  private schemaUpToDate(): Promise<void> {
    this.schemaChecked ??= (async () => {
      const c = await connectClient(this.o.url, 'callctl');
      try {
        if ((await schemaStatus(c)).version < SCHEMA_VERSION) await migrate(c);
      } finally {
        await endClient(c);
      }
    })();
    this.schemaChecked.catch(() => (this.schemaChecked = undefined));
    return this.schemaChecked;
  }

  /**
   * Refuses a run whose role lacks a right callctl writes with, naming each, before anything is
   * sent (a write refused halfway would leave a row uncertain).
   */
  private async mayWrite(q: Parameters<typeof missingRights>[0]): Promise<void> {
    const missing = await missingRights(q);
    if (missing.length === 0) return;
    const role = (await q.query<{ r: string }>('SELECT current_user AS r')).rows[0]!.r;
    throw new LocalError(
      said`role "${role}" lacks ${missing.join('; ')} in the store ${this.where}: callctl writes with these rights; \`callctl store migrate\` prints the GRANTs the tables' owner runs`,
    );
  }

  /** Runs `work` on a connection of its own; its failures as storeFailure says. */
  private onSchema<T>(work: (client: Client) => Promise<T>): Promise<T> {
    return onClient(
      () => connectClient(this.o.url, 'callctl'),
      (error) => storeFailure('reach', this.where, error),
      work,
    );
  }
}
