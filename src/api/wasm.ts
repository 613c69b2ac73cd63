/** The WebAssembly modules of wasm/ (AssemblyScript), loaded from what the build compiled them into. */

/** WebAssembly's JavaScript interface, as far as used here (TypeScript's lib has it only with the DOM's). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
};

/** What every module of wasm/ exports: its memory (no pages until grown). */
export interface WasmExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
}

/** The module `name` of wasm/, compiled by the build into generated/wasm/ (scripts/wasm.mjs), instantiated. */
export async function wasmModule<T extends WasmExports>(name: string): Promise<{ exports: T }> {
  const { wasm } = (await import(`../../generated/wasm/${name}.js`)) as { wasm: string };
  const module = new WebAssembly.Module(Buffer.from(wasm, 'base64'));
  return { exports: new WebAssembly.Instance(module).exports as T };
}
