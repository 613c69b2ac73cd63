import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Batch } from '../store/upload-journal.js';

/** A batch and where its JSON array is: which spool, at which offset. */
export interface SpooledBatch extends Batch {
  spool: string;
  offset: number;
  length: number;
}

export function plainBatch({ spool: _s, offset: _o, length: _l, ...batch }: SpooledBatch): Batch {
  return batch;
}

const SPOOL_BUFFER_BYTES = 4 << 20;
const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]
const NEWLINE = 0x0a;

/**
 * Cuts the valid rows into batches of at most `size` entries and, unless it only plans (dry
 * run), spools each batch's entries as JSON to a file: pass 1 reads and checks the CSV once,
 * pass 2 sends from the spool without parsing the CSV again. One line of the spool is one batch:
 * the JSON array of its entries, sent as it is, written through a buffer of a few MB.
 */
export class BatchWriter {
  readonly batches: SpooledBatch[] = [];
  private current: (Batch & { offset: number }) | undefined;
  /** Bytes of the spool written so far, buffered ones included. */
  private position = 0;
  private fd: number | undefined;
  private buffer: Buffer | undefined;
  private used = 0;
  entries = 0;

  constructor(
    private readonly size: number,
    private readonly firstIndex: number,
    /** Where to spool; undefined to only count. */
    readonly spoolPath?: string,
  ) {
    if (spoolPath) {
      this.fd = openSync(spoolPath, 'w', 0o600);
      this.buffer = Buffer.allocUnsafe(SPOOL_BUFFER_BYTES);
    }
  }

  /** Adds an entry; with a spool, its JSON (given only then) is written now. */
  add(line: number, json: string | undefined, hasCaseid = false): void {
    if (!this.current) {
      this.current = {
        index: this.firstIndex + this.batches.length,
        firstLine: line,
        lastLine: line,
        count: 0,
        caseids: true,
        offset: this.position,
      };
      this.byte(OPEN);
    } else this.byte(COMMA);
    this.current.lastLine = line;
    this.current.count++;
    if (!hasCaseid) this.current.caseids = false;
    this.entries++;
    if (this.fd !== undefined) this.json(json!);
    if (this.current.count === this.size) this.cut();
  }

  /** Ends the last batch and closes the spool. */
  finish(): Batch[] {
    if (this.current) this.cut();
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    return this.batches.map(plainBatch);
  }

  discard(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.spoolPath) rmSync(this.spoolPath, { force: true });
  }

  private cut(): void {
    const { offset, ...batch } = this.current!;
    this.byte(CLOSE);
    this.byte(NEWLINE);
    this.batches.push({ ...batch, spool: this.spoolPath ?? '', offset, length: this.position - offset });
    this.current = undefined;
  }

  private byte(b: number): void {
    if (this.fd === undefined) return;
    if (this.used === this.buffer!.length) this.flush();
    this.buffer![this.used++] = b;
    this.position++;
  }

  private json(json: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.used + json.length * 3 > this.buffer!.length) {
      this.flush();
      // Larger than the whole buffer: written on its own.
      if (json.length * 3 > this.buffer!.length) {
        this.position += writeSync(this.fd!, json);
        return;
      }
    }
    const written = this.buffer!.write(json, this.used);
    this.used += written;
    this.position += written;
  }

  private flush(): void {
    if (this.fd !== undefined && this.used > 0) writeSync(this.fd, this.buffer!, 0, this.used);
    this.used = 0;
  }
}

/** Reads spooled batches back, one at a time (from one spool or several). */
export class BatchReader {
  private constructor(
    private readonly handles: ReadonlyMap<string, FileHandle>,
    private readonly batches: readonly SpooledBatch[],
  ) {}

  static async open(batches: readonly SpooledBatch[]): Promise<BatchReader> {
    const handles = new Map<string, FileHandle>();
    try {
      for (const { spool } of batches) {
        if (!spool) throw new Error('BatchReader: nothing was spooled');
        if (!handles.has(spool)) handles.set(spool, await open(spool, 'r'));
      }
    } catch (error) {
      for (const h of handles.values()) await h.close();
      throw error;
    }
    return new BatchReader(handles, batches);
  }

  /** The i-th batch of the upload (0-based) and its entries, as a JSON array's text. */
  async read(i: number): Promise<{ batch: Batch; details: Buffer }> {
    const { spool, offset, length, ...batch } = this.batches[i]!;
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await this.handles.get(spool)!.read(buffer, 0, length, offset);
    // Without its newline: `[{...},{...}]`.
    const details = buffer.subarray(0, length - 1);
    if (bytesRead !== length || details[0] !== 0x5b || details[details.length - 1] !== 0x5d) {
      throw new Error(`the spool of batch ${batch.index} is damaged (${bytesRead} of ${length} bytes read)`);
    }
    return { batch, details };
  }

  async close(): Promise<void> {
    for (const h of this.handles.values()) await h.close();
  }
}
