import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startPeer } from '../helpers/peer.js';
import { freshDatabase } from '../helpers/postgres.js';
import { post, startServeHooks, tempDir } from '../hooks/helpers.js';
import { KEY, postOnce, taskEnd } from './helpers.js';

/*
 * Records written before the HTTP status answered was named `status` carry it as `answer`: NDJSON
 * logs line by line, and PostgreSQL stores in the column `answer` and in each row's record. They
 * read as before, with `status` (`httpStatus` in the one-line-per-event outputs).
 */

const env = () => ({ CALLCTL_CONFIG_DIR: tempConfigDir() });
const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('an NDJSON log of the previous version (`answer` in every line)', () => {
  const log = join(tempDir(), 'old.ndjson');
  const peer = startPeer(() => ({ status: 200, body: {} }));
  afterAll(async () => (await peer).close());

  it('reads as `status` in hooks events, show, replay, and when serve-hooks starts on it', async () => {
    const first = await startServeHooks({ key: [KEY], log });
    expect((await post(first.url, taskEnd('T-OLD'))).status).toBe(200);
    expect((await post(first.url, JSON.stringify({ TaskID: 'T-BAD', Sign: '0'.repeat(32) }))).status).toBe(401);
    expect((await post(first.url, '', {}, 'GET')).status).toBe(405);
    await first.stop();
    // As the previous version wrote them: the same lines, the status under `answer`.
    const old = readFileSync(log, 'utf8').replaceAll('"status":', '"answer":');
    writeFileSync(log, old);
    expect(lines(old).map((r) => [r.answer, 'status' in r])).toEqual([
      [200, false],
      [401, false],
      [405, false],
    ]);

    const events = await runCli(['hooks', 'events', '--log', log, '--json'], { env: env() });
    expect(events.code, events.err).toBe(0);
    const shown = lines(events.out);
    expect(shown.map((e) => [e.id, e.httpStatus, e.verdict])).toEqual([
      ['1', 200, 'verified'],
      ['2', 401, 'rejected'],
      ['3', 405, undefined],
    ]);
    expect(shown.some((e) => 'answer' in e)).toBe(false);
    const refused = await runCli(['hooks', 'events', '--log', log, '--verdict', 'refused', '--json'], { env: env() });
    expect(lines(refused.out).map((e) => e.id)).toEqual(['3']);
    const csv = await runCli(['hooks', 'events', '--log', log, '--format', 'csv'], { env: env() });
    const rows = csv.out.trim().split('\r\n');
    expect(rows[0]).toBe('id,time,type,plan,task,callee,status,verdict,retry,httpStatus,forward');
    expect(rows.slice(1).map((r) => r.split(',').at(-2))).toEqual(['200', '401', '405']);

    const show = await runCli(['hooks', 'show', '1', '--log', log, '--json'], { env: env() });
    expect(show.code, show.err).toBe(0);
    const one = JSON.parse(show.out) as Record<string, unknown>;
    expect(one).toMatchObject({ status: 200, verdict: 'verified', ids: { task: 'T-OLD' } });
    expect('answer' in one).toBe(false);
    const text = await runCli(['hooks', 'show', '2', '--log', log], { env: env() });
    expect(text.out).toMatch(/^http status\t401$/m);

    // Replay sends what was accepted (status 200), and only that.
    const target = await peer;
    const replay = await runCli(['hooks', 'replay', '--log', log, '--to', target.url, '--json'], { env: env() });
    expect(replay.code, replay.err).toBe(0);
    expect(target.requests.map((r) => JSON.parse(r.body).TaskID)).toEqual(['T-OLD']);

    // A restart on the old log knows its events: the service's retry is retry 1, not new.
    const again = await startServeHooks({ key: [KEY], log });
    expect((await post(again.url, taskEnd('T-OLD'))).status).toBe(200);
    await again.stop();
    const last = lines(readFileSync(log, 'utf8')).at(-1)!;
    expect(last).toMatchObject({ status: 200, retry: 1, duplicate: true });
    const mixed = await runCli(['hooks', 'events', '--log', log, '--json', '--task', 'T-OLD'], { env: env() });
    expect(lines(mixed.out).map((e) => [e.id, e.httpStatus, e.retry])).toEqual([
      ['1', 200, 0],
      ['4', 200, 1],
    ]);
  });
});

