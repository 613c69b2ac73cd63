import { createHash } from 'node:crypto';
import type { Destination } from './destination.js';
import type { JournalAppender, JournalRecord, Journals } from './store.js';

/** What identifies the sending of one file: the same command, destination and file content is the same send (its runs share one journal). */
export interface JournalKey {
  command: 'push' | 'template';
  destination: Destination;
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

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 24);

export function journalName(key: JournalKey): string {
  return `${key.command}-${hash(`v2\0${key.command}\0${key.destination.text}\0${key.sha256}`)}`;
}

/**
 * The journal of one push or template CSV send, keyed by rows (the store's Journals
 * underneath), so that a re-run after a kill never sends a row twice: "about to send row N" is
 * on disk before the request, the answer after it (flushed with the next row's intent). The run
 * holds the send's lock (Store.lock) while the journal is open.
 */
export class Journal {
  private constructor(
    readonly path: string,
    private readonly appender: JournalAppender,
    readonly states: Map<number, RowState>,
    readonly isNew: boolean,
    private readonly now: () => number,
  ) {}

  /** Removes journals last written over 30 days ago whose every row has an answer (none uncertain). */
  static async prune(store: Journals): Promise<void> {
    await store.prune((records) =>
      [...statesOf(records).values()].every((s) => s.state === 'sent' || s.state === 'failed'),
    );
  }

  /** The states recorded so far, without locking or writing (for a dry run). */
  static async peek(store: Journals, key: JournalKey): Promise<Map<number, RowState>> {
    return Journal.peekName(store, journalName(key));
  }

  /** The same, of a journal by its name in the store. */
  static async peekName(store: Journals, name: string): Promise<Map<number, RowState>> {
    return statesOf((await store.read(name)) ?? []);
  }

  /**
   * Earlier sends of the same command and target from the same file path with other content:
   * their rows are not known to this send (an edited file is a new send), so a warning is due.
   */
  static async sameFileOtherContent(
    store: Journals,
    key: JournalKey,
    file: string,
  ): Promise<Array<{ path: string; at: string }>> {
    const found: Array<{ path: string; at: string }> = [];
    for (const name of await store.list(`${key.command}-`)) {
      const begin = await store.first(name);
      if (begin?.destination === key.destination.text && begin.file === file && begin.sha256 !== key.sha256)
        found.push({ path: store.where(name), at: String(begin.at) });
    }
    return found;
  }

  /** Reads what earlier runs recorded, and starts the journal if it is new (the caller holds the send's lock). */
  static async open(
    store: Journals,
    key: JournalKey,
    meta: Record<string, unknown>,
    now: () => number,
  ): Promise<Journal> {
    const name = journalName(key);
    const records = await store.read(name);
    const header = () => ({
      t: 'begin',
      command: key.command,
      destination: key.destination.text,
      sha256: key.sha256,
      ...meta,
      at: new Date(now()).toISOString(),
    });
    const appender = store.open(name, header);
    return new Journal(store.where(name), appender, statesOf(records ?? []), records === undefined, now);
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
    await this.appender.close();
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
