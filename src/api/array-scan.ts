/**
 * ArraySplitter's reading inside the array (src/api/array-stream.ts), by a WebAssembly module
 * (wasm/array-scan.ts, compiled by the build into generated/wasm/): 16 bytes at a time through
 * strings, for the large answers whose groups go to worker threads. It counts the elements and
 * finds the last cut of a chunk, as that reading does with `parse` off.
 */
import { wasmModule, type WasmExports } from './wasm.js';

interface ScanModule extends WasmExports {
  scan(from: number, end: number, state: number): void;
}

/** Where a scan stands between chunks: in a string, just after a backslash in one, containers open in the current element. */
export interface ScanState {
  inString: boolean;
  escaped: boolean;
  depth: number;
}

/** What a scan of a chunk found: commas between elements, the last one's place, where the array closes (-1: not in it). */
export interface Scanned {
  commas: number;
  lastComma: number;
  closedAt: number;
}

/** The bytes copied into the module's memory at a time. */
const PIECE = 256 << 10;
/** Room after a piece for the module's 16-byte loads. */
const MARGIN = 64;

export interface ArrayScanner {
  /** Reads `chunk` from `from`, inside the array, from the state it was left in (or set to). */
  scan(chunk: Buffer, from: number): Scanned;
  state(): ScanState;
  setState(state: ScanState): void;
}

export async function arrayScanner(): Promise<ArrayScanner> {
  const { exports } = await wasmModule<ScanModule>('array-scan');
  const stateAt = PIECE + MARGIN;
  exports.memory.grow(Math.ceil((stateAt + 64) / 65536));
  const bytes = new Uint8Array(exports.memory.buffer);
  const words = new Int32Array(exports.memory.buffer, stateAt, 6);
  return {
    scan(chunk, from) {
      let commas = 0;
      let lastComma = -1;
      for (let at = from; at < chunk.length; at += PIECE) {
        const piece = chunk.subarray(at, Math.min(at + PIECE, chunk.length));
        bytes.set(piece, 0);
        exports.scan(0, piece.length, stateAt);
        commas += words[3]!;
        if (words[4]! >= 0) lastComma = at + words[4]!;
        if (words[5]! >= 0) return { commas, lastComma, closedAt: at + words[5]! };
      }
      return { commas, lastComma, closedAt: -1 };
    },
    state: () => ({ inString: words[0] !== 0, escaped: words[1] !== 0, depth: words[2]! }),
    setState(state) {
      words[0] = state.inString ? 1 : 0;
      words[1] = state.escaped ? 1 : 0;
      words[2] = state.depth;
    },
  };
}
