#!/usr/bin/env node
// Entry point: load the built program, call main(argv, io), exit with its code.

// Node 22.1+ caches compiled code between runs (node:module is loaded only where that exists).
if (Number(process.versions.node.split('.')[0]) >= 22) (await import('node:module')).enableCompileCache?.();

const { main, nodeIO } = await import('../dist/main.js');
process.exitCode = await main(process.argv.slice(2), nodeIO());
