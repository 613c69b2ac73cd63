// Builds dist/ with esbuild: one bundle per entry point, split into chunks so that each command
// (and its dependencies: zod, undici, conf...) is still loaded only when it runs. Bundling saves
// start-up time: Node no longer resolves and reads hundreds of small files (zod alone has ~100).
// Type-checking is tsc's job (`npm test` runs `tsc --noEmit`).
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const zodEnglish = fileURLToPath(new URL('../node_modules/zod/v4/locales/en.js', import.meta.url));

/** Leaner dependencies in the bundle; each swap is explained where it is made. */
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
    // Node's built-in modules, imported as ESM (by callctl's code and ESM packages such as chalk): taken with process.getBuiltinModule
    // instead of an ESM import. Importing `node:fs` as ESM builds its namespace, which reads every
    // export, `fs.promises` too, and that loads fs/promises and readline (over a millisecond of each
    // start, for code that never uses them). Only data properties are exported: an accessor (such
    // as fs.promises) is left out, so importing one fails the build instead of loading eagerly.
    b.onResolve({ filter: /^node:/ }, (args) =>
      args.kind === 'import-statement' ? { path: args.path, namespace: 'builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
      const names = Object.entries(Object.getOwnPropertyDescriptors(process.getBuiltinModule(args.path)))
        .filter(([name, d]) => 'value' in d && /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default')
        .map(([name]) => name);
      return {
        contents: [
          `const m = process.getBuiltinModule(${JSON.stringify(args.path)});`,
          'export default m;',
          ...names.map((n) => `export const ${n} = m.${n};`),
        ].join('\n'),
        loader: 'js',
      };
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

// Built beside dist/ and swapped in, so that a process already running from dist/ (a test, say)
// does not find its chunks gone half-way.
const out = (name) => fileURLToPath(new URL(`../${name}`, import.meta.url));
rmSync(out('dist.next'), { recursive: true, force: true });
await build({
  entryPoints: ['src/main.ts', 'src/sandbox/server.ts', 'src/help/pages.ts', 'src/upload/part-worker.ts'],
  outdir: 'dist.next',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  // Bundled CommonJS dependencies call require() for Node's built-ins (everything else is in the
  // bundle). process.getBuiltinModule (Node >= 20.16) serves them without loading node:module.
  banner: {
    js: "const require = (id) => { const m = process.getBuiltinModule(id); if (m === undefined) throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' }); return m; };",
  },
  plugins: [lean],
  logLevel: 'warning',
});

// The answers that need no module of the program (--version, help pages): CommonJS, so that
// bin/callctl.js gives them without starting Node's ESM loader (src/quick.ts).
await build({
  entryPoints: ['src/quick.ts'],
  outfile: 'dist.next/quick.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  define: { 'import.meta.url': '__import_meta_url' },
  banner: { js: "const __import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});

// Every help page, rendered once by the built tree: `callctl ... --help` then reads its page
// without loading commander and the command tree (src/help/request.ts).
const { renderHelpPages } = await import(pathToFileURL(out('dist.next/help/pages.js')).href);
writeFileSync(out('dist.next/help.json'), `${JSON.stringify(await renderHelpPages(), null, 1)}\n`);

rmSync(out('dist.old'), { recursive: true, force: true });
try {
  renameSync(out('dist'), out('dist.old'));
} catch {
  // no previous build
}
renameSync(out('dist.next'), out('dist'));
rmSync(out('dist.old'), { recursive: true, force: true });
