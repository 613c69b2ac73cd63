import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { ListEntry } from '../schemas/workflow.js';

/** One batch: one request to updatedetails. */
export interface Batch {
  /** 1-based, counted over the whole upload (an earlier run's batches included). */
  index: number;
  /** Lines of the file its first and last entries come from. */
  firstLine: number;
  lastLine: number;
  count: number;
}

interface SpooledBatch extends Batch {
  offset: number;
  length: number;
}

/**
 * Cuts the valid rows into batches of at most `size` entries and, unless it only plans (dry
 * run), spools each batch's entries as JSON to a file: pass 1 reads and checks the CSV once,
 * pass 2 sends from the spool without parsing the CSV again. One line of the spool is one batch:
 * its entries' JSON separated by commas.
 */
export class BatchWriter {
  readonly batches: SpooledBatch[] = [];
  private parts: string[] = [];
  private current: Batch | undefined;
  private offset = 0;
  private fd: number | undefined;
  entries = 0;

  constructor(
    private readonly size: number,
    private readonly firstIndex: number,
    /** Where to spool; undefined to only plan. */
    readonly spoolPath?: string,
  ) {
    if (spoolPath) this.fd = openSync(spoolPath, 'w', 0o600);
  }

  add(line: number, entry: ListEntry): void {
    if (!this.current) {
      this.current = { index: this.firstIndex + this.batches.length, firstLine: line, lastLine: line, count: 0 };
    }
    this.current.lastLine = line;
    this.current.count++;
    this.entries++;
    if (this.fd !== undefined) this.parts.push(JSON.stringify(entry));
    if (this.current.count === this.size) this.cut();
  }

  /** Ends the last batch and closes the spool. */
  finish(): Batch[] {
    if (this.current) this.cut();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    return this.batches.map(({ offset: _o, length: _l, ...b }) => b);
  }

  /** Closes and removes the spool. */
  discard(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.spoolPath) rmSync(this.spoolPath, { force: true });
  }

  private cut(): void {
    const b = this.current!;
    let length = 0;
    if (this.fd !== undefined) {
      const text = `${this.parts.join(',')}\n`;
      this.parts = [];
      length = writeSync(this.fd, text);
    }
    this.batches.push({ ...b, offset: this.offset, length });
    this.offset += length;
    this.current = undefined;
  }
}

/** Reads spooled batches back, one at a time. */
export class BatchReader {
  private constructor(
    private readonly handle: FileHandle,
    private readonly batches: readonly SpooledBatch[],
  ) {}

  static async open(writer: BatchWriter): Promise<BatchReader> {
    if (!writer.spoolPath) throw new Error('BatchReader: nothing was spooled');
    return new BatchReader(await open(writer.spoolPath, 'r'), writer.batches);
  }

  /** The i-th batch of the plan (0-based) with its entries. */
  async read(i: number): Promise<{ batch: Batch; details: ListEntry[] }> {
    const { offset, length, ...batch } = this.batches[i]!;
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await this.handle.read(buffer, 0, length, offset);
    if (bytesRead !== length) throw new Error(`spool: batch ${batch.index} is ${bytesRead} bytes, expected ${length}`);
    // One JSON.parse per batch (the line without its newline, as an array) is far cheaper than one per entry.
    const details = JSON.parse(`[${buffer.toString('utf8', 0, length - 1)}]`) as ListEntry[];
    if (details.length !== batch.count) throw new Error(`spool: batch ${batch.index} holds ${details.length} entries, expected ${batch.count}`);
    return { batch, details };
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
