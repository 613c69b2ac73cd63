// The browser code of callctl's pages (src/hooks/ui/client/*.ts and their CSS), bundled by esbuild
// into strings that the program serves from memory: no file to find at run time, nothing fetched
// from outside. `import page from './client/NAME.bundle'` gives `{ script, css }` (the declaration
// is src/hooks/ui/bundle.d.ts). The build (scripts/build.mjs) and the tests (vitest.config.ts) both
// resolve such imports through this module, so a test runs the very code the build ships.
import { build } from 'esbuild';

/** The bundle of one page's entry (`.../NAME.ts`): its script (an IIFE) and its CSS, minified. */
export async function bundlePage(entry) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2020',
    platform: 'browser',
    write: false,
    outdir: 'page-bundle',
    logLevel: 'silent',
  });
  const text = (ext) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { script: text('.js'), css: text('.css') };
}

/** The module text of a bundle import. `</` is written `<\/` so that the script can sit in a <script> element. */
export async function bundleModule(entry) {
  const { script, css } = await bundlePage(entry);
  const safe = (s) => JSON.stringify(s).replace(/<\//g, '<\\/');
  return `export default { script: ${safe(script)}, css: ${safe(css)} };`;
}

/** `./client/NAME.bundle` -> the entry `./client/NAME.ts`. */
export const BUNDLE_IMPORT = /\.bundle$/;
export const entryOf = (path) => path.replace(BUNDLE_IMPORT, '.ts');
