import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/postgres.js';

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
});
