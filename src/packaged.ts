/**
 * A file carried inside the single executable (Node's single executable applications: assets
 * that scripts/sea.mjs puts in), or undefined when callctl runs from the npm package or the
 * sources, which read the same file from dist/. The executable has no dist/ folder: the help
 * pages (help.json) come from here.
 */
export function packagedFile(name: 'help.json'): string | undefined {
  // Looked up when asked, not imported: the npm package's start-up does not load node:sea.
  const sea = globalThis.process.getBuiltinModule('node:sea');
  return sea?.isSea() ? sea.getAsset(name, 'utf8') : undefined;
}
