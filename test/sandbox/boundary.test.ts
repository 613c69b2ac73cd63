import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The sandbox is the client's peer, written from the spec alone: nothing under src/sandbox may
 * import from the client side. Allowed outside src/sandbox: node built-ins, npm packages, and the
 * few neutral modules listed here.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SANDBOX = join(ROOT, 'src', 'sandbox');
const ALLOWED_OUTSIDE = new Set(['src/io.ts', 'src/clock.ts']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : /\.(ts|mts|js|mjs)$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}

/**
 * Every module specifier of a file: static imports and re-exports (`import type` and
 * `export ... from` included), side-effect imports, dynamic `import()` and `require()`.
 */
export function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) found.push(m[1] as string);
  return found;
}

/** Where a specifier of `file` points, as a repo-relative .ts path, or undefined for a package or built-in. */
function target(file: string, spec: string): string | undefined {
  if (!spec.startsWith('.') && !spec.startsWith('/')) return undefined;
  const abs = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
  return relative(ROOT, abs).split(sep).join('/');
}

/** The imports of the files that leave src/sandbox for anything but the allowed modules. */
export function crossings(dir = SANDBOX): string[] {
  const bad: string[] = [];
  for (const file of files(dir)) {
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      const to = target(file, spec);
      if (to === undefined || to.startsWith('src/sandbox/') || ALLOWED_OUTSIDE.has(to)) continue;
      bad.push(`${relative(ROOT, file).split(sep).join('/')} imports ${spec}`);
    }
  }
  return bad;
}

describe('the sandbox imports nothing from the client side', () => {
  it('finds every kind of import (the scanner itself)', () => {
    const src = [
      "import type { A } from '../schemas/a.js';",
      "import { b,\n  c } from '../../limits.js';",
      "export { d } from '../hooks/sign.js';",
      "export type { E } from '../api/client.js';",
      "import '../output/x.js';",
      "const f = await import('../config/f.js');",
      "import { z } from 'zod';",
      "import { readFileSync } from 'node:fs';",
    ].join('\n');
    expect(specifiers(src).sort()).toEqual(
      [
        '../schemas/a.js',
        '../../limits.js',
        '../hooks/sign.js',
        '../api/client.js',
        '../output/x.js',
        '../config/f.js',
        'zod',
        'node:fs',
      ].sort(),
    );
  });

  it('no file under src/sandbox crosses the line', () => {
    expect(files(SANDBOX).length).toBeGreaterThan(10);
    expect(crossings()).toEqual([]);
  });
});
