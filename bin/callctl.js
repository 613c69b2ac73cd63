#!/usr/bin/env node
// Entry point: enable the compile cache where Node has it, load the built program, exit with its code.
import module from 'node:module';
module.enableCompileCache?.();
const { main, nodeIO } = await import('../dist/main.js');
process.exitCode = await main(process.argv.slice(2), nodeIO());
