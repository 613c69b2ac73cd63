/**
 * What the main thread and the worker threads of src/api/group-workers.ts tell each other, and the
 * slots of memory they share (a module of its own: the worker's bundle takes only this).
 */
import type { AnswerName } from '../schemas/answers.js';
import type { SharedMemory } from './wasm.js';

/** What each worker is told first: which answer, the array's key, the fields around it, the secrets to redact, the slots. */
export interface GroupWorkerData {
  answer: AnswerName;
  key: string;
  /** The object holding the array, as read before it (vouched for by the answer's check). */
  holder: Record<string, unknown>;
  secrets: string[];
  /** The memory shared with the main thread: SLOTS of SLOT_IN + SLOT_OUT bytes, then the indenters' rooms (with WebAssembly). */
  shared: SharedArrayBuffer;
  /**
   * The same memory as WebAssembly's (undefined without WebAssembly): the worker's indenter reads
   * and writes the slots in place, and has its own room after them (indenterBytes(0) for each worker, in order).
   */
  memory: SharedMemory | undefined;
  /** Which worker this is (0 or 1): where its room is. */
  index: number;
}

/** A group of records in slot `slot`: the bytes of an array of them (`[`, the records, `]`), and how many. */
export interface GroupJob {
  seq: number;
  slot: number;
  length: number;
  count: number;
}

/**
 * What a worker made of a group: its text for `--json` (src/output/json-stream.ts's recordsText,
 * redacted, UTF-8), `length` bytes in the slot's output, or in `text` when it was too long for it;
 * or that the answer's check does not vouch for it (the main thread reads it record by record,
 * with zod); or that it is not JSON.
 */
export type GroupResult =
  | { seq: number; kind: 'text'; length: number; text?: Uint8Array }
  | { seq: number; kind: 'unvouched' | 'syntax' }
  | { seq: number; kind: 'failed'; message: string };

/** Answers smaller than this are read on the main thread: starting workers costs more than it saves. */
export const WORKERS_FROM_BYTES = 4 << 20;

/** A group for the workers is sent once it holds this many bytes (or the answer ends). */
export const GROUP_BYTES = 32 << 10;

/** Groups in the workers' hands or being written, at most: each in a slot of memory shared with them. */
export const SLOTS = 8;
/** A slot's room for a group's bytes (GROUP_BYTES or a little more: the records of a chunk or of several, in brackets). */
export const SLOT_IN = 192 << 10;
/** A slot's room for a group's text (about 1.4 times its bytes, indented). */
export const SLOT_OUT = 2 * SLOT_IN;
