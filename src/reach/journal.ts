import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { acquireLock } from '../files/lock.js';
import { pruneJournals } from '../files/state.js';
import { redactValues } from '../redact.js';

/** What identifies one batch: the same command, target and file content is the same batch. */
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

type Entry = { t: 'begin'; [k: string]: unknown } | ({ row: number; t: RowState['state'] } & Omit<RowState, 'state'>);

/**
 * An append-only journal of one batch (JSON lines in `<config>/journals/`), so that a re-run
 * after a kill never sends a row twice: "about to send row N" is written and fsynced before the
 * request, the answer after it. A lock (src/files/lock.ts) keeps runs apart.
 */
export class Journal {
  private constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly releaseLock: () => void,
    readonly states: Map<number, RowState>,
    readonly isNew: boolean,
    private readonly now: () => number,
  ) {}

  static pathFor(configDir: string, key: JournalKey): string {
    const id = createHash('sha256').update(`${key.command}\0${key.target}\0${key.sha256}`).digest('hex').slice(0, 24);
    return join(configDir, 'journals', `${key.command}-${id}.jsonl`);
  }

  /** Removes journals last written over 30 days ago whose every row has an answer (none uncertain). */
  static prune(dir: string): void {
    pruneJournals(join(dir, 'journals'), '.jsonl', (path) => {
      const { states } = readStates(path);
      return [...states.values()].every((s) => s.state === 'sent' || s.state === 'failed');
    });
  }

  /** The states recorded so far, without locking or writing (for a dry run). */
  static peek(configDir: string, key: JournalKey): Map<number, RowState> {
    return readStates(Journal.pathFor(configDir, key)).states;
  }

  /**
   * Earlier batches of the same command and target from the same file path with other content:
   * their rows are not known to this batch (an edited file is a new batch), so a warning is due.
   */
  static sameFileOtherContent(configDir: string, key: JournalKey, file: string): Array<{ path: string; at: string }> {
    const dir = join(configDir, 'journals');
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.startsWith(`${key.command}-`) && n.endsWith('.jsonl'));
    } catch {
      return [];
    }
    return names.flatMap((name) => {
      const begin = firstEntry(join(dir, name));
      const same = begin?.target === key.target && begin.file === file && begin.sha256 !== key.sha256;
      return same ? [{ path: join(dir, name), at: String(begin.at) }] : [];
    });
  }

  /** Locks the batch, reads what earlier runs recorded, and starts the journal if it is new. */
  static open(configDir: string, key: JournalKey, meta: Record<string, unknown>, now: () => number): Journal {
    const path = Journal.pathFor(configDir, key);
    mkdirSync(join(configDir, 'journals'), { recursive: true, mode: 0o700 });
    const releaseLock = acquireLock(`${path}.lock`, `${key.command} run of this file`);
    try {
      const { states, exists, endsClean } = readStates(path);
      const fd = openSync(path, 'a', 0o600);
      const journal = new Journal(path, fd, releaseLock, states, !exists, now);
      // A run killed in the middle of a line leaves it unfinished; the next entry starts afresh.
      if (!endsClean) writeSync(fd, '\n');
      if (!exists) journal.append({ t: 'begin', ...key, ...meta, at: new Date(now()).toISOString() }, true);
      return journal;
    } catch (error) {
      releaseLock();
      throw error;
    }
  }

  /** Recorded, and on disk, before the request is made. */
  about(row: number): void {
    this.set(row, { state: 'about', at: this.iso() }, true);
  }

  answer(row: number, state: Exclude<RowState, { state: 'about' }>): void {
    this.set(row, state, false);
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  close(): void {
    closeSync(this.fd);
    this.releaseLock();
  }

  private set(row: number, state: RowState, sync: boolean): void {
    const { state: t, ...rest } = state;
    this.append({ t, row, ...rest } as Entry, sync);
    this.states.set(row, state);
  }

  private append(entry: Entry, sync: boolean): void {
    // A row's error may quote the service, which may echo a secret: never into the file.
    writeSync(this.fd, `${redactValues(JSON.stringify(entry))}\n`);
    if (sync) fsyncSync(this.fd);
  }
}

function readStates(path: string): { states: Map<number, RowState>; exists: boolean; endsClean: boolean } {
  const states = new Map<number, RowState>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { states, exists: false, endsClean: true };
    throw error;
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    let entry: Entry;
    try {
      entry = JSON.parse(line) as Entry;
    } catch {
      // An unfinished line from a killed run: its request was never made (the fsync came first).
      continue;
    }
    if (entry.t === 'begin' || typeof entry.row !== 'number') continue;
    const { t, row, ...rest } = entry;
    states.set(row, { state: t, ...rest } as RowState);
  }
  return { states, exists: true, endsClean: text === '' || text.endsWith('\n') };
}

function firstEntry(path: string): Record<string, unknown> | undefined {
  try {
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(4096);
      const n = readSync(fd, buf, 0, buf.length, 0);
      return JSON.parse(buf.subarray(0, n).toString('utf8').split('\n')[0]!) as Record<string, unknown>;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
