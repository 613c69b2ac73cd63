import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { acquireLock, type LockOwner } from '../files/lock.js';
import type { StoreChoice } from './choice.js';
import type { Destination } from './destination.js';
import { FileJournals, type JournalKind, type Journals } from './journal.js';
import { fileLedgers, type Ledger, type Ledgers } from './ledger.js';

export interface StateOptions {
  /** The run's store (resolveStore, src/state/choice.ts), chosen once. */
  choice: StoreChoice;
  /** The state folder (src/files/state.ts): journals, ledgers and lock files when no database holds them. */
  dir: string;
  /** Told when a lock held in the database is lost under the run (the database went away). */
  onLockLost?: (what: string, error: Error) => void;
}

/** A lock to take: its name (the same on every host), what it guards (for the busy message), and where its file is. */
export interface LockRequest {
  name: string;
  what: string;
  /** The lock file; by default `<state>/locks/<hash of the name>.lock`. */
  file?: string;
  onStale?: (owner: LockOwner) => void;
}

/**
 * The one owner of a run's state (CONTRIBUTING, "Layers"): journals, never-twice
 * ledgers and locks, in the state folder's files or in the PostgreSQL store that every host
 * shares. Built once per run from the store choice and handed to the engines, which never look
 * up a setting themselves. The event log and its store are opened through src/state/open.ts.
 */
export class State {
  readonly choice: StoreChoice;
  readonly dir: string;
  private readonly onLockLost: (what: string, error: Error) => void;
  private readonly journalStores = new Map<JournalKind, Journals>();
  private ledgerStore: Promise<Ledgers> | undefined;

  constructor(options: StateOptions) {
    this.choice = options.choice;
    this.dir = options.dir;
    this.onLockLost = options.onLockLost ?? (() => undefined);
  }

  /** True when journals, ledgers and locks are in a database every host shares. */
  get shared(): boolean {
    return this.choice.kind === 'postgres';
  }

  /** Where the run's journals and ledgers are, for messages. */
  get where(): string {
    return this.choice.kind === 'postgres' ? `the store of ${this.choice.from}` : `the state folder ${this.dir}`;
  }

  /** The journals of uploads or of push and template send. */
  async journals(kind: JournalKind): Promise<Journals> {
    let store = this.journalStores.get(kind);
    if (!store) {
      if (this.choice.kind === 'postgres') {
        const { PgJournals } = await import('./pg-journal.js');
        store = new PgJournals(this.choice.url, kind);
      } else {
        store =
          kind === 'upload'
            ? new FileJournals(join(this.dir, 'uploads'), '.journal')
            : new FileJournals(join(this.dir, 'journals'), '.jsonl');
      }
      this.journalStores.set(kind, store);
    }
    return store;
  }

  /** The never-twice ledgers. */
  ledgers(): Promise<Ledgers> {
    this.ledgerStore ??= (async () => {
      if (this.choice.kind !== 'postgres') return fileLedgers(this.dir);
      const { pgLedgers } = await import('./pg-ledger.js');
      return pgLedgers(this.choice.url);
    })();
    return this.ledgerStore;
  }

  /**
   * Takes a lock for the run: in the shared store first when there is one (another host's run is
   * refused before this one touches local files), then the lock file. A busy lock is a UsageError
   * naming its holder; resolves to the release of both.
   */
  async lock(request: LockRequest): Promise<() => Promise<void>> {
    let releaseShared: (() => Promise<void>) | undefined;
    if (this.choice.kind === 'postgres') {
      const { acquireSharedLock } = await import('./pg-lock.js');
      const shared = await acquireSharedLock(this.choice.url, request.name, request.what, (error) =>
        this.onLockLost(request.what, error),
      );
      releaseShared = () => shared.release();
    }
    try {
      const file =
        request.file ??
        join(this.dir, 'locks', `${createHash('sha256').update(request.name).digest('hex').slice(0, 24)}.lock`);
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      const releaseFile = acquireLock(file, request.what, request.onStale);
      return async () => {
        try {
          releaseFile();
        } finally {
          await releaseShared?.();
        }
      };
    } catch (error) {
      await releaseShared?.();
      throw error;
    }
  }

  /**
   * The ledger of a destination, under its lock (two runs to one destination would each miss the
   * other's people); closing it releases the lock.
   */
  async openLedger(destination: Destination): Promise<Ledger> {
    const release = await this.lock({ name: `ledger ${destination.text}`, what: `send to ${destination.text}` });
    try {
      const ledger = await (await this.ledgers()).open(destination.text);
      return {
        lastReached: (p) => ledger.lastReached(p),
        pending: (p, at) => ledger.pending(p, at),
        cleared: (p, at) => ledger.cleared(p, at),
        close: async () => {
          try {
            await ledger.close();
          } finally {
            await release();
          }
        },
      };
    } catch (error) {
      await release();
      throw error;
    }
  }
}
