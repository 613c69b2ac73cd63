// Builds dist/ with esbuild: one bundle per entry point, split into chunks so that each command
// (and its dependencies: zod, undici, conf...) is still loaded only when it runs. Bundling saves
// start-up time: Node no longer resolves and reads hundreds of small files (zod alone has ~100).
// Type-checking is tsc's job (`npm test` runs `tsc --noEmit`).
import { build } from 'esbuild';
import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { notices, writeNotices } from './notices.mjs';
import { generateAnswerChecks } from './validators.mjs';
import { BUNDLE_IMPORT, bundleModule, entryOf } from './page-bundle.mjs';

/** The version the built program reports (src/version.ts), as a JavaScript string literal. */
const version = JSON.stringify(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);

const zodEnglish = fileURLToPath(new URL('../node_modules/zod/v4/locales/en.js', import.meta.url));

/** Leaner dependencies in the bundle; each swap is explained where it is made. */
/** `import page from './client/NAME.bundle'`: the page's browser code as strings (scripts/page-bundle.mjs). */
const pageBundle = {
  name: 'page-bundle',
  setup(b) {
    b.onResolve({ filter: BUNDLE_IMPORT }, (args) => ({
      path: join(args.resolveDir, entryOf(args.path)),
      namespace: 'page-bundle',
    }));
    b.onLoad({ filter: /.*/, namespace: 'page-bundle' }, async (args) => ({
      contents: await bundleModule(args.path),
      loader: 'js',
    }));
  },
};

const lean = {
  name: 'lean',
  setup(b) {
    // src/api/undici.ts re-exports two names of undici: take them from undici's own modules.
    b.onResolve({ filter: /^undici$/ }, () => ({ path: fileURLToPath(new URL('./undici-lean.cjs', import.meta.url)) }));
    // zod's namespace re-exports all of its ~40 locales (half of its size); callctl uses English,
    // which zod configures itself. The other locales stay out of the bundle.
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/node_modules/zod/') ? { path: 'zod-locales', namespace: 'lean' } : undefined,
    );
    b.onLoad({ filter: /^zod-locales$/, namespace: 'lean' }, () => ({
      contents: `export { default as en } from ${JSON.stringify(zodEnglish)};`,
      loader: 'js',
      resolveDir: '.',
    }));
    // undici's HTTP/2 client requires node:http2 (and with it tls and crypto, ~5 ms) when loaded;
    // callctl never asks for HTTP/2 (no allowH2), so it is loaded if a connection ever needs it.
    b.onResolve({ filter: /^\.\/client-h2(\.js)?$/ }, (args) =>
      args.importer.includes('/node_modules/undici/')
        ? { path: 'lazy-client-h2', namespace: 'lean', pluginData: { real: join(args.resolveDir, 'client-h2.js') } }
        : undefined,
    );
    b.onLoad({ filter: /^lazy-client-h2$/, namespace: 'lean' }, (args) => ({
      contents: `let h2; module.exports = function connectH2(...args) { return (h2 ??= require(${JSON.stringify(args.pluginData.real)}))(...args); };`,
      loader: 'js',
      resolveDir: '.',
    }));
    // undici's body.js takes crypto's randomInt when loaded (for multipart boundaries, which callctl
    // never sends); loading node:crypto costs a few ms of every request's start. Taken when used.
    b.onLoad({ filter: /\/node_modules\/undici\/lib\/web\/fetch\/body\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const eager =
        "const random = runtimeFeatures.has('crypto')\n  ? require('node:crypto').randomInt\n  : (max) => Math.floor(Math.random() * max)";
      if (!source.includes(eager)) throw new Error(`${args.path} changed: review the lean build's swap for it`);
      const lazy =
        "const random = (max) => runtimeFeatures.has('crypto') ? require('node:crypto').randomInt(max) : Math.floor(Math.random() * max)";
      return { contents: source.replace(eager, lazy), loader: 'js' };
    });
    // commander loads child_process (and with it net, dgram...) for executable subcommands,
    // which callctl does not have: load it only if it is ever used, not on every start.
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes('/node_modules/commander/')
        ? { path: 'lazy-child-process', namespace: 'lean' }
        : undefined,
    );
    b.onLoad({ filter: /^lazy-child-process$/, namespace: 'lean' }, () => ({
      contents:
        "let cp; module.exports = new Proxy({}, { get: (_, name) => (cp ??= require('node:child_process'))[name] });",
      loader: 'js',
    }));
  },
};

/**
 * Node's built-in modules, imported as ESM by the bundle (callctl's code, and ESM packages such as
 * chalk), taken with process.getBuiltinModule instead. An ESM import of `node:fs` builds its
 * namespace, which reads every export, `fs.promises` too (loading fs/promises and readline); here
 * only the names imported are read. A rewrite of esbuild's output, whose import lines are regular.
 */
function builtinsWithoutEsm(code) {
  return code.replace(
    /^import\s+(?:(\w+)\s*,?\s*)?(?:\*\s+as\s+(\w+)\s*)?(\{[^}]*\})?\s*from\s*"(node:[\w/]+)";$/gm,
    (_all, def, star, names, id) => {
      const get = `globalThis.process.getBuiltinModule(${JSON.stringify(id)})`;
      const whole = def ?? star;
      const lines = whole ? [`const ${whole} = ${get};`] : [];
      if (names) lines.push(`const ${names.replace(/(\w+)\s+as\s+(\w+)/g, '$1: $2')} = ${whole ?? get};`);
      return lines.join(' ');
    },
  );
}

