import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordFacts } from '../../src/store/facts.js';
import type { HookRecord } from '../../src/store/events.js';
import { eventObject } from '../../src/hooks/event-view.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

// `hooks events` writes each event as it reads it, the store in pages of 1,000 and the output in
// writes of about 64 KB: over more events than a page and a write hold, every event is listed
// once, in order, as its one line.

const N = 2_500;

function record(i: number): HookRecord {
  const body = JSON.stringify({ TaskID: `T-${i % 7}`, TaskName: `task ${i} "quoted" é`, PlanName: `P-${i % 3}` });
  return {
    v: 1,
    time: new Date(Date.UTC(2026, 10, 20, 8) + i * 1000).toISOString(),
    method: 'POST',
    path: '/hooks',
    headers: { 'content-type': 'application/json' },
    body,
    bytes: body.length,
    type: 'task.end',
    verdict: i % 5 ? 'verified' : 'rejected',
    key: `task:${i}`,
    duplicate: false,
    retry: 0,
    status: i % 5 ? 200 : 401,
  };
}
const records = Array.from({ length: N }, (_, i) => record(i));

/** Each event's line as `hooks events --json` renders one (src/commands/hooks/events.ts). */
const lineOf = (id: string, r: HookRecord) => {
  const { seq: _seq, ...o } = eventObject(0, r, recordFacts(r), { json: true, showNumbers: false, skipVerify: false });
  void _seq;
  return `${JSON.stringify({ id, ...o })}\n`;
};

let log: string;
let pgUrl: string;
beforeAll(async () => {
  log = join(tempDir('callctl-events-'), 'events.ndjson');
  writeFileSync(log, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  pgUrl = await freshDatabase('events');
  expect(
    (await runCli(['store', 'migrate'], { env: { CALLCTL_STORE: pgUrl, CALLCTL_CONFIG_DIR: tempConfigDir() } })).code,
  ).toBe(0);
  const { default: pg } = await import('pg');
  const db = new pg.Client({ connectionString: pgUrl });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO callctl_events (received_at, type, key, seen_key, retry, status, verdict, task, record)
       SELECT (r->>'time')::timestamptz, r->>'type', r->>'key', r->>'key', 0, (r->>'status')::int, r->>'verdict',
              (r->>'body')::jsonb->>'TaskID', r
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(r, n) ORDER BY n`,
      [JSON.stringify(records)],
    );
  } finally {
    await db.end();
  }
});

describe('hooks events over more events than a page', () => {
  it.each([['NDJSON log'], ['PostgreSQL']])('%s: --json lists every event once, in order', async (kind) => {
    const env = { CALLCTL_CONFIG_DIR: tempConfigDir(), ...(kind === 'PostgreSQL' ? { CALLCTL_STORE: pgUrl } : {}) };
    const r = await runCli(['hooks', 'events', ...(kind === 'PostgreSQL' ? [] : ['--log', log]), '--json'], { env });
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    // The stores number events alike here: 1 to N in the order they were recorded.
    expect(r.out).toBe(records.map((rec, i) => lineOf(String(i + 1), rec)).join(''));
    // Several writes of stdout, none of them per event.
    expect(r.out.length).toBeGreaterThan(3 * 65_536);
  });

  it.each([['NDJSON log'], ['PostgreSQL']])('%s: piped lines and --limit as before', async (kind) => {
    const env = { CALLCTL_CONFIG_DIR: tempConfigDir(), ...(kind === 'PostgreSQL' ? { CALLCTL_STORE: pgUrl } : {}) };
    const source = kind === 'PostgreSQL' ? [] : ['--log', log];
    const tsv = await runCli(['hooks', 'events', ...source], { env });
    expect(tsv.code).toBe(0);
    const ids = tsv.out
      .trimEnd()
      .split('\n')
      .map((l) => Number(l.split('\t')[0]));
    expect(ids).toEqual(records.map((_, i) => i + 1));
    const latest = await runCli(['hooks', 'events', ...source, '--json', '--limit', '300', '--verdict', 'rejected'], {
      env,
    });
    const lines = latest.out.trimEnd().split('\n');
    expect(lines).toHaveLength(300);
    expect(JSON.parse(lines[0]!).id).toBe(String(N - 4 - 299 * 5));
    expect(lines.at(-1)).toBe(lineOf(String(N - 4), records[N - 5]!).trimEnd());
  });

  it.each([['NDJSON log'], ['PostgreSQL']])(
    '%s: --format ndjson is --json; --format csv the piped columns',
    async (kind) => {
      const env = { CALLCTL_CONFIG_DIR: tempConfigDir(), ...(kind === 'PostgreSQL' ? { CALLCTL_STORE: pgUrl } : {}) };
      const source = kind === 'PostgreSQL' ? [] : ['--log', log];
      const json = await runCli(['hooks', 'events', ...source, '--json'], { env });
      // On a terminal too: the format asked for, not the terminal's lines.
      const ndjson = await runCli(['hooks', 'events', ...source, '--format', 'ndjson'], { env, tty: true });
      expect(ndjson.code).toBe(0);
      expect(ndjson.out).toBe(json.out);
      const tsv = await runCli(['hooks', 'events', ...source], { env });
      const csv = await runCli(['hooks', 'events', ...source, '--format', 'csv'], { env, tty: true });
      expect(csv.code).toBe(0);
      const rows = csv.out.split('\r\n');
      expect(rows[0]).toBe('id,time,type,plan,task,callee,status,verdict,retry,httpStatus,forward');
      expect(rows.at(-1)).toBe('');
      // The same cells as the piped lines (none of these holds a comma or a quote; text that a
      // spreadsheet would read as a number or a date is quoted, as in every CSV callctl writes).
      expect(rows[1]).toBe('"1","2026-11-20T08:00:00.000Z",task.end,P-0,T-0,,end,rejected,0,401,');
      expect(rows.slice(1, -1).map((r) => r.replaceAll('"', '').replaceAll(',', '\t'))).toEqual(
        tsv.out.slice(0, -1).split('\n'),
      );
      const both = await runCli(['hooks', 'events', ...source, '--format', 'csv', '--json'], { env });
      expect(both.code).toBe(2);
      const bad = await runCli(['hooks', 'events', ...source, '--format', 'xml'], { env });
      expect(bad.code).toBe(2);
      expect(bad.err).toContain('--format must be one of csv, ndjson');
    },
  );
});
