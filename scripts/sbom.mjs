// The CycloneDX SBOM of what the release carries: the packages bundled into dist/ (their code is in
// the npm package, the executable and the .deb) and, for the executable, the Node.js runtime. It
// starts from @cyclonedx/cyclonedx-npm's SBOM of the whole install, where every package is a
// devDependency (the build bundles them: the npm package has no dependencies), and keeps the
// bundled ones, as named in dist/THIRD-PARTY-NOTICES.txt (scripts/notices.mjs, from esbuild's
// metafile); the dev tools (eslint, vitest, esbuild...) are left out.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NOTICES_FILE } from './notices.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** `name@version` of each package the notices list (their sections' headings). */
export function bundledIds(noticesText) {
  return new Set([...noticesText.matchAll(/^-{78}\n(\S+@[^\s@]+)\nLicense: /gm)].map((m) => m[1]));
}

/** A component's `name@version`, as npm writes it (`@inquirer/core@10.3.2`). */
const idOf = (c) => `${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`;

/**
 * Keeps the components of `bom` whose `name@version` is in `keep`. Each kept component depends on
 * the kept ones it reaches through left-out ones (a package that put no code in the bundle, such
 * as @inquirer/prompts' index); the main component depends on its own kept dependencies and on
 * the kept ones no kept one depends on.
 */
export function keepBundled(bom, keep) {
  // One component per name@version: npm may install the same one at two paths (`...#2`).
  const first = new Map();
  for (const c of bom.components) if (keep.has(idOf(c)) && !first.has(idOf(c))) first.set(idOf(c), c);
  const kept = [...first.values()];
  const keptRefs = new Set(kept.map((c) => c['bom-ref']));
  const refOf = new Map(bom.components.map((c) => [c['bom-ref'], first.get(idOf(c))?.['bom-ref']]));
  const edges = new Map(bom.dependencies.map((d) => [d.ref, (d.dependsOn ?? []).map((r) => refOf.get(r) ?? r)]));
  const reach = (ref) => {
    const found = new Set();
    const seen = new Set([ref]);
    const stack = [...(edges.get(ref) ?? [])];
    while (stack.length) {
      const next = stack.pop();
      if (seen.has(next)) continue;
      seen.add(next);
      if (keptRefs.has(next)) found.add(next);
      else stack.push(...(edges.get(next) ?? []));
    }
    return [...found].sort();
  };
  const dependencies = kept.map((c) => ({ ref: c['bom-ref'], dependsOn: reach(c['bom-ref']) }));
  const below = new Set(dependencies.flatMap((d) => d.dependsOn));
  const main = bom.metadata.component['bom-ref'];
  const direct = (edges.get(main) ?? []).filter((r) => keptRefs.has(r));
  for (const c of kept) {
    // Bundled: part of what ships, whatever npm's dev/prod flag said about the install.
    c.properties = (c.properties ?? []).filter((p) => p.name !== 'cdx:npm:package:development');
  }
  return {
    ...bom,
    components: kept,
    dependencies: [
      { ref: main, dependsOn: [...new Set([...direct, ...[...keptRefs].filter((r) => !below.has(r))])].sort() },
      ...dependencies,
    ],
  };
}

/** The Node.js runtime inside the executable and the .deb, as a component. */
function nodeComponent(version) {
  return {
    type: 'platform',
    'bom-ref': `node@${version}`,
    name: 'node',
    version,
    description: 'the Node.js runtime inside the single executable (callctl-VERSION-linux-x64) and the .deb',
    licenses: [{ license: { id: 'MIT' } }],
    purl: `pkg:github/nodejs/node@v${version}`,
  };
}

/**
 * The release's SBOM (CycloneDX JSON), for dist/ as built and the Node that builds the executable.
 * cyclonedx-npm reads the install (`npm ls`); --ignore-npm-errors because npm ls reports vitest's
 * optional peer range for esbuild, which this project pins lower on purpose, as invalid.
 */
export function releaseSbom(nodeVersion = process.versions.node) {
  const PATH = `${join(root, 'node_modules/.bin')}:${process.env.PATH}`;
  const args = [
    '--ignore-npm-errors',
    '--flatten-components',
    '--output-reproducible',
    '--output-format',
    'JSON',
    '--output-file',
    '-',
  ];
  const full = JSON.parse(
    execFileSync('cyclonedx-npm', args, {
      env: { ...process.env, PATH },
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 256 << 20,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const bom = keepBundled(full, bundledIds(readFileSync(join(root, 'dist', NOTICES_FILE), 'utf8')));
  bom.components.push(nodeComponent(nodeVersion));
  bom.dependencies[0].dependsOn.push(`node@${nodeVersion}`);
  return bom;
}
