import { closeSync, fdatasyncSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { redactValues } from '../redact.js';
import { syncDir } from '../files/atomic-write.js';
import { pruneJournals } from '../files/state.js';

/** Which journals: uploads (batches of a list update) or reach (rows of push and template send). */
export type JournalKind = 'upload' | 'reach';

/** One record of a journal: a JSON object (what it says is the using command's own). */
export type JournalRecord = Record<string, unknown>;

/**
 * An append-only journal of work that reaches people (list-update batches, pushes, template
 * sends): an intent is recorded, and on disk, before its request leaves, and its answer after.
 * A record appended with `durable` is on disk, with every record before it, when `append`
 * returns (or its promise resolves); records appended without it are on disk by the next durable
 * one or by `close`. So an answer need not be flushed on its own: the next intent flushes it,
 * and a crash before that leaves the request uncertain, never forgotten.
 */
export interface JournalAppender {
  append(record: JournalRecord, durable: boolean): void | Promise<void>;
  /** Flushes what is not yet on disk and closes. Safe to call more than once. */
  close(): void | Promise<void>;
}

/**
 * Where journals live, by name. Files today (FileJournals: one NDJSON file per journal); a
 * database implements the same. Reads are asynchronous so that one can.
 */
export interface Journals {
  /** Its records in order, or undefined when there is no such journal. A torn last record (a run killed mid-write) is left out. */
  read(name: string): Promise<JournalRecord[] | undefined>;
  /** The first record alone (the header), without reading the rest. */
  first(name: string): Promise<JournalRecord | undefined>;
  /**
   * Opens a journal to append to. A new journal is created at its first append, `header()`
   * first, so that a run that records nothing leaves nothing behind.
   */
  open(name: string, header: () => JournalRecord): JournalAppender;
  /** The names of the journals, those starting with `prefix` when given. */
  list(prefix?: string): Promise<string[]>;
  remove(name: string): Promise<void>;
  /** Removes the journals last written over `keepMs` ago whose records say they are finished. */
  prune(finished: (records: JournalRecord[]) => boolean, keepMs?: number): Promise<string[]>;
  /** Where a journal is, for messages and summaries (a file's path). */
  where(name: string): string;
}

/** Journals as files `<dir>/<name><suffix>`, one JSON record a line. */
export class FileJournals implements Journals {
  constructor(
    readonly dir: string,
    private readonly suffix: string,
  ) {}

  where(name: string): string {
    return join(this.dir, `${name}${this.suffix}`);
  }

  async read(name: string): Promise<JournalRecord[] | undefined> {
    let text: string;
    try {
      text = await readFile(this.where(name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return parseRecords(text);
  }

  async first(name: string): Promise<JournalRecord | undefined> {
    try {
      const fd = openSync(this.where(name), 'r');
      try {
        const buf = Buffer.alloc(4096);
        const n = readSync(fd, buf, 0, buf.length, 0);
        return JSON.parse(buf.subarray(0, n).toString('utf8').split('\n')[0]!) as JournalRecord;
      } finally {
        closeSync(fd);
      }
    } catch {
      return undefined;
    }
  }

  open(name: string, header: () => JournalRecord): JournalAppender {
    return new FileAppender(this.where(name), header);
  }

  async list(prefix = ''): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.startsWith(prefix) && n.endsWith(this.suffix))
      .map((n) => n.slice(0, -this.suffix.length));
  }

  async remove(name: string): Promise<void> {
    await rm(this.where(name), { force: true });
  }

  async prune(finished: (records: JournalRecord[]) => boolean, keepMs?: number): Promise<string[]> {
    const { readFileSync } = await import('node:fs');
    return pruneJournals(
      this.dir,
      this.suffix,
      (path) => finished(parseRecords(readFileSync(path, 'utf8'))),
      Date.now(),
      keepMs,
    );
  }
}

/** The records of an NDJSON text; a line that does not parse (torn by a kill mid-write) is skipped. */
function parseRecords(text: string): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const record = JSON.parse(line) as unknown;
      if (record !== null && typeof record === 'object' && !Array.isArray(record))
        records.push(record as JournalRecord);
    } catch {
      // An unfinished line from a killed run: its request was never made (the flush came first).
    }
  }
  return records;
}

class FileAppender implements JournalAppender {
  private fd: number | undefined;
  /** Records written since the last flush. */
  private dirty = false;

  constructor(
    private readonly path: string,
    private readonly header: () => JournalRecord,
  ) {}

  append(record: JournalRecord, durable: boolean): void {
    if (this.fd === undefined) this.openFile();
    // A record may quote the service, which may echo a secret: never into the file.
    writeSync(this.fd!, `${redactValues(JSON.stringify(record))}\n`);
    this.dirty = true;
    if (durable) this.flush();
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  private flush(): void {
    if (!this.dirty) return;
    fdatasyncSync(this.fd!);
    this.dirty = false;
  }

  private openFile(): void {
    const dir = join(this.path, '..');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fd = openSync(this.path, 'a+', 0o600);
    this.fd = fd;
    const size = fstatSync(fd).size;
    if (size === 0) {
      writeSync(fd, `${redactValues(JSON.stringify(this.header()))}\n`);
      fdatasyncSync(fd);
      // The new file's name is durable too.
      syncDir(dir);
      return;
    }
    // A run killed in the middle of a line leaves it unfinished: the next record starts afresh.
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] !== 0x0a) writeSync(fd, '\n');
  }
}
