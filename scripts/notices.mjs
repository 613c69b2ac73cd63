// The licence notices of every package whose code the build puts in dist/. MIT, ISC and BSD
// licences ask for their copyright and permission notice in every copy, and dist/ is a copy of
// these packages' code (esbuild's legalComments keeps only the comments found in the code).
// scripts/build.mjs adds `notices` to each esbuild build and calls writeNotices() once dist/ is
// complete: the notices then name exactly the packages in the files that ship.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import satisfies from 'spdx-satisfies';

/** The notices file, in dist/ (the npm package) and beside the executable (scripts/release.mjs). */
export const NOTICES_FILE = 'THIRD-PARTY-NOTICES.txt';

/**
 * Licences whose code callctl may redistribute in an MIT-licensed package, given their notices
 * (SPDX identifiers). A bundled package under anything else stops the build.
 */
export const ALLOWED_LICENCES = [
  'MIT',
  'MIT-0',
  'ISC',
  '0BSD',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'Apache-2.0',
  'BlueOak-1.0.0',
  'Unlicense',
  'CC0-1.0',
];

/** Whether the SPDX expression `licence` lets callctl redistribute the package (`A OR B` needs one of them). */
export function licenceAllowed(licence) {
  try {
    return typeof licence === 'string' && satisfies(licence, ALLOWED_LICENCES);
  } catch {
    return false; // not an SPDX expression ("SEE LICENSE IN ...", a typo): a person must read it
  }
}

/** The package folder of a module path (`node_modules/@a/b/lib/x.js` -> `node_modules/@a/b`), or undefined for callctl's own code. */
export function packageDirOf(path) {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(path);
  return m?.[1];
}

const collected = new Map(); // output file (absolute) -> the inputs that put code in it (metafile paths)

/** esbuild plugin: records which inputs went into which output file (esbuild's metafile). */
export const notices = {
  name: 'notices',
  setup(b) {
    b.initialOptions.metafile = true;
    b.onEnd((result) => {
      for (const [output, { inputs }] of Object.entries(result.metafile?.outputs ?? {}))
        // A module can be an input and put nothing in the output (an index that only re-exports).
        collected.set(
          resolve(output),
          Object.entries(inputs)
            .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
            .map(([input]) => input),
        );
    });
  },
};

/**
 * The licence texts of a package folder: its LICENSE, LICENCE, COPYING and NOTICE files, in name
 * order; a package without one (pg-types, pgpass) gets its README's licence section, where its
 * authors put the notice.
 */
function licenceTexts(dir) {
  const files = readdirSync(dir);
  const texts = files
    .filter((f) => /^(licen[cs]e|copying|notice)([.-].*)?$/i.test(f))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8').trim());
  const readme = files.find((f) => /^readme(\.md)?$/i.test(f));
  if (texts.length > 0 || !readme) return texts;
  const section = /^(#+)\s*licen[cs]e\b.*\n([\s\S]*?)(?=^#{1,6}\s|(?![\s\S]))/im.exec(
    readFileSync(join(dir, readme), 'utf8'),
  );
  return section && /copyright/i.test(section[2]) ? [`(from ${readme})\n${section[2].trim()}`] : [];
}

/**
 * The bundled packages of the output files under `dist` that exist now (a file the build
 * removed, such as help-pages.js, ships nothing), each once by name and version.
 */
export function bundledPackages(dist) {
  const root = resolve(dist);
  const dirs = new Set();
  for (const [output, inputs] of collected) {
    if (!output.startsWith(`${root}/`) || !existsSync(output)) continue;
    for (const input of inputs) {
      const dir = packageDirOf(input);
      if (dir) dirs.add(dir);
    }
  }
  const byId = new Map();
  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const id = `${manifest.name}@${manifest.version}`;
    if (!byId.has(id))
      byId.set(id, {
        name: manifest.name,
        version: manifest.version,
        licence: manifest.license,
        texts: licenceTexts(dir),
      });
  }
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/**
 * Writes dist/THIRD-PARTY-NOTICES.txt: one section per bundled package, its licence's SPDX
 * expression and the package's own licence files. Throws when a package's licence is not one
 * callctl may redistribute, or when it ships no licence text (its notice would be missing).
 */
export function writeNotices(dist) {
  const packages = bundledPackages(dist);
  const refused = packages.filter((p) => !licenceAllowed(p.licence));
  if (refused.length)
    throw new Error(
      `bundled packages under a licence callctl may not redistribute: ${refused.map((p) => `${p.name}@${p.version} (${p.licence})`).join(', ')}`,
    );
  const bare = packages.filter((p) => p.texts.length === 0);
  if (bare.length)
    throw new Error(`bundled packages without a licence file: ${bare.map((p) => `${p.name}@${p.version}`).join(', ')}`);
  const sections = packages.map((p) =>
    [
      `${'-'.repeat(78)}`,
      `${p.name}@${p.version}`,
      `License: ${p.licence}`,
      '',
      ...p.texts.flatMap((t) => [t, '']),
    ].join('\n'),
  );
  const head = [
    'callctl bundles the code of the packages below into dist/. Their licence notices follow,',
    'one section per package, headed by its name@version and its licence (an SPDX expression).',
    '',
  ].join('\n');
  writeFileSync(join(dist, NOTICES_FILE), `${head}\n${sections.join('\n')}`);
  return packages;
}
