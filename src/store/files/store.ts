import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import type { EventStore } from '../events.js';
import { lockFile } from '../lock-file.js';
import type { EventsOptions, JournalKind, Journals, Ledgers, LockRequest, Store } from '../store.js';
import { NdjsonEvents } from './events.js';
import { FileJournals } from './journal.js';
import { fileLedgers } from './ledger.js';
import { said } from '../../said.js';

export interface FilesStoreOptions {
  /** The state folder (src/files/state.ts): journals, ledgers and lock files. */
  dir: string;
  /**
   * The NDJSON event log the store names (`--store FILE`, CALLCTL_STORE..., or a reading
   * command's `--log`), and where that came from, for messages.
   */
  log?: { path: string; from: string };
}

/**
 * The default store, with no server: journals, ledgers and lock files in the state folder
 * (`uploads/`, `journals/`, `ledgers/`, `locks/`), and events in an NDJSON log with dedup in the
 * receiver's memory. Nothing in it is shared with another host.
 */
export class FilesStore implements Store {
  readonly shared = false;
  readonly where: string;
  private readonly journalStores = new Map<JournalKind, Journals>();
  private ledgerStore: Ledgers | undefined;

  constructor(private readonly o: FilesStoreOptions) {
    this.where = `the state folder ${o.dir}`;
  }

  async journals(kind: JournalKind): Promise<Journals> {
    let journals = this.journalStores.get(kind);
    if (!journals) {
      journals =
        kind === 'upload'
          ? new FileJournals(join(this.o.dir, 'uploads'), '.journal')
          : new FileJournals(join(this.o.dir, 'journals'), '.jsonl');
      this.journalStores.set(kind, journals);
    }
    return journals;
  }

  async ledgers(): Promise<Ledgers> {
    return (this.ledgerStore ??= fileLedgers(this.o.dir));
  }

  async lock(request: LockRequest): Promise<() => Promise<void>> {
    const release = lockFile(this.o.dir, request);
    return async () => release();
  }

  /**
   * The log the store names, else `options.log`: appended to by serve-hooks (without either, in
   * memory), read by the others (without either, there is nothing to read).
   */
  async events(options: EventsOptions): Promise<EventStore> {
    const named = this.o.log;
    if (named && options.log !== undefined && options.log !== named.path)
      throw new UsageError(said`give the NDJSON file once: --log or ${named.from}, not both`);
    const path = named?.path ?? options.log;
    const from = named?.from ?? '--log';
    if (options.write) {
      if (options.fsync && path === undefined) throw new UsageError(said`--fsync needs --log FILE`);
      const events = NdjsonEvents.open(path, { write: true, fsync: options.fsync }, from);
      if (options.rememberMs !== undefined) await events.recall(options.rememberMs, (options.now ?? Date.now)());
      return events;
    }
    if (path === undefined)
      throw new UsageError(
        said`no events to read: give --log FILE, or a store (--store-file, CALLCTL_STORE, CALLCTL_STORE_FILE)`,
      );
    // A relative path is read from this folder, not serve-hooks' own: the message says which it was.
    if (!existsSync(path))
      throw new UsageError(
        said`${from}: no such file ${path}${isAbsolute(path) ? '' : ` (here: ${resolve(path)})`}: name the file serve-hooks --log writes`,
      );
    return NdjsonEvents.open(path);
  }

  async close(): Promise<void> {}
}
