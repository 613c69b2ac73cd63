import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';

/*
 * A PostgreSQL store's rows written before a template status's person was its channel_id hold its
 * `callee` field (or nothing) in the column `callee`, and a push's number as it was spelled:
 * `store migrate` (schema 7) rewrites the column as events are compared now, so `hooks events
 * --callee` finds them as it finds new ones.
 */

const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a PostgreSQL store of schema 6 (callee as the body spelled it)', () => {
  it('store migrate rewrites the person of older rows; hooks events --callee finds them', async () => {
    const url = await freshDatabase('oldperson');
    const { default: pg } = await import('pg');
    const { MIGRATIONS } = await import('../../src/store/postgres/schema.js');
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const time = new Date(Date.now() - 60_000).toISOString();
    const record = (type: string, body: object) => {
      const text = JSON.stringify(body);
      const r = { v: 1, time, method: 'POST', path: '/', headers: {}, body: text, bytes: text.length, type };
      return { ...r, verdict: 'verified', by: 'key 1', duplicate: false, retry: 0, status: 200 };
    };
    try {
      await c.query(
        'CREATE TABLE callctl_schema (version integer PRIMARY KEY, description text NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())',
      );
      for (const step of MIGRATIONS.filter((s) => s.version <= 6)) {
        await c.query(step.sql);
        await c.query('INSERT INTO callctl_schema (version, description) VALUES ($1, $2)', [step.version, 'old']);
      }
      // As schema 6 wrote them: a template status's callee field, a push's number as spelled.
      const template = record('template.status', { workflow_id: 'WF-1', channel_id: '+15005550002', callee: 'U-77' });
      const push = record('workflow.api_push', { workflow_id: 'WF-1', callee: { callee_number: '+62 812-3450-0014' } });
      await c.query(
        `INSERT INTO callctl_events (received_at, type, key, retry, status, verdict, callee, record) VALUES
           ($1, 'template.status', 'k-1', 0, 200, 'verified', 'U-77', $2),
           ($1, 'workflow.api_push', 'k-2', 0, 200, 'verified', '+62 812-3450-0014', $3)`,
        [time, template, push],
      );
    } finally {
      await c.end();
    }

    const env = { CALLCTL_CONFIG_DIR: tempConfigDir(), CALLCTL_STORE: url };
    const migrated = await runCli(['store', 'migrate', '--json'], { env });
    expect(migrated.code, migrated.err).toBe(0);
    expect(JSON.parse(migrated.out)).toMatchObject({ from: 6, applied: [7, 8] });
    for (const [spelling, id] of [
      ['+1 500-555-0002', '1'],
      ['+15005550002', '1'],
      ['+6281234500014', '2'],
      ['+62 812 3450 0014', '2'],
    ]) {
      const found = await runCli(['hooks', 'events', '--callee', spelling!, '--json'], { env });
      expect(found.code, found.err).toBe(0);
      expect(
        lines(found.out).map((e) => e.id),
        spelling,
      ).toEqual([id]);
    }
    // The template status's callee field is no longer its person.
    expect(lines((await runCli(['hooks', 'events', '--callee', 'U-77', '--json'], { env })).out)).toEqual([]);
  });
});
