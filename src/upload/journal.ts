import { appendFileSync, closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Batch } from './batches.js';
import { redactValues } from '../redact.js';

/** Folder of upload journals and locks, inside the state folder (src/files/state.ts). */
export function uploadsDir(stateDir: string): string {
  return join(stateDir, 'uploads');
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
  /** The `count` the service answered with (information: the batch was accepted either way). */
  acked: number;
  at: string;
}

/** A batch whose body may have reached the service with no answer (connection lost, timeout, killed). */
export interface UncertainBatch extends Batch {
  at: string;
  error: string;
}

/** What a journal says. */
export interface JournalState {
  path: string;
  header?: JournalHeader;
  /** Batches the service accepted. */
  batches: AckedBatch[];
  /** Batches that may have reached the service: not sent again unless safe (caseid) or asked. */
  uncertain: UncertainBatch[];
  /** When the upload completed; undefined while it is unfinished. */
  doneAt?: string;
  /** A newer upload of the same path (other content) went ahead after this one stopped. */
  supersededAt?: string;
  /** Last line of the last accepted or uncertain batch (0: none). */
  resumeLine: number;
  /** Entries of the accepted batches. */
  ackedEntries: number;
  /** What the service's `count` summed to over the accepted batches. */
  serviceCount: number;
}

/** The state of an upload with no journal (a first run, or `--restart`). */
export function emptyJournal(path: string): JournalState {
  return { path, batches: [], uncertain: [], resumeLine: 0, ackedEntries: 0, serviceCount: 0 };
}

type Record_ = { type?: string; at?: string; error?: string } & Batch & Record<string, unknown>;

/**
 * Reads a journal: append-only NDJSON, one record per line. Per batch (by its lines): `sending`
 * is written and flushed before the request; `batch` (accepted), `uncertain` or `failed` (nothing
 * reached the service) after it. A `sending` with nothing after it is a run killed while the
 * batch was in flight: uncertain. A line that does not parse (the last one, torn by a kill
 * mid-write) is ignored.
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
  const last = new Map<string, Record_>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    let record: Record_;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (record.type === 'start' && !state.header) state.header = record as unknown as JournalHeader;
    else if (record.type === 'done') state.doneAt = record.at;
    else if (record.type === 'superseded') state.supersededAt = record.at;
    else if (record.type === 'batch' || record.type === 'sending' || record.type === 'uncertain' || record.type === 'failed') {
      last.set(`${record.firstLine}-${record.lastLine}`, record);
    }
  }
  for (const r of last.values()) {
    const { type: _t, ...rest } = r;
    if (r.type === 'batch') {
      const b = r as unknown as AckedBatch;
      state.batches.push(b);
      state.ackedEntries += b.count;
      state.serviceCount += typeof b.acked === 'number' ? b.acked : b.count;
    } else if (r.type === 'sending' || r.type === 'uncertain') {
      state.uncertain.push({ ...(rest as unknown as Batch), at: r.at ?? '', error: r.type === 'sending' ? 'the run ended (killed?) while it was in flight' : (r.error ?? 'no answer') });
    } else continue;
    state.resumeLine = Math.max(state.resumeLine, r.lastLine);
  }
  state.batches.sort((a, b) => a.firstLine - b.firstLine);
  state.uncertain.sort((a, b) => a.firstLine - b.firstLine);
  return state;
}

/** The line ranges a re-run does not send: accepted batches, and uncertain ones unless `resend` says so. */
export function skipRanges(state: JournalState, resend: (b: UncertainBatch) => boolean): Array<[number, number]> {
  const ranges: Array<[number, number]> = [...state.batches, ...state.uncertain.filter((b) => !resend(b))].map((b) => [b.firstLine, b.lastLine]);
  return ranges.sort((a, b) => a[0] - b[0]);
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
    const started = state.batches.length > 0 || state.uncertain.length > 0;
    if (h && h.workflowId === workflowId && h.file === file && h.sha256 !== sha256 && !state.doneAt && !state.supersededAt && started) {
      found.push(state);
    }
  }
  return found;
}

/**
 * Appends to a journal, each record flushed to disk (fdatasync): `sending` before a batch's
 * request, its outcome after. The file is created with its header at the first batch, so a run
 * that sends nothing leaves no journal behind.
 */
/**
 * What the uploader needs of a journal's writing side. Files today (JournalWriter); another
 * backend (a database, issue 14) implements the same, with readJournal's JournalState to read.
 */
export interface UploadJournal {
  sending(batch: Batch): void;
  batch(batch: Batch, acked: number): void;
  uncertain(batch: Batch, error: string): void;
  failed(batch: Batch, error: string): void;
  done(): void;
  close(): void;
}

export class JournalWriter implements UploadJournal {
  private fd: number | undefined;

  constructor(
    readonly path: string,
    private readonly header: Omit<JournalHeader, 'type' | 'version' | 'at'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Before the request: from here on the batch may reach the service. */
  sending(batch: Batch): void {
    this.append({ type: 'sending', ...batch, at: this.now().toISOString() });
  }

  /** Accepted (status OK, code 200); `acked` is the service's `count`. */
  batch(batch: Batch, acked: number): void {
    this.append({ type: 'batch', ...batch, acked, at: this.now().toISOString() });
  }

  /** The body may have reached the service, and no answer came. */
  uncertain(batch: Batch, error: string): void {
    this.append({ type: 'uncertain', ...batch, error, at: this.now().toISOString() });
  }

  /** Nothing of it was accepted (refused with an answer, or never connected): a re-run sends it. */
  failed(batch: Batch, error: string): void {
    this.append({ type: 'failed', ...batch, error, at: this.now().toISOString() });
  }

  done(): void {
    this.append({ type: 'done', at: this.now().toISOString() });
  }

  private append(record: object): void {
    if (this.fd === undefined) this.openFile();
    // A batch's error may quote the service, which may echo a secret: never into the file.
    writeSync(this.fd!, `${redactValues(JSON.stringify(record))}\n`);
    fdatasyncSync(this.fd!);
  }

  private openFile(): void {
    const existing = readJournal(this.path);
    mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
    this.fd = openSync(this.path, 'a', 0o600);
    if (!existing.header) {
      writeSync(this.fd, `${redactValues(JSON.stringify({ type: 'start', version: 1, ...this.header, at: this.now().toISOString() }))}\n`);
      syncDir(join(this.path, '..'));
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Marks an unfinished journal as left behind by a newer upload of the same path (warned once). */
export function markSuperseded(path: string, by: string, now = new Date()): void {
  appendFileSync(path, `${JSON.stringify({ type: 'superseded', by, at: now.toISOString() })}\n`);
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
