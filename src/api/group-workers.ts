import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { packagedFile } from '../packaged.js';
import { secrets } from '../redact.js';
import type { AnswerName } from '../schemas/answers.js';

/** What each worker is told first: which answer, the array's key, the fields around it, the secrets to redact. */
export interface GroupWorkerData {
  answer: AnswerName;
  key: string;
  /** The object holding the array, as read before it (vouched for by the answer's check). */
  holder: Record<string, unknown>;
  secrets: string[];
}

/** A group of records: the bytes of an array of them (`[` and `]` around the answer's bytes), and how many. */
export interface GroupJob {
  seq: number;
  bytes: Uint8Array;
  count: number;
}

/**
 * What a worker made of a group: its text for `--json` (src/output/json-stream.ts's recordsText,
 * redacted, UTF-8); or that the answer's check does not vouch for it (the main thread reads it
 * record by record, with zod); or that it is not JSON.
 */
export type GroupResult =
  | { seq: number; kind: 'text'; text: Uint8Array }
  | { seq: number; kind: 'unvouched' | 'syntax' }
  | { seq: number; kind: 'failed'; message: string };

/** Answers smaller than this are read on the main thread: starting workers costs more than it saves. */
export const WORKERS_FROM_BYTES = 4 << 20;

/** The worker's script, beside the bundle's chunks; absent when running from the sources. */
const WORKER = new URL('../api/group-worker.js', import.meta.url);

/**
 * Worker threads that parse, check and write groups of a large answer's records (`--json` of
 * `task detail` and `workflow task-detail`), a group each in turn, so that the main thread only
 * cuts the answer into groups and writes their text in order. On a machine of one core there is
 * nothing to gain: `start` gives undefined, as it does without the worker's script.
 */
export class GroupWorkers {
  private readonly waiting = new Map<number, (result: GroupResult) => void>();
  private seq = 0;
  private failure: Error | undefined;

  private constructor(private readonly workers: Worker[]) {
    for (const worker of workers) {
      worker.on('message', (result: GroupResult) => this.settle(result));
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', () => this.fail(new Error('a worker thread stopped')));
    }
  }

  static start(data: Omit<GroupWorkerData, 'secrets'>): GroupWorkers | undefined {
    const count = Math.min(2, availableParallelism());
    if (count < 2) return undefined;
    const source = packagedFile('group-worker.cjs');
    const script = source !== undefined ? source : existsSync(WORKER) ? WORKER : undefined;
    if (script === undefined) return undefined;
    const init: GroupWorkerData = { ...data, secrets: [...secrets] };
    const workers = Array.from({ length: count }, () => new Worker(script, { eval: source !== undefined }));
    for (const worker of workers) worker.postMessage(init);
    return new GroupWorkers(workers);
  }

  /**
   * Hands a group (its records' bytes, from the first's start to the last's end) to the next
   * worker; its result, in time. The bytes are copied, in brackets: the chunk stays the caller's.
   */
  read(records: Buffer, count: number): Promise<GroupResult> {
    const seq = this.seq++;
    const bytes = new Uint8Array(records.length + 2);
    bytes[0] = 0x5b; // [
    bytes.set(records, 1);
    bytes[records.length + 1] = 0x5d; // ]
    const job: GroupJob = { seq, bytes, count };
    return new Promise((resolve) => {
      if (this.failure) return resolve({ seq, kind: 'failed', message: this.failure.message });
      this.waiting.set(seq, resolve);
      this.workers[seq % this.workers.length]!.postMessage(job, [job.bytes.buffer as ArrayBuffer]);
    });
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
