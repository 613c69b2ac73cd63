import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { licenceAllowed, NOTICES_FILE, packageDirOf } from '../scripts/notices.mjs';
import { releaseSbom } from '../scripts/sbom.mjs';
import { tempDir } from './helpers/temp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
/** The unpacked tarball (its `package/` folder). */
let unpacked: string;

beforeAll(async () => {
  const work = tempDir('callctl-licences-');
  // --ignore-scripts: dist/ is already built by `npm test`; rebuilding here would race other tests.
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: root });
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
  await run('tar', ['xzf', tarball], { cwd: work });
  unpacked = join(work, 'package');
}, 60_000);

interface Bundled {
  name: string;
  version: string;
  license: string;
}

/**
 * The packages whose code is in the tarball's dist/, read from the code itself: esbuild heads
 * each bundled module with its path (`// node_modules/zod/v4/core/core.js`), so this does not
 * rely on the build's record that wrote the notices.
 */
function bundledPackages(dist: string): Bundled[] {
  const dirs = new Set<string>();
  for (const name of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
    if (!/\.c?js$/.test(name)) continue;
    for (const m of readFileSync(join(dist, name), 'utf8').matchAll(/^\/\/ (node_modules\/\S+)$/gm)) {
      const dir = packageDirOf(m[1]!);
      if (dir) dirs.add(dir);
    }
  }
  return [...dirs].map((dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Bundled);
}

/** The notices file's sections by their `name@version` heading. */
function sections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text.split(/^-{78}$/m).slice(1)) {
    const [heading = '', ...body] = part.trim().split('\n');
    out.set(heading, body.join('\n'));
  }
  return out;
}

describe('licences in the npm package', () => {
  it('carries callctl’s own MIT licence', () => {
    const licence = readFileSync(join(unpacked, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    expect(JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')).license).toBe('MIT');
  });

  it('has the notice of every package bundled into dist/, with its copyright and licence text', () => {
    const bundled = bundledPackages(join(unpacked, 'dist'));
    // The dependencies named in issue 27, and a transitive one, are among them.
    const names = bundled.map((p) => p.name);
    for (const name of [
      'commander',
      'chalk',
      'cli-table3',
      'conf',
      'csv-parse',
      'zod',
      '@inquirer/core',
      'undici',
      'ajv',
    ])
      expect(names).toContain(name);
    const notices = sections(readFileSync(join(unpacked, 'dist', NOTICES_FILE), 'utf8'));
    const missing = bundled.filter((p) => !notices.has(`${p.name}@${p.version}`)).map((p) => p.name);
    expect(missing).toEqual([]);
    for (const p of bundled) {
      const body = notices.get(`${p.name}@${p.version}`)!;
      expect(body, p.name).toContain(`License: ${p.license}`);
      expect(body, p.name).toMatch(/copyright/i);
      expect(body.length, p.name).toBeGreaterThan(300);
    }
    // Nothing listed that is not shipped: the notices are of this build.
    expect([...notices.keys()].sort()).toEqual(bundled.map((p) => `${p.name}@${p.version}`).sort());
  });

  it('bundles no package under a licence callctl may not redistribute under MIT', () => {
    const refused = bundledPackages(join(unpacked, 'dist')).filter((p) => !licenceAllowed(p.license));
    expect(refused).toEqual([]);
  });

  it('the licence check refuses copyleft and unreadable licences, and takes a permissive choice', () => {
    expect(licenceAllowed('MIT')).toBe(true);
    expect(licenceAllowed('(MIT OR Apache-2.0)')).toBe(true);
    expect(licenceAllowed('(GPL-3.0-only OR MIT)')).toBe(true);
    expect(licenceAllowed('BlueOak-1.0.0')).toBe(true);
    expect(licenceAllowed('GPL-3.0-only')).toBe(false);
    expect(licenceAllowed('(MIT AND LGPL-2.1-only)')).toBe(false);
    expect(licenceAllowed('SEE LICENSE IN LICENSE.md')).toBe(false);
    expect(licenceAllowed(undefined)).toBe(false);
  });
});

describe('the SBOM of the release', () => {
  it('lists exactly the bundled packages and the Node runtime, no dev tool, and is valid CycloneDX 1.6', async () => {
    const bom = releaseSbom();
    const bundled = bundledPackages(join(unpacked, 'dist'));
    const ids = bom.components.map((c) => `${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`);
    expect(ids.sort()).toEqual(
      [...bundled.map((p) => `${p.name}@${p.version}`), `node@${process.versions.node}`].sort(),
    );
    for (const tool of ['eslint', 'vitest', 'esbuild', 'postject', 'typescript'])
      expect(bom.components.some((c) => c.name === tool)).toBe(false);
    // Bundled code ships, whatever npm's flag said about the install.
    expect(bom.components.flatMap((c) => c.properties ?? []).map((p) => p.name)).not.toContain(
      'cdx:npm:package:development',
    );
    expect(bom.metadata.component.name).toBe('callctl');
    // Every reference resolves, and everything hangs from callctl.
    const refs = new Set([bom.metadata.component['bom-ref'], ...bom.components.map((c) => c['bom-ref'])]);
    expect(bom.dependencies.flatMap((d) => [d.ref, ...(d.dependsOn ?? [])]).filter((r) => !refs.has(r))).toEqual([]);
    const reached = new Set<string>();
    const walk = (ref: string) => {
      if (reached.has(ref)) return;
      reached.add(ref);
      for (const next of bom.dependencies.find((d) => d.ref === ref)?.dependsOn ?? []) walk(next);
    };
    walk(bom.metadata.component['bom-ref']);
    expect(reached.size).toBe(refs.size);
    const errors = await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(JSON.stringify(bom));
    expect(errors).toBeNull();
  }, 60_000);
});
