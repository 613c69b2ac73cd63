import {
  closeSync,
  fchmodSync,
  fdatasync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  statSync,
  write,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { HookRecord } from '../events.js';
import { decodeRecord, lastRecordEnd, recordLine } from './log-read.js';
import { LineCount } from './page-read.js';

/**
 * The append-only record. A request is answered only once its record is written: once the kernel
 * has it, a killed process has lost nothing it acknowledged. Records that arrive while a write is
 * under way wait and go together in the next write(2) (group commit); with `fsync` each such
 * write is followed by fdatasync, which also survives power loss.
 *
 * A write that fails or stops short (disk full, file size limit) is rolled back: the file is cut
 * back to the end of its last whole record before anything else is written, so the next record
 * never lands on a torn fragment and every line stays readable.
 *
 * Rotation: before each write the path is compared with the open file (one stat(2) per batch,
 * not per record). A log moved away and replaced (logrotate's `create`), or deleted, is reopened
 * at the path before the batch is written, so nothing lands in a file about to be compressed or
 * gone; SIGHUP (`reopen`) does the same at once. A path left empty after a move is created after
 * MISSING_GRACE_MS (logrotate creates it meanwhile); until then records go on into the moved
 * file, which still holds them. A file cut under the log (`copytruncate`) is noticed by its size.
 * Offsets (append, readAt) count every file the log has written, so an offset from a file rotated
 * away reads as gone, never as another record.
 */
export class EventLog {
  private queue: Queued[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;
  /** Where a failed write began, while the file could not yet be cut back to it. */
  private rollbackTo: number | undefined;
  /** The size of the last batch that could not be written, and why (cleared by a write that could). */
  private failed: { bytes: number; reason: string } | undefined;
  /** The open file's identity, compared with the path's before each write. */
  private id: FileId;
  /** Where the last write ended in the open file: a smaller size means it was cut (copytruncate). */
  private end: number;
  /** Bytes of the files written before the open one (their offsets are below it). */
  private before = 0;
  /** Reopen before the next write (SIGHUP, or a reopen that failed). */
  private reopenWanted = false;
  /** Since when the path has been missing while the open file still has a name (moved away). */
  private missingSince: number | undefined;

  private constructor(
    private fd: number,
    readonly path: string,
    readonly fsync: boolean,
    /** Bytes of a record cut short by a crash that were removed on open (0 when none). */
    readonly repaired: number,
    st: { ino: number; dev: number; size: number },
    /** The number of the last line written: the next record's is one more. */
    private last: number,
    /** The file held no record when opened: its numbers are to go on from the rotated files' (continueFrom). */
    readonly unnumbered: boolean,
  ) {
    this.id = { ino: st.ino, dev: st.dev };
    this.end = st.size;
  }

  /**
   * Opens (creating it 0600) for appending. A last line cut short by a crash (never acknowledged:
   * a request is answered only after its whole record is written) is cut off first.
   */
  static open(path: string, options: { fsync?: boolean } = {}): EventLog {
    const { fd, repaired, st } = openLogFile(path);
    const { lines, base } = new LineCount().now(fd);
    return new EventLog(fd, path, options.fsync === true, repaired, st, (base ?? 0) + lines, base === undefined);
  }

  /** Numbers go on from `highest` (the files rotated from this one) while nothing numbered is written here. */
  continueFrom(highest: number): void {
    if (this.unnumbered && !this.flushing) this.last += highest;
  }

  /**
   * Opens the path again (SIGHUP: logrotate moved the file away), at once unless a write is under
   * way (then before the next one). Says what was done, or why it could not be: then records are
   * refused (503) and /readyz is false until a reopen succeeds.
   */
  reopen(): { ok: boolean; message: string } {
    if (this.closed) return { ok: false, message: 'the log is closed' };
    this.reopenWanted = true;
    if (this.flushing) return { ok: true, message: `the log ${this.path} is reopened before the next write` };
    try {
      this.follow();
      return { ok: true, message: `reopened the log ${this.path}` };
    } catch (error) {
      const reason = `the log ${this.path} cannot be reopened (${(error as NodeJS.ErrnoException).code ?? 'error'}): notifications are answered 503 until it can`;
      this.failed = { bytes: this.failed?.bytes ?? 1, reason };
      return { ok: false, message: reason };
    }
  }

  /**
   * Keeps writing where the path leads: reopens when asked, when the path names another file,
   * or when the open one was deleted (or moved away for longer than MISSING_GRACE_MS).
   */
  private follow(): void {
    if (!this.reopenWanted) {
      const st = statSync(this.path, { throwIfNoEntry: false });
      if (st && st.ino === this.id.ino && st.dev === this.id.dev) {
        this.missingSince = undefined;
        return;
      }
      if (!st && fstatSync(this.fd).nlink > 0) {
        const now = Date.now();
        if (now - (this.missingSince ??= now) < MISSING_GRACE_MS) return;
      }
    }
    const next = openLogFile(this.path);
    if (this.fsync) syncFolder(this.path);
    closeSync(this.fd);
    this.before += this.end;
    [this.fd, this.id, this.end] = [next.fd, { ino: next.st.ino, dev: next.st.dev }, next.st.size];
    this.reopenWanted = false;
    this.missingSince = undefined;
  }

  /**
   * Appends one record; the promise resolves with the record's offset and number once it is in
   * the file (and on disk with fsync). Records that arrive while a write is under way go together
   * in the next one. The number (`n` in the line) is given as the batch is written: the lines of
   * a file are numbered without a gap from its first record's, so a reader numbers every line
   * (logBase) the way it was written, and numbers go on across files (rotation).
   */
  append(record: HookRecord): Promise<Written> {
    if (this.closed) return Promise.reject(new Error('event log is closed'));
    return new Promise<Written>((resolve, reject) => {
      this.queue.push({ record, line: '', done: (error, at) => (error ? reject(error) : resolve(at!)) });
      // Without fsync the batch is written at once (write(2) into the page cache takes
      // microseconds; handing it to libuv's thread pool and back cost more than the write), after
      // the requests read in this turn of the event loop have joined it.
      this.flushing ??= this.fsync ? this.flush() : new Promise<void>((done) => setImmediate(() => done(this.flush())));
    });
  }

  /**
   * Writes the queue a batch at a time: with fsync each batch is written and flushed to disk
   * through libuv's thread pool, in turn; without, written with write(2) on this thread.
   */
  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      let start: number | undefined;
      try {
        const buf = this.numbered(batch);
        start = this.start();
        if (this.fsync) {
          await writeAsync(this.fd, buf);
          await new Promise<void>((resolve, reject) => fdatasync(this.fd, (e) => (e ? reject(e) : resolve())));
        } else for (let off = 0; off < buf.length;) off += writeSync(this.fd, buf, off, buf.length - off);
        this.failed = undefined;
        this.end = start + buf.length;
        this.last += batch.length;
        settle(batch, this.before + start);
      } catch (error) {
        this.fail(batch, start, error as Error);
      }
    }
    this.flushing = undefined;
  }

  /** A batch's records numbered on from the last line written, as the bytes of one write. */
  private numbered(batch: Queued[]): Buffer {
    for (let i = 0; i < batch.length; i++) {
      const b = batch[i]!;
      b.record.n = this.last + 1 + i;
      b.line = recordLine(b.record);
    }
    return joined(batch);
  }

  /**
   * Where the next batch begins in the open file, once an earlier failed write is cut back and the
   * path followed (rotation).
   */
  private start(): number {
    if (this.rollbackTo !== undefined) {
      ftruncateSync(this.fd, this.rollbackTo);
      this.rollbackTo = undefined;
    }
    this.follow();
    // Asked of the file, not remembered: a log cut by logrotate's copytruncate stays right, and
    // the offsets of what it held are left behind.
    const size = fstatSync(this.fd).size;
    if (size < this.end) this.before += this.end;
    this.end = size;
    return size;
  }

  /** A failed or short write: cut back to where the batch began, and tell each record. */
  private fail(batch: Queued[], start: number | undefined, error: Error): void {
    if (start !== undefined) this.rollback(start);
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    this.failed = { bytes: joined(batch).length, reason: `the log cannot be written (${code})` };
    for (const b of batch) b.done(error);
  }

  /** Cuts the file back to `size`; when even that fails, it is tried again before the next write. */
  private rollback(size: number): void {
    try {
      ftruncateSync(this.fd, size);
    } catch {
      this.rollbackTo = size;
    }
  }

  /**
   * Why a record could not be written now, or undefined. After a failed write, as many bytes as it
   * held are written at the end and cut off again (a disk with room for one byte may have none for
   * a record); while a write is under way, its outcome stands for the answer.
   */
  probe(): string | undefined {
    if (this.closed) return 'the log is closed';
    // An idle log follows its path here too (asked at most once a second): a rotation is noticed.
    if (!this.failed && !this.flushing) {
      try {
        this.follow();
      } catch (error) {
        this.failed = {
          bytes: 1,
          reason: `the log cannot be reopened (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        };
      }
    }
    const failed = this.failed;
    if (!failed || this.flushing) return failed?.reason;
    let start: number | undefined;
    try {
      start = this.start();
      const whole = writeSync(this.fd, Buffer.alloc(failed.bytes, 0x0a)) === failed.bytes;
      ftruncateSync(this.fd, start);
      // A short write is what a file size limit gives before it refuses: no room for the record.
      if (!whole) return failed.reason;
      this.failed = undefined;
      return undefined;
    } catch (error) {
      if (start !== undefined) this.rollback(start);
      failed.reason = `the log cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
      return failed.reason;
    }
  }

  /** The record that starts at `offset` (from append), or undefined when it is not there any more. */
  readAt(offset: number): HookRecord | undefined {
    if (offset < this.before) return undefined; // in a file rotated away
    const parts: Buffer[] = [];
    const chunk = Buffer.alloc(64 * 1024);
    for (let pos = offset - this.before; ;) {
      const n = readSync(this.fd, chunk, 0, chunk.length, pos);
      if (n === 0) return undefined;
      const end = chunk.subarray(0, n).indexOf(0x0a);
      parts.push(Buffer.from(chunk.subarray(0, end >= 0 ? end : n)));
      if (end >= 0) return decodeRecord(Buffer.concat(parts).toString('utf8'));
      pos += n;
    }
  }

  /** Waits for queued records, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flushing;
    if (this.rollbackTo !== undefined) this.rollback(this.rollbackTo);
    closeSync(this.fd);
  }
}

/** A moved log whose path stays empty this long is created again (logrotate creates it at once). */
const MISSING_GRACE_MS = 1_000;

interface FileId {
  ino: number;
  dev: number;
}

/**
 * Opens a log file for appending (creating it 0600; an existing one made owner-only: it holds
 * bodies and signatures) and cuts off a last line cut short by a crash.
 */
function openLogFile(path: string): { fd: number; repaired: number; st: FileId & { size: number } } {
  const fd = openSync(path, 'a+', 0o600);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: 'ENOTREG' });
    if ((st.mode & 0o777) !== 0o600) fchmodSync(fd, 0o600);
    const end = lastRecordEnd(fd, st.size);
    if (end < st.size) ftruncateSync(fd, end);
    return { fd, repaired: st.size - end, st: { ino: st.ino, dev: st.dev, size: end } };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** A new file's name made durable (--fsync): its folder flushed too. */
function syncFolder(path: string): void {
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** Where a record was written: its offset (counting every file the log wrote) and its number. */
export interface Written {
  offset: number;
  n: number;
}

interface Queued {
  record: HookRecord;
  /** Its line, once numbered. */
  line: string;
  done: (error?: Error, at?: Written) => void;
}

/** A batch's lines as the bytes of one write. */
function joined(batch: Queued[]): Buffer {
  return Buffer.from(batch.length === 1 ? batch[0]!.line : batch.map((b) => b.line).join(''), 'utf8');
}

/** Each record of a written batch is told its offset and number. */
function settle(batch: Queued[], start: number): void {
  let offset = start;
  for (const b of batch) {
    b.done(undefined, { offset, n: b.record.n! });
    offset += Buffer.byteLength(b.line);
  }
}

async function writeAsync(fd: number, buf: Buffer): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    off += await new Promise<number>((resolve, reject) =>
      write(fd, buf, off, buf.length - off, null, (e, n) => (e ? reject(e) : resolve(n))),
    );
  }
}