// Built beside dist/ and swapped in, so that a process already running from dist/ (a test, say)
// does not find its chunks gone half-way.
const out = (name) => fileURLToPath(new URL(`../${name}`, import.meta.url));
rmSync(out('dist.next'), { recursive: true, force: true });
// The answer checks, generated from the zod schemas into generated/ and bundled like any module.
await generateAnswerChecks();
// Bundled CommonJS dependencies call require() for Node's built-ins (everything else is in the
// bundle). process.getBuiltinModule (Node >= 20.16) serves them without loading node:module.
// globalThis.process: a chunk may declare its own `process` (builtinsWithoutEsm turns chalk's
// import of node:process into a const, which, unlike an import, is not there before its line).
const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  banner: {
    js: "const require = (id) => { const m = globalThis.process.getBuiltinModule(id); if (m === undefined) throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' }); return m; };",
  },
  plugins: [pageBundle, lean, notices],
  define: { CALLCTL_BUILD_VERSION: version },
  logLevel: 'warning',
};
/**
 * What nearly every run loads (the command tree's root, the context, the client of the service,
 * output): one chunk. esbuild puts each module in the chunk of the set of entry points that reach
 * it, and every dynamic import is an entry point, so these modules, each reached by another set,
 * were 25 small files; loading an ES module costs a fixed part (resolving, reading, linking), and
 * those files were a third of a read command's start-up. Every entry point, and every dynamic
 * import of callctl's own modules, is therefore given a small wrapper that imports this list
 * first: every such entry point reaches these modules, so they share one chunk.
 */
const CORE = [
  'src/main.ts',
  'src/program.ts',
  'src/commands/declarations.ts',
  'src/commands/flag-values.ts',
  'src/commands/flags/send.ts',
  'src/commands/flags/delimiter.ts',
  'src/context.ts',
  'src/api/client.ts',
  'src/api/cloud.ts',
  'src/schemas/answers.ts',
  'src/help/json-shapes.ts',
  'src/output/output.ts',
].map((f) => fileURLToPath(new URL(`../${f}`, import.meta.url)));
const src = fileURLToPath(new URL('../src/', import.meta.url));
const core = {
  name: 'core',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.namespace === 'core' || !['entry-point', 'dynamic-import'].includes(args.kind)) return undefined;
      // The sandbox, started by tests and benchmarks, loads only its own modules.
      if (args.kind === 'entry-point' && args.path.includes('sandbox')) return undefined;
      const real = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: 'import-statement' });
      if (real.errors.length || !real.path.startsWith(src)) return undefined;
      return { path: real.path, namespace: 'core' };
    });
    b.onLoad({ filter: /.*/, namespace: 'core' }, (args) => ({
      contents: [
        ...CORE.map((f) => `import ${JSON.stringify(f)};`),
        `export * from ${JSON.stringify(args.path)};`,
      ].join('\n'),
      loader: 'js',
      resolveDir: src,
    }));
  },
};
await build({
  ...common,
  plugins: [pageBundle, lean, core, notices],
  entryPoints: [
    { in: 'src/main.ts', out: 'main' },
    { in: 'src/sandbox/server.ts', out: 'sandbox/server' },
  ],
  outdir: 'dist.next',
  splitting: true,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
});
// Used by this script only, removed once the pages are rendered.
await build({ ...common, entryPoints: ['src/help/pages.ts'], outfile: 'dist.next/help-pages.js' });
for (const name of readdirSync(out('dist.next'), { recursive: true }).filter((n) => n.endsWith('.js'))) {
  const file = join(out('dist.next'), name);
  const code = readFileSync(file, 'utf8');
  const rewritten = builtinsWithoutEsm(code);
  if (/^import[^;]*from\s*"node:/m.test(rewritten))
    throw new Error(`${file}: an import of a built-in was not rewritten`);
  if (rewritten !== code) writeFileSync(file, rewritten);
}

// The answers that need no module of the program (--version, help pages): CommonJS, so that
// bin/callctl.js gives them without starting Node's ESM loader (src/quick.ts).
await build({
  entryPoints: ['src/quick.ts'],
  outfile: 'dist.next/quick.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  define: { 'import.meta.url': '__import_meta_url', CALLCTL_BUILD_VERSION: version },
  banner: { js: "const __import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [notices],
  logLevel: 'warning',
});

// Every help page, rendered once by the built tree: `callctl ... --help` then reads its page
// without loading commander and the command tree (src/help/request.ts).
const { renderHelpPages } = await import(pathToFileURL(out('dist.next/help-pages.js')).href);
writeFileSync(out('dist.next/help.json'), `${JSON.stringify(await renderHelpPages(), null, 1)}\n`);
rmSync(out('dist.next/help-pages.js'));
// The licence notices of the packages in the files that ship (scripts/notices.mjs).
writeNotices(out('dist.next'));

rmSync(out('dist.old'), { recursive: true, force: true });
try {
  renameSync(out('dist'), out('dist.old'));
} catch {
  // no previous build
}
renameSync(out('dist.next'), out('dist'));
rmSync(out('dist.old'), { recursive: true, force: true });
