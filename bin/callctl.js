#!/usr/bin/env node
// Entry point. CommonJS (bin/package.json says so): Node starts a CommonJS file without its ESM
// loader, so `--version` and help, answered by dist/quick.cjs, cost what `node -e 0` costs.
// Everything else loads the built program and calls main(argv, io), exiting with its code.
'use strict';

const argv = process.argv.slice(2);
const quick = require('../dist/quick.cjs');
const answered = quick.quickAnswer(argv);
if (answered !== undefined) {
  process.exitCode = answered;
} else {
  // Node 22.1+ caches compiled code between runs, here in callctl's cache folder (node:module is
  // loaded only where that exists).
  if (Number(process.versions.node.split('.')[0]) >= 22)
    require('node:module').enableCompileCache?.(quick.compileCacheDir());
  import('../dist/main.js')
    .then(({ main, nodeIO }) => main(argv, nodeIO()))
    .then((code) => {
      process.exitCode = code;
    });
}
