#!/usr/bin/env node
// Entry point: start-up settings, then the built program; exit with its code.
import module from 'node:module';
import v8 from 'node:v8';

// Node 22+ caches compiled code between runs.
module.enableCompileCache?.();
// undici's HTTP parser is WebAssembly; V8 optimises it in the background after first use, and
// the process cannot exit until that finishes (~80 ms after every command). A CLI makes a few
// requests: the baseline compiler is plenty.
v8.setFlagsFromString('--no-wasm-tier-up');

const { main, nodeIO } = await import('../dist/main.js');
process.exitCode = await main(process.argv.slice(2), nodeIO());
