// Compiles the WebAssembly modules in wasm/ (AssemblyScript) for the build: each becomes
// generated/wasm/NAME.js, the module's bytes in base64, which esbuild bundles like any module (so
// the single executable carries them too). src/api/json-indent.ts loads json-indent.
import asc from 'assemblyscript/asc';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(root, 'generated', 'wasm');
/** Each module's own options: json-indent works in the memory the worker threads share (its import). */
const OPTIONS = {
  'json-indent': ['--enable', 'threads', '--importMemory', '--sharedMemory', '--maximumMemory', '65536'],
};

export async function generateWasm() {
  mkdirSync(OUT, { recursive: true });
  for (const file of readdirSync(join(root, 'wasm')).filter((f) => f.endsWith('.ts'))) {
    const name = file.slice(0, -3);
    let binary;
    // SIMD is in every Node since 16; no runtime (the module allocates nothing), no assertions.
    const { error, stderr } = await asc.main(
      [
        ...[join('wasm', file), '-O3', '--runtime', 'stub', '--noAssert', '--enable', 'simd'],
        ...(OPTIONS[name] ?? []),
        ...['--outFile', `${name}.wasm`],
      ],
      {
        writeFile: (filename, contents) => {
          if (filename.endsWith('.wasm')) binary = contents;
        },
      },
    );
    if (error) throw new Error(`wasm/${file}: ${error.message}\n${stderr.toString()}`);
    writeFileSync(
      join(OUT, `${name}.js`),
      `// Written by scripts/wasm.mjs from wasm/${file}.\nexport const wasm = ${JSON.stringify(Buffer.from(binary).toString('base64'))};\n`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await generateWasm();
