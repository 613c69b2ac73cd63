/**
 * `--json`'s text of a group of records written straight from the service's bytes, by a
 * WebAssembly module (wasm/json-indent.ts, compiled by the build into generated/wasm/), in a
 * third of JSON.stringify's time. It gives the bytes `recordsText(JSON.parse(...))` gives
 * (src/output/json-stream.ts), or nothing when it cannot be sure of that (an escape, a number or
 * a key that JSON.stringify would spell otherwise); the caller then stringifies. The bytes must
 * be valid JSON and valid UTF-8: the caller parsed them first.
 */
import { wasmModule, type WasmExports } from './wasm.js';

/** What the module exports (wasm/json-indent.ts). */
interface IndentModule extends WasmExports {
  scratchBytes(): number;
  indent(input: number, inEnd: number, out: number, outEnd: number, scratch: number): number;
  marks(): number;
  contains(hay: number, hayEnd: number, needle: number, length: number): number;
}

/** Room after the input and the output for the module's 16-byte loads and stores. */
const MARGIN = 64;
/** Room for the strings `includes` is asked about (redaction's secrets and their escapes' starts). */
const NEEDLES = 64 << 10;
/** What `marks` tells of each byte: see wasm/json-indent.ts. */
const MARKS: Record<string, number> = { '\\': 1, '%': 1, '&': 1, '+': 2, '@': 4 };

export interface Indenter {
  /**
   * Writes into `output` the text of the array elements in `elements` (the bytes between the
   * array's brackets); answers its length, or undefined when JSON.stringify must write it (or
   * it would not fit).
   */
  write(elements: Uint8Array, output: Uint8Array): number | undefined;
  /**
   * Whether the text last written may hold `part` (redaction's question: src/redact.ts's
   * mayRedact), told from what the module saw of its bytes or by searching them.
   */
  includes(part: string): boolean;
}

/** An indenter for inputs of up to `maxInput` bytes and outputs of up to `maxOutput`. */
export async function jsonIndenter(maxInput: number, maxOutput: number): Promise<Indenter> {
  const { exports } = await wasmModule<IndentModule>('json-indent');
  const outAt = maxInput + MARGIN;
  const scratch = outAt + maxOutput + MARGIN;
  const needlesAt = scratch + exports.scratchBytes();
  const { memory } = exports;
  memory.grow(Math.ceil((needlesAt + NEEDLES) / 65536) - memory.buffer.byteLength / 65536);
  const bytes = new Uint8Array(memory.buffer);
  /** Where each string asked about is in memory, and its length in bytes. */
  const needles = new Map<string, [number, number]>();
  let needlesEnd = needlesAt;
  let written = 0;
  return {
    write(elements, output) {
      written = 0;
      if (elements.length > maxInput) return undefined;
      bytes.set(elements, 0);
      // Spaces after the input: a number at its end ends there, and the module's 16-byte reads
      // past a last string see none of what an earlier input left.
      bytes.fill(0x20, elements.length, elements.length + 16);
      const length = exports.indent(0, elements.length, outAt, outAt + Math.min(maxOutput, output.length), scratch);
      if (length < 0) return undefined;
      output.set(bytes.subarray(outAt, outAt + length));
      written = length;
      return length;
    },
    includes(part) {
      const mark = MARKS[part];
      if (mark !== undefined) return (exports.marks() & mark) !== 0;
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
      return exports.contains(outAt, outAt + written, needle[0], needle[1]) !== 0;
    },
  };
}
