import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/callctl.js', import.meta.url));
const tracer = fileURLToPath(new URL('./helpers/trace-imports.mjs', import.meta.url));

/** The modules a run of the built CLI loads (needs `npm run build`, which `npm test` does first). */
function modulesLoaded(args: string[]): string[] {
  const file = join(mkdtempSync(join(tmpdir(), 'callctl-trace-')), 'modules.txt');
  execFileSync(process.execPath, ['--import', tracer, bin, ...args], {
    env: { ...process.env, TRACE_IMPORTS_FILE: file },
    stdio: 'ignore',
  });
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

const HEAVY = ['zod', 'undici', 'conf', 'chalk', 'cli-table3', 'csv-parse', '@inquirer'];

describe('start-up', () => {
  it.each([['--help'], ['--version'], ['workflow', '--help'], ['help', 'robots']])(
    '`callctl %s` loads nothing but the program tree',
    (...args) => {
      const loaded = modulesLoaded(args);
      expect(loaded.some((u) => u.endsWith('/dist/program.js'))).toBe(true);
      const heavy = loaded.filter((u) => HEAVY.some((name) => u.includes(`/node_modules/${name}/`)));
      expect(heavy).toEqual([]);
      // No command module: only the index files that declare commands.
      const verbs = loaded.filter((u) => /\/dist\/commands\/[^/]+\/(?!index\.js)[^/]+\.js$/.test(u));
      expect(verbs).toEqual([]);
    },
  );
});
