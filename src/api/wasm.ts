/** The WebAssembly modules of wasm/ (AssemblyScript), loaded from what the build compiled them into. */

/** WebAssembly's JavaScript interface, as far as used here (TypeScript's lib has it only with the DOM's). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => { exports: object };
  Memory: new (size: { initial: number; maximum: number; shared: true }) => SharedMemory;
};

/** A WebAssembly memory (pages of 64 KiB). */
export interface WasmMemory {
  buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}

/** A WebAssembly memory that threads share: its buffer is a SharedArrayBuffer, and it can be posted to a worker. */
export interface SharedMemory extends WasmMemory {
  buffer: SharedArrayBuffer;
}

/** What every module of wasm/ exports: its memory (its own, no pages until grown, or the one it was given). */
export interface WasmExports {
  memory: WasmMemory;
}

/** A memory of `bytes` (rounded up to pages) that threads can share; undefined without WebAssembly (node --jitless). */
export function sharedMemory(bytes: number): SharedMemory | undefined {
  if (typeof WebAssembly === 'undefined') return undefined;
  const pages = Math.ceil(bytes / 65536);
  return new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
}

/**
 * The module `name` of wasm/, compiled by the build into generated/wasm/ (scripts/wasm.mjs),
 * instantiated (with `memory` for a module that imports its memory).
 */
export async function wasmModule<T extends WasmExports>(name: string, memory?: SharedMemory): Promise<{ exports: T }> {
  const { wasm } = (await import(`../../generated/wasm/${name}.js`)) as { wasm: string };
  const module = new WebAssembly.Module(Buffer.from(wasm, 'base64'));
  return { exports: new WebAssembly.Instance(module, memory ? { env: { memory } } : {}).exports as T };
}
