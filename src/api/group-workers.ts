import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { packagedFile } from '../packaged.js';
import { secrets } from '../redact.js';
import { SLOT_IN, SLOT_OUT, SLOTS, type GroupJob, type GroupResult, type GroupWorkerData } from './group-jobs.js';
import { indenterBytes } from './json-indent.js';
import { sharedMemory } from './wasm.js';

const COMMA = Buffer.from(',');
/** Bytes after a group's closing bracket in its slot: spaces, read by the indenter past the group's end. */
const PAST_END = 16;

/** The worker's script, beside the bundle's chunks; absent when running from the sources. */
const WORKER = new URL('../api/group-worker.js', import.meta.url);

/**
 * Worker threads that parse, check and write groups of a large answer's records (`--json` of
 * `task detail` and `workflow task-detail`), a group each in turn, so that the main thread only
 * cuts the answer into groups and writes their text in order. A group's bytes and its text pass
 * through slots of memory shared with the workers, taken by the main thread and given back once
 * the text is written: nothing is allocated per group, so memory stays at the slots' 4.5 MB and
 * the indenters' 0.4 MB (a Buffer per group, freed only by the main thread's full collections,
 * made its peak RSS grow with the answer). On a machine of one core there is nothing to gain: `start` gives undefined,
 * as it does without the worker's script.
 */
export class GroupWorkers {
  private readonly waiting = new Map<number, (result: GroupResult) => void>();
  private seq = 0;
  private failure: Error | undefined;
  private readonly free = Array.from({ length: SLOTS }, (_, i) => i);
  /** The length of each slot's group. */
  private readonly lengths = new Int32Array(SLOTS);
  private freed: (() => void) | undefined;

  private constructor(
    private readonly workers: Worker[],
    private readonly shared: SharedArrayBuffer,
  ) {
    for (const worker of workers) {
      worker.on('message', (result: GroupResult) => this.settle(result));
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', () => this.fail(new Error('a worker thread stopped')));
    }
  }

  static start(data: Omit<GroupWorkerData, 'secrets' | 'shared' | 'memory' | 'index'>): GroupWorkers | undefined {
    const count = Math.min(2, availableParallelism());
    if (count < 2) return undefined;
    const source = packagedFile('group-worker.cjs');
    const script = source !== undefined ? source : existsSync(WORKER) ? WORKER : undefined;
    if (script === undefined) return undefined;
    // WebAssembly's memory when there is WebAssembly: the workers' indenters work in the slots.
    const memory = sharedMemory(SLOTS * (SLOT_IN + SLOT_OUT) + count * indenterBytes(0));
    const shared = memory?.buffer ?? new SharedArrayBuffer(SLOTS * (SLOT_IN + SLOT_OUT));
    const workers = Array.from({ length: count }, () => new Worker(script, { eval: source !== undefined }));
    workers.forEach((worker, index) => {
      const init: GroupWorkerData = { ...data, secrets: [...secrets], shared, memory, index };
      worker.postMessage(init);
    });
    return new GroupWorkers(workers, shared);
  }

  /**
   * Whether records of `bytes` bytes fit a slot after the `used` bytes of a group there (a group
   * longer than a slot is read on the main thread).
   */
  fits(bytes: number, used = 0): boolean {
    return used + bytes + 2 + PAST_END <= SLOT_IN;
  }

  /** A free slot, once there is one (a slot is freed when its text was written). */
  async slot(): Promise<number> {
    while (this.free.length === 0) await new Promise<void>((resolve) => (this.freed = resolve));
    return this.free.pop()!;
  }

  /** Gives a slot back. */
  release(slot: number): void {
    this.free.push(slot);
    const wake = this.freed;
    this.freed = undefined;
    wake?.();
  }

  /** Whether a slot is free now. */
  get idle(): boolean {
    return this.free.length > 0;
  }

  /**
   * Puts records' bytes (from the first's start to the last's end, in parts) into `slot` after the
   * `used` bytes of the group there (none: its opening bracket first; some: a comma first);
   * answers the bytes used now. `fits` tells whether they fit.
   */
  put(slot: number, used: number, records: readonly Buffer[]): number {
    let length = 0;
    for (const part of records) length += part.length;
    if (!this.fits(length, used)) throw new RangeError(`a group of ${length} bytes does not fit a slot`);
    const bytes = this.input(slot, used + length + 1);
    bytes[used] = used === 0 ? 0x5b : 0x2c; // [ or ,
    let at = used + 1;
    for (const part of records) {
      bytes.set(part, at);
      at += part.length;
    }
    return at;
  }

  /** Hands the group of `count` records put in `slot` (`used` bytes) to the next worker; its result, in time. */
  read(slot: number, used: number, count: number): Promise<GroupResult> {
    const seq = this.seq++;
    // The closing bracket, and spaces after it for the indenter's 16-byte reads (src/api/json-indent.ts).
    this.input(slot, used + 1 + PAST_END)
      .fill(0x20, used)
      .fill(0x5d, used, used + 1);
    this.lengths[slot] = used + 1;
    const job: GroupJob = { seq, slot, length: used + 1, count };
    return new Promise((resolve) => {
      if (this.failure) return resolve({ seq, kind: 'failed', message: this.failure.message });
      this.waiting.set(seq, resolve);
      this.workers[seq % this.workers.length]!.postMessage(job);
    });
  }

  /** A slot's group, as handed to a worker (in brackets); valid until the slot is given back. */
  group(slot: number): Buffer {
    return Buffer.from(this.shared, slot * (SLOT_IN + SLOT_OUT), this.lengths[slot]);
  }

  /** Where `read` puts a group's bytes in `slot`. */
  private input(slot: number, length: number): Buffer {
    return Buffer.from(this.shared, slot * (SLOT_IN + SLOT_OUT), length);
  }

  /**
   * A group's text, after a comma when `comma`: in its slot (valid until the slot is given back),
   * or its own.
   */
  text(slot: number, result: { length: number; text?: Uint8Array }, comma: boolean): Buffer {
    if (result.text) {
      const own = Buffer.from(result.text.buffer, result.text.byteOffset, result.text.length);
      return comma ? Buffer.concat([COMMA, own]) : own;
    }
    const at = slot * (SLOT_IN + SLOT_OUT) + SLOT_IN;
    if (!comma) return Buffer.from(this.shared, at + 1, result.length);
    const text = Buffer.from(this.shared, at, result.length + 1);
    text[0] = 0x2c; // ,
    return text;
  }

  async close(): Promise<void> {
    this.failure ??= new Error('closed');
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private settle(result: GroupResult): void {
    const resolve = this.waiting.get(result.seq);
    this.waiting.delete(result.seq);
    resolve?.(result);
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const [seq, resolve] of this.waiting) resolve({ seq, kind: 'failed', message: error.message });
    this.waiting.clear();
  }
}
