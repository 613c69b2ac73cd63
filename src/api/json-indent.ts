/**
 * `--json`'s text of a group of records written straight from the service's bytes, by a
 * WebAssembly module (wasm/json-indent.ts, compiled by the build into generated/wasm/), in a
 * third of JSON.stringify's time. It gives the bytes `recordsText(JSON.parse(...))` gives
 * (src/output/json-stream.ts), or nothing when it cannot be sure of that (an escape, a number or
 * a key that JSON.stringify would spell otherwise); the caller then stringifies. The bytes must
 * be valid JSON and valid UTF-8: the caller parsed them first.
 */

/** WebAssembly's JavaScript interface, as far as used here (TypeScript's lib has it only with the DOM's). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
};

/** What the module exports (wasm/json-indent.ts). */
interface IndentModule {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  scratchBytes(): number;
  indent(input: number, inEnd: number, out: number, outEnd: number, scratch: number): number;
}

/** Room after the input and the output for the module's 16-byte loads and stores. */
const MARGIN = 64;

/**
 * Writes into `output` the text of the array elements in `elements` (the bytes between the
 * array's brackets); answers its length, or undefined when JSON.stringify must write it (or it
 * would not fit).
 */
export type Indenter = (elements: Uint8Array, output: Uint8Array) => number | undefined;

/** An indenter for inputs of up to `maxInput` bytes and outputs of up to `maxOutput`. */
export async function jsonIndenter(maxInput: number, maxOutput: number): Promise<Indenter> {
  const name = 'json-indent';
  const { wasm } = (await import(`../../generated/wasm/${name}.js`)) as { wasm: string };
  const module = new WebAssembly.Module(Buffer.from(wasm, 'base64'));
  const exports = new WebAssembly.Instance(module).exports as unknown as IndentModule;
  const outAt = maxInput + MARGIN;
  const scratch = outAt + maxOutput + MARGIN;
  const { memory } = exports;
  memory.grow(Math.ceil((scratch + exports.scratchBytes()) / 65536) - memory.buffer.byteLength / 65536);
  const bytes = new Uint8Array(memory.buffer);
  return (elements, output) => {
    if (elements.length > maxInput) return undefined;
    bytes.set(elements, 0);
    // A space after the input: a number at its end ends there, not in what an earlier input left.
    bytes[elements.length] = 0x20;
    const length = exports.indent(0, elements.length, outAt, outAt + Math.min(maxOutput, output.length), scratch);
    if (length < 0) return undefined;
    output.set(bytes.subarray(outAt, outAt + length));
    return length;
  };
}
