import { closeSync, fdatasyncSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { redactValues } from '../../redact.js';
import { syncDir } from '../../files/atomic-write.js';
import { JOURNAL_KEEP_MS, type JournalAppender, type JournalRecord, type Journals } from '../store.js';

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

  /** Best effort: a journal that cannot be read stays. */
  async prune(finished: (records: JournalRecord[]) => boolean, keepMs = JOURNAL_KEEP_MS): Promise<string[]> {
    const removed: string[] = [];
    for (const path of (await this.list()).map((name) => this.where(name))) {
      try {
        if (Date.now() - (await stat(path)).mtimeMs <= keepMs) continue;
        if (!finished(parseRecords(await readFile(path, 'utf8')))) continue;
        await rm(path, { force: true });
        removed.push(path);
      } catch {
        /* kept */
      }
    }
    return removed;
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