describe('a PostgreSQL store of the previous version (schema 5, column `answer`)', () => {
  it('is migrated (the column renamed) when serve-hooks starts, and its rows read as `status`', async () => {
    const url = await freshDatabase('oldstatus');
    const { default: pg } = await import('pg');
    const { MIGRATIONS } = await import('../../src/store/postgres/schema.js');
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const columns = async () =>
      (
        await c.query<{ name: string }>(
          "SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'callctl_events'",
        )
      ).rows.map((r) => r.name);
    try {
      await c.query(
        'CREATE TABLE callctl_schema (version integer PRIMARY KEY, description text NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())',
      );
      for (const step of MIGRATIONS.filter((s) => s.version <= 5)) {
        await c.query(step.sql);
        await c.query('INSERT INTO callctl_schema (version, description) VALUES ($1, $2)', [step.version, 'old']);
      }
      expect(await columns()).toContain('answer');
      // Two rows as the previous version wrote them: an accepted event and a refused request.
      const body = taskEnd('T-PG');
      const time = new Date(Date.now() - 60_000).toISOString();
      const accepted = {
        v: 1,
        time,
        method: 'POST',
        path: '/',
        headers: {},
        body,
        bytes: body.length,
        type: 'task.end',
      };
      const refused = { v: 1, time, method: 'POST', path: '/', headers: {}, bytes: 0, type: null, error: 'x' };
      await c.query(
        `INSERT INTO callctl_events (received_at, type, key, retry, answer, verdict, task, record) VALUES
           ($1, 'task.end', 'k-pg', 0, 200, 'verified', 'T-PG', $2), ($1, NULL, NULL, 0, 415, NULL, NULL, $3)`,
        [
          time,
          { ...accepted, verdict: 'verified', by: 'key 1', key: 'k-pg', duplicate: false, retry: 0, answer: 200 },
          { ...refused, duplicate: false, retry: 0, answer: 415 },
        ],
      );

      const before = await runCli(['hooks', 'events', '--json'], { env: { ...env(), CALLCTL_STORE: url } });
      expect(before.err).toMatch(/schema is version 5, older than this callctl's 8: run `callctl store migrate`/);

      const { testIO } = await import('../helpers/io.js');
      const hooks = await startServeHooks({ key: [KEY] }, testIO({ env: { CALLCTL_STORE: url } }));
      expect(await postOnce(Number(new URL(hooks.url).port), taskEnd('T-NEW'))).toBe(200);
      await hooks.stop();
      expect(await columns()).toContain('status');
      expect(await columns()).not.toContain('answer');
    } finally {
      await c.end();
    }

    const e = { ...env(), CALLCTL_STORE: url };
    const events = await runCli(['hooks', 'events', '--json'], { env: e });
    expect(events.code, events.err).toBe(0);
    expect(lines(events.out).map((r) => [r.id, r.task ?? null, r.httpStatus, 'answer' in r])).toEqual([
      ['1', 'T-PG', 200, false],
      ['2', null, 415, false],
      ['3', 'T-NEW', 200, false],
    ]);
    const refusedOnly = await runCli(['hooks', 'events', '--verdict', 'refused', '--json'], { env: e });
    expect(lines(refusedOnly.out).map((r) => r.id)).toEqual(['2']);
    const show = await runCli(['hooks', 'show', '1', '--json'], { env: e });
    expect(show.code, show.err).toBe(0);
    const one = JSON.parse(show.out) as Record<string, unknown>;
    expect(one).toMatchObject({ status: 200, verdict: 'verified', ids: { task: 'T-PG' } });
    expect('answer' in one).toBe(false);
  });
});
