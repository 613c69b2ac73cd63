import { closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Batch } from './batches.js';

/** Folder of upload journals and locks, inside the config folder. */
export function uploadsDir(configDir: string): string {
  return join(configDir, 'uploads');
}

/**
 * `<workflow>-<first 16 hex of the content's SHA-256>`: the journal and the lock of one upload.
 * A workflow id with characters unsafe in file names is made safe and tagged with its own hash.
 */
export function uploadKey(workflowId: string, sha256: string): string {
  const safe = workflowId.replace(/[^A-Za-z0-9._-]/g, '_');
  const id = safe === workflowId ? safe : `${safe}~${createHash('sha256').update(workflowId).digest('hex').slice(0, 8)}`;
  return `${id}-${sha256.slice(0, 16)}`;
}

export interface JournalHeader {
  type: 'start';
  version: 1;
  workflowId: string;
  /** Absolute path of the file when the upload started. */
  file: string;
  sha256: string;
  bytes: number;
  at: string;
}

export interface AckedBatch extends Batch {
  type: 'batch';
  /** The `count` the service answered with. */
  acked: number;
  at: string;
}

/** What a journal says. */
export interface JournalState {
  path: string;
  header?: JournalHeader;
  batches: AckedBatch[];
  /** When the upload completed; undefined while it is unfinished. */
  doneAt?: string;
  /** Last line of the last acknowledged batch (0: none): a re-run sends the rows after it. */
  resumeLine: number;
  ackedEntries: number;
}

/** The state of an upload with no journal (a first run, or `--restart`). */
export function emptyJournal(path: string): JournalState {
  return { path, batches: [], resumeLine: 0, ackedEntries: 0 };
}

/**
 * Reads a journal: append-only NDJSON, one record per line. A line that does not parse (the
 * last one, torn by a kill mid-write) is ignored: its batch counts as not acknowledged, and is
 * sent again.
 */
export function readJournal(path: string): JournalState {
  const state = emptyJournal(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return state;
    throw e;
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    let record: { type?: string; at?: string } & Record<string, unknown>;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (record.type === 'start' && !state.header) state.header = record as unknown as JournalHeader;
    else if (record.type === 'batch') {
      const b = record as unknown as AckedBatch;
      state.batches.push(b);
      state.resumeLine = Math.max(state.resumeLine, b.lastLine);
      state.ackedEntries += b.count;
    } else if (record.type === 'done') state.doneAt = record.at;
  }
  return state;
}

/**
 * Unfinished uploads of the same file (same absolute path) to the same workflow with other
 * content: the file changed since a run that did not complete.
 */
export function findInterrupted(dir: string, workflowId: string, file: string, sha256: string): JournalState[] {
  const prefix = uploadKey(workflowId, '').slice(0, -1);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: JournalState[] = [];
  for (const name of names) {
    if (!name.endsWith('.journal') || !name.startsWith(`${prefix}-`)) continue;
    const state = readJournal(join(dir, name));
    const h = state.header;
    if (h && h.workflowId === workflowId && h.file === file && h.sha256 !== sha256 && !state.doneAt && state.batches.length > 0) {
      found.push(state);
    }
  }
  return found;
}

/**
 * Appends to a journal, each record flushed to disk (fdatasync) before the next batch is sent.
 * The file is created with its header at the first acknowledged batch, so a run that sends
 * nothing leaves no journal behind.
 */
export class JournalWriter {
  private fd: number | undefined;

  constructor(
    readonly path: string,
    private readonly header: Omit<JournalHeader, 'type' | 'version' | 'at'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  batch(batch: Batch, acked: number): void {
    this.append({ type: 'batch', ...batch, acked, at: this.now().toISOString() });
  }

  done(): void {
    this.append({ type: 'done', at: this.now().toISOString() });
  }

  private append(record: object): void {
    if (this.fd === undefined) this.openFile();
    writeSync(this.fd!, `${JSON.stringify(record)}\n`);
    fdatasyncSync(this.fd!);
  }

  private openFile(): void {
    const existing = readJournal(this.path);
    mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
    this.fd = openSync(this.path, 'a', 0o600);
    if (!existing.header) {
      writeSync(this.fd, `${JSON.stringify({ type: 'start', version: 1, ...this.header, at: this.now().toISOString() })}\n`);
      syncDir(join(this.path, '..'));
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Removes a journal (`--restart`). */
export function removeJournal(path: string): void {
  rmSync(path, { force: true });
}

/** Makes a new file's name durable too (not possible on every platform; best effort). */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Windows cannot open a folder; its rename and create are durable enough for this.
  }
}
