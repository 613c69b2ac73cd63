/**
 * `--json`'s text of a group of records written straight from the service's bytes, by a
 * WebAssembly module (wasm/json-indent.ts, compiled by the build into generated/wasm/), in a
 * third of JSON.stringify's time. It gives the bytes `recordsText(JSON.parse(...))` gives
 * (src/output/json-stream.ts), or nothing when it cannot be sure of that (an escape, a number or
 * a key that JSON.stringify would spell otherwise); the caller then stringifies. The bytes must
 * be valid JSON and valid UTF-8: the caller parsed them first.
 */
import { sharedMemory, wasmModule, type SharedMemory, type WasmExports } from './wasm.js';

/** What the module exports (wasm/json-indent.ts). */
interface IndentModule extends WasmExports {
  scratchBytes(): number;
  indent(input: number, inEnd: number, out: number, outEnd: number, scratch: number): number;
  marks(): number;
  contains(hay: number, hayEnd: number, needle: number, length: number): number;
}

/** Room after the input and the output for the module's 16-byte loads and stores. */
const MARGIN = 64;
/** The module's scratch area (at least its scratchBytes()). */
const SCRATCH = 136 << 10;
/** Room for the strings `includes` is asked about (redaction's secrets and their escapes' starts). */
const NEEDLES = 64 << 10;
/** What `marks` tells of each byte: see wasm/json-indent.ts. */
const MARKS = new Map([
  ['\\', 1],
  ['%', 1],
  ['&', 1],
  ['+', 2],
  ['@', 4],
]);

export interface Indenter {
  /**
   * Writes into `output` the text of the array elements in `elements` (the bytes between the
   * array's brackets); answers its length, or undefined when JSON.stringify must write it (or
   * it would not fit). Both are read and written in place when they are views of the
   * indenter's memory: then the byte after `elements` must end a number (the array's `]`), and
   * the 16 after it be spaces (src/api/group-workers.ts puts them there).
   */
  write(elements: Uint8Array, output: Uint8Array): number | undefined;
  /**
   * Whether the text last written may hold `part` (redaction's question: src/redact.ts's
   * mayRedact), told from what the module saw of its bytes or by searching them.
   */
  includes(part: string): boolean;
}

/** The bytes of memory an indenter uses from its `at`, copying inputs of up to `copies` bytes. */
export function indenterBytes(copies: number): number {
  return SCRATCH + NEEDLES + (copies ? 3 * (copies + MARGIN) : 0);
}

/**
 * An indenter working in `memory` (the worker threads' shared memory, whose slots it reads and
 * writes in place), with `indenterBytes(copies)` bytes of its own from `at`; or in a memory of its
 * own (`memory` undefined, `at` 0), into which it copies each input of up to `copies` bytes.
 */
export async function jsonIndenter(memory: SharedMemory | undefined, at: number, copies: number): Promise<Indenter> {
  const own = memory ?? sharedMemory(indenterBytes(copies));
  if (!own) throw new Error('no WebAssembly');
  const { exports } = await wasmModule<IndentModule>('json-indent', own);
  if (exports.scratchBytes() > SCRATCH) throw new Error('the indenter needs more scratch than SCRATCH');
  const scratch = at;
  const needlesAt = scratch + SCRATCH;
  const copyIn = needlesAt + NEEDLES;
  const copyOut = copyIn + copies + MARGIN;
  const bytes = new Uint8Array(own.buffer);
  /** Where each string asked about is in memory, and its length in bytes. */
  const needles = new Map<string, [number, number]>();
  let needlesEnd = needlesAt;
  let text = 0;
  let written = 0;
  const mine = (view: Uint8Array) => view.buffer === own.buffer;
  return {
    write(elements, output) {
      written = 0;
      let input = elements.byteOffset;
      if (!mine(elements)) {
        if (copies === 0 || elements.length > copies) return undefined;
        bytes.set(elements, copyIn);
        // Spaces after the input: a number at its end ends there, and the module's 16-byte reads
        // past a last string see none of what an earlier input left.
        bytes.fill(0x20, copyIn + elements.length, copyIn + elements.length + 16);
        input = copyIn;
      }
      text = mine(output) ? output.byteOffset : copyOut;
      const room = mine(output) ? output.length : Math.min(output.length, 2 * copies);
      const length = exports.indent(input, input + elements.length, text, text + room, scratch);
      if (length < 0) return undefined;
      if (!mine(output)) output.set(bytes.subarray(text, text + length));
      written = length;
      return length;
    },
    includes(part) {
      const mark = MARKS.get(part);
      if (mark !== undefined) return (exports.marks() & mark) !== 0;
      // A lone surrogate has no UTF-8 of its own: redaction's pattern may find it where a search of bytes cannot.
      if (/[\ud800-\udfff]/.test(part)) return true;
      let needle = needles.get(part);
      if (!needle) {
        const length = Buffer.byteLength(part);
        // No room left (hundreds of secrets): the text may hold it, as far as this can tell.
        if (needlesEnd + length + MARGIN > needlesAt + NEEDLES) return true;
        bytes.set(Buffer.from(part), needlesEnd);
        needle = [needlesEnd, length];
        needles.set(part, needle);
        needlesEnd += length;
      }
      return exports.contains(text, text + written, needle[0], needle[1]) !== 0;
    },
  };
}
