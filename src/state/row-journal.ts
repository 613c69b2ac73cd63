import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { acquireLock } from '../files/lock.js';
import { FileJournals, type JournalAppender, type JournalRecord, type JournalStore } from './journal.js';

/** What identifies the sending of one file: the same command, target and file content is the same send (its runs share one journal). */
export interface JournalKey {
  command: string;
  /** Where the rows go (flex URL and environment, or base URL); never a secret. */
  target: string;
  /** SHA-256 of the input file. */
  sha256: string;
}

/** The last thing the journal knows of a row. */
export type RowState =
  /** About to be sent, no answer recorded: it may have reached the person. */
  | { state: 'about'; at: string }
  | { state: 'sent'; at: string; id: string }
  | { state: 'failed'; at: string; id?: string; error: string }
  /** The connection was never made: nothing went out. */
  | { state: 'not-sent'; at: string; error: string }
  /** The connection failed after the body went out. */
  | { state: 'uncertain'; at: string; error: string };

/** The row journals as files: `<state>/journals/<command>-<id>.jsonl` (src/state/journal.ts). */
export function reachJournals(stateDir: string): JournalStore {
  return new FileJournals(join(stateDir, 'journals'), '.jsonl');
}

/** The journal's name: the command and a hash of what identifies the send. */
export function journalName(key: JournalKey): string {
  const id = createHash('sha256').update(`${key.command}\0${key.target}\0${key.sha256}`).digest('hex').slice(0, 24);
  return `${key.command}-${id}`;
}

/**
 * The journal of one push or template CSV send, keyed by rows (src/state/journal.ts
 * underneath), so that a re-run after a kill never sends a row twice: "about to send row N" is
 * on disk before the request, the answer after it (flushed with the next row's intent). A lock
 * (src/files/lock.ts) keeps runs apart.
 */
export class Journal {
  private constructor(
    readonly path: string,
    private readonly appender: JournalAppender,
    private readonly releaseLock: () => void,
    readonly states: Map<number, RowState>,
    readonly isNew: boolean,
    private readonly now: () => number,
  ) {}

  /** Where the journal of a send is, under the state folder. */
  static pathFor(stateDir: string, key: JournalKey): string {
    return reachJournals(stateDir).where(journalName(key));
  }

  /** Removes journals last written over 30 days ago whose every row has an answer (none uncertain). */
  static async prune(store: JournalStore): Promise<void> {
    await store.prune((records) =>
      [...statesOf(records).values()].every((s) => s.state === 'sent' || s.state === 'failed'),
    );
  }

  /** The states recorded so far, without locking or writing (for a dry run). */
  static async peek(store: JournalStore, key: JournalKey): Promise<Map<number, RowState>> {
    return statesOf((await store.read(journalName(key))) ?? []);
  }

  /**
   * Earlier sends of the same command and target from the same file path with other content:
   * their rows are not known to this send (an edited file is a new send), so a warning is due.
   */
  static async sameFileOtherContent(
    store: JournalStore,
    key: JournalKey,
    file: string,
  ): Promise<Array<{ path: string; at: string }>> {
    const found: Array<{ path: string; at: string }> = [];
    for (const name of await store.list(`${key.command}-`)) {
      const begin = await store.first(name);
      if (begin?.target === key.target && begin.file === file && begin.sha256 !== key.sha256)
        found.push({ path: store.where(name), at: String(begin.at) });
    }
    return found;
  }

  /**
   * Locks the send, reads what earlier runs recorded, and starts the journal if it is new. The
   * lock is a file (`lockPath`, by default beside a file journal); a store whose journals are not
   * files names a lock file of its own (and may take a shared lock too, as the command does).
   */
  static async open(
    store: JournalStore,
    key: JournalKey,
    meta: Record<string, unknown>,
    now: () => number,
    lockPath = `${store.where(journalName(key))}.lock`,
  ): Promise<Journal> {
    const name = journalName(key);
    const path = store.where(name);
    mkdirSync(dirname(lockPath), { recursive: true, mode: 0o700 });
    const releaseLock = acquireLock(lockPath, `${key.command} run of this file`);
    try {
      const records = await store.read(name);
      const appender = store.open(name, () => ({ t: 'begin', ...key, ...meta, at: new Date(now()).toISOString() }));
      return new Journal(path, appender, releaseLock, statesOf(records ?? []), records === undefined, now);
    } catch (error) {
      releaseLock();
      throw error;
    }
  }

  /** Recorded, and on disk, before the request is made. */
  about(row: number): void | Promise<void> {
    return this.set(row, { state: 'about', at: this.iso() }, true);
  }

  answer(row: number, state: Exclude<RowState, { state: 'about' }>): void | Promise<void> {
    return this.set(row, state, false);
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  async close(): Promise<void> {
    try {
      await this.appender.close();
    } finally {
      this.releaseLock();
    }
  }

  private set(row: number, state: RowState, durable: boolean): void | Promise<void> {
    const { state: t, ...rest } = state;
    this.states.set(row, state);
    return this.appender.append({ t, row, ...rest }, durable);
  }
}

/** The last state of each row. */
function statesOf(records: readonly JournalRecord[]): Map<number, RowState> {
  const states = new Map<number, RowState>();
  for (const entry of records) {
    if (entry.t === 'begin' || typeof entry.row !== 'number') continue;
    const { t, row, ...rest } = entry;
    states.set(row, { state: t, ...rest } as RowState);
  }
  return states;
}
