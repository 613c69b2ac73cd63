import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { freshDatabase, pgServer } from '../helpers/postgres.js';
import { startServeHooks, tempDir } from '../hooks/helpers.js';
import { eventually, KEY, postOnce, ROOT, taskEnd } from './helpers.js';

const CALLEE = '+6281234567001';
const apiPush = (call: string) =>
  JSON.stringify({
    workflow_id: 'wf-1',
    node_id: 'n-1',
    call: { call_id: call, task_id: 'T-API', intention: 'A' },
    callee: { callee_number: CALLEE },
  });

let pgUrl: string;
let log: string;
const env = () => ({ CALLCTL_CONFIG_DIR: tempConfigDir() });

beforeAll(async () => {
  pgUrl = await freshDatabase('cmd');
  log = join(tempDir(), 'events.ndjson');
  const { testIO } = await import('../helpers/io.js');
  for (const target of ['pg', 'log'] as const) {
    const io = testIO({ env: target === 'pg' ? { CALLCTL_STORE: pgUrl } : {} });
    const hooks = await startServeHooks({ key: [KEY], ...(target === 'log' ? { log } : {}) }, io);
    const port = Number(new URL(hooks.url).port);
    expect(await postOnce(port, taskEnd('T-ONE'))).toBe(200);
    expect(await postOnce(port, taskEnd('T-ONE'))).toBe(200); // its retry
    expect(await postOnce(port, apiPush('c-1'))).toBe(200);
    expect(await postOnce(port, JSON.stringify({ TaskID: 'T-BAD', Sign: '0'.repeat(32) }))).toBe(401);
    await hooks.stop();
  }
});

/** The store flags and environment of each kind (known once beforeAll has run). */
function source(name: string): { storeEnv: Record<string, string>; args: string[] } {
  return name === 'PostgreSQL'
    ? { storeEnv: { CALLCTL_STORE: pgUrl }, args: [] }
    : { storeEnv: {}, args: ['--log', log] };
}

describe('callctl store migrate / status', () => {
  it('creates the tables once, reports the version, and never prints the password', async () => {
    const url = await freshDatabase('mig');
    const e = { ...env(), CALLCTL_STORE: url };
    const before = await runCli(['store', 'status', '--json'], { env: e });
    expect(before.code).toBe(1);
    expect(JSON.parse(before.out)).toMatchObject({ version: 0, latest: 8, events: 0 });
    expect(JSON.parse(before.out).server).toMatch(/^1\d\.\d+/); // the server's version (was missing: 'PostgreSQL undefined')
    const first = await runCli(['store', 'migrate', '--json'], { env: e });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({ from: 0, to: 8, applied: [1, 2, 3, 4, 5, 6, 7, 8] });
    const again = await runCli(['store', 'migrate', '--grant-to', 'Hooks Role'], { env: e });
    expect(again.code).toBe(0);
    expect(again.err).toMatch(/schema version 8, up to date/);
    // The GRANTs a role of its own needs, on stdout (to pipe to psql), its name quoted as needed.
    expect(again.out.split('\n').filter((l) => l.startsWith('GRANT '))).toEqual([
      'GRANT SELECT, INSERT, UPDATE, DELETE ON callctl_events, callctl_event_keys, callctl_plan_pairs, callctl_reach_ledger, callctl_journals, callctl_leases TO "Hooks Role";',
      'GRANT SELECT ON callctl_schema TO "Hooks Role";',
      'GRANT USAGE ON SEQUENCE callctl_events_id_seq, callctl_journals_seq_seq, callctl_lease_fence TO "Hooks Role";',
    ]);
    expect(JSON.parse(first.out).grants).toHaveLength(3);
    const status = await runCli(['store', 'status'], { env: e });
    expect(status.code).toBe(0);
    expect(status.out).toMatch(/schema\tversion 8: up to date/);
    expect(status.out).toMatch(/^server\tPostgreSQL 1\d\.\d+/m);
    const { password } = pgServer();
    for (const r of [before, first, again, status]) expect(r.out + r.err).not.toContain(password);
  });

  it('upgrades a database left at an older version, step by step, keeping its events', async () => {
    const url = await freshDatabase('old');
    const { default: pg } = await import('pg');
    const { MIGRATIONS } = await import('../../src/store/postgres/schema.js');
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    // What callctl's first schema version made, with one event in it.
    await c.query(
      'CREATE TABLE callctl_schema (version integer PRIMARY KEY, description text NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())',
    );
    await c.query(MIGRATIONS[0]!.sql);
    await c.query("INSERT INTO callctl_schema (version, description) VALUES (1, 'v1')");
    await c.query(
      `INSERT INTO callctl_events (received_at, type, retry, answer, record) VALUES (now(), 'task.end', 0, 200, '{"v":1}')`,
    );
    await c.end();
    const e = { ...env(), CALLCTL_STORE: url };
    const old = await runCli(['store', 'status', '--json'], { env: e });
    expect(old.code).toBe(1);
    expect(JSON.parse(old.out)).toMatchObject({ version: 1, latest: 8, events: 1 });
    const up = await runCli(['store', 'migrate', '--json'], { env: e });
    expect(JSON.parse(up.out)).toMatchObject({ from: 1, to: 8, applied: [2, 3, 4, 5, 6, 7, 8] });
    const now = await runCli(['store', 'status', '--json'], { env: e });
    expect(now.code).toBe(0);
    expect(JSON.parse(now.out)).toMatchObject({ version: 8, events: 1 });
  });

  it('reads the URL from a file, and says which setting is missing or wrong', async () => {
    const file = join(tempDir(), 'store-url');
    writeFileSync(file, `${pgUrl}\n`);
    const ok = await runCli(['store', 'status', '--store-file', file], { env: env() });
    expect(ok.code).toBe(0);
    const none = await runCli(['store', 'status'], { env: env() });
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/no store/);
    const down = await runCli(['store', 'status'], {
      env: { ...env(), CALLCTL_STORE: 'postgres://u:pw-secret@127.0.0.1:1/x' },
    });
    expect(down.code).toBe(5);
    expect(down.err).toMatch(
      /^error: cannot reach the store postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x: connect ECONNREFUSED 127\.0\.0\.1:1/,
    );
    expect(down.err.split('\n').filter(Boolean)).toHaveLength(1);
    expect(down.err).not.toContain('pw-secret');
    // A CA file the URL names that is not there: local trouble naming the file, not "run again later".
    const ca = join(tempDir(), 'no-such-ca.pem');
    const noCa = await runCli(['store', 'status'], {
      env: { ...env(), CALLCTL_STORE: `postgres://u:pw-secret@127.0.0.1:1/x?sslmode=verify-full&sslrootcert=${ca}` },
    });
    expect(noCa.code, noCa.err).toBe(6);
    expect(noCa.err).toBe(
      `error: cannot read ${ca}, named by the URL of the store postgres://u:***@127.0.0.1:1/x?sslmode=verify-full&sslrootcert=${ca} (ENOENT): fix the path in the URL or the file's rights\n`,
    );
  });

  it('refuses --store with a password in the URL (other users see command lines in ps): exit 2 naming CALLCTL_STORE; a URL without one is taken', async () => {
    const secret = 'pw-in-ps';
    const withPassword = pgUrl.replace(/:\/\/([^:@/]+):[^@]*@/, `://$1:${secret}@`);
    for (const args of [
      ['hooks', 'events'],
      ['hooks', 'show', '1'],
      ['hooks', 'replay', '--to', 'http://127.0.0.1:1/'],
      ['store', 'status'],
      ['store', 'migrate'],
      ['serve-hooks', '--port', '0', '--key', KEY],
    ]) {
      const r = await runCli([...args, '--store', withPassword], { env: env() });
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(2);
      expect(r.err).toMatch(
        /^error: --store: the URL holds a password, which other users would see in ps: give it in CALLCTL_STORE or a file \(--store-file, CALLCTL_STORE_FILE\)$/m,
      );
      expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
      expect(r.out + r.err).not.toContain(secret);
    }
    // Without a password (PGPASSWORD gives it) the URL is no secret, and the flag is taken.
    const password = decodeURIComponent(new URL(pgUrl).password);
    const bare = new URL(pgUrl);
    bare.password = '';
    // A child process: the driver reads PGPASSWORD from the real environment.
    const ok = spawnSync(
      process.execPath,
      ['bin/callctl.js', 'store', 'status', '--json', '--store', bare.toString()],
      {
        cwd: ROOT,
        env: { ...process.env, ...env(), PGPASSWORD: password, CALLCTL_STORE: '' },
        encoding: 'utf8',
      },
    );
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ version: expect.any(Number) });
  });

  it('refuses a store URL of another kind instead of reading it as a file (a mistyped scheme listed nothing, exit 0)', async () => {
    for (const value of [
      'mysql://u:pw-secret@db.internal/x',
      'postgress://u:pw-secret@db.internal/x',
      'postgres:/db.internal/x',
    ]) {
      const e = { ...env(), CALLCTL_STORE: value };
      for (const args of [
        ['hooks', 'events'],
        ['hooks', 'show', '1'],
        ['store', 'status'],
        ['serve-hooks', '--port', '0', '--key', KEY],
      ]) {
        const r = await runCli(args, { env: e });
        expect(r.code, `${args.join(' ')} with ${value}: ${r.err}`).toBe(2);
        expect(r.err).toMatch(/^error: CALLCTL_STORE: not a store: give a postgres:\/\/ URL or an NDJSON file's path/);
        expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
        expect(r.out + r.err).not.toContain('pw-secret');
      }
    }
  });
});

describe("hooks events / show never pass a request's control characters to the terminal", () => {
  it('shows an ESC or BEL inside an id (from anyone who can POST, even with a wrong Sign) as text', async () => {
    const path = join(tempDir(), 'evil.ndjson');
    const { testIO } = await import('../helpers/io.js');
    const hooks = await startServeHooks({ key: [KEY], log: path }, testIO());
    const evil = JSON.stringify({
      TaskID: 'T-\u001b[31mRED\u001b]0;pwned\u0007',
      Sign: '0'.repeat(32),
      PlanName: 'P\u009b2J',
    });
    expect(await postOnce(Number(new URL(hooks.url).port), evil)).toBe(401);
    await hooks.stop();
    const listed = await runCli(['hooks', 'events', '--log', path], { env: env() });
    const shown = await runCli(['hooks', 'show', '1', '--log', path], { env: env() });
    for (const r of [listed, shown]) {
      expect(r.code, r.err).toBe(0);
      expect(r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(r.out).toContain('T-\\x1b[31mRED\\x1b]0;pwned\\x07');
    }
  });
});

describe('hooks events / show on an NDJSON log that cannot be read', () => {
  it('is local trouble (exit 6, fix the path), not "run again later" (exit 5)', async () => {
    const folder = tempDir();
    for (const args of [
      ['hooks', 'events', '--log', folder],
      ['hooks', 'show', '1', '--log', folder],
    ]) {
      const r = await runCli(args, { env: env() });
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(6);
      expect(r.err).toMatch(/^error: cannot read the event log .*EISDIR/);
      expect(r.err).not.toMatch(/run again later/);
      expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
    }
  });
});

describe.each(['PostgreSQL', 'NDJSON'])('hooks events / show against the %s store', (name) => {
  it('lists every request with its retry and verdict, as TSV when piped and NDJSON with --json', async () => {
    const { storeEnv, args } = source(name);
    const tsv = await runCli(['hooks', 'events', ...args], { env: { ...env(), ...storeEnv } });
    expect(tsv.code, tsv.err).toBe(0);
    const rows = tsv.out
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => [r[2], r[4], r[7], r[8], r[9]])).toEqual([
      ['task.end', 'T-ONE', 'verified', '0', '200'],
      ['task.end', 'T-ONE', 'verified', '1', '200'],
      ['workflow.api_push', 'T-API', 'unsigned', '0', '200'],
      ['task.end', 'T-BAD', 'rejected', '0', '401'],
    ]);
    expect(rows[2]![5]).toBe('+62*******7001');
    const json = await runCli(['hooks', 'events', ...args, '--json', '--callee', CALLEE, '--show-numbers'], {
      env: { ...env(), ...storeEnv },
    });
    const objs = json.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(objs).toHaveLength(1);
    expect(objs[0]).toMatchObject({ type: 'workflow.api_push', callee: CALLEE, retry: 0, httpStatus: 200 });
  });

  it('filters by type, verdict, retries, task and limit', async () => {
    const { storeEnv, args } = source(name);
    const run = async (...f: string[]) => {
      const r = await runCli(['hooks', 'events', ...args, '--json', ...f], { env: { ...env(), ...storeEnv } });
      expect(r.code, r.err).toBe(0);
      return r.out
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { task?: string; retry: number; verdict: string; id: string });
    };
    expect((await run('--type', 'workflow.api_push')).map((e) => e.task)).toEqual(['T-API']);
    expect((await run('--verdict', 'rejected')).map((e) => e.task)).toEqual(['T-BAD']);
    expect((await run('--retries')).map((e) => e.retry)).toEqual([1]);
    expect((await run('--no-retries')).length).toBe(3);
    expect((await run('--task', 'T-ONE')).length).toBe(2);
    expect((await run('--limit', '2')).map((e) => e.task)).toEqual(['T-API', 'T-BAD']);
    expect(await run('--since', '2000-01-01T00:00:00Z', '--until', '2000-01-02T00:00:00Z')).toEqual([]);
    const bad = await runCli(['hooks', 'events', ...args, '--type', 'nope'], { env: { ...env(), ...storeEnv } });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--type: unknown type nope/);
  });

  it('shows one event whole: headers with secrets redacted, body with the number masked, verdict, key, arrivals', async () => {
    const { storeEnv, args } = source(name);
    const list = await runCli(['hooks', 'events', ...args, '--json', '--task', 'T-ONE', '--no-retries'], {
      env: { ...env(), ...storeEnv },
    });
    const id = JSON.parse(list.out.trim()).id as string;
    const shown = await runCli(['hooks', 'show', id, ...args], { env: { ...env(), ...storeEnv } });
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toMatch(/^verdict\tverified$/m);
    expect(shown.out).toMatch(/^key matched\tkey 1$/m);
    expect(shown.out).toMatch(/^arrivals\t2$/m);
    expect(shown.out).toMatch(/^header\tcontent-type\tapplication\/json$/m);
    expect(shown.out).toContain('"TaskID": "T-ONE"');
    const api = await runCli(['hooks', 'events', ...args, '--json', '--type', 'workflow.api_push'], {
      env: { ...env(), ...storeEnv },
    });
    const apiShown = await runCli(['hooks', 'show', JSON.parse(api.out.trim()).id, ...args, '--json'], {
      env: { ...env(), ...storeEnv },
    });
    expect(apiShown.out).not.toContain(CALLEE);
    expect(JSON.parse(apiShown.out).body).toContain('+62*******7001');
    const missing = await runCli(['hooks', 'show', '999999', ...args], { env: { ...env(), ...storeEnv } });
    // Not found, as the service's own 404 is: exit 1, not 3 (invalid input data).
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no event 999999/);
  });

  it('follows new events as they arrive (--follow) until interrupted, then exits 130 silently as every command does on Ctrl-C', async () => {
    const { storeEnv, args } = source(name);
    const childEnv = { ...process.env, ...env(), ...storeEnv };
    const follower = spawn(
      process.execPath,
      ['bin/callctl.js', 'hooks', 'events', ...args, '--follow', '--json', '--type', 'chatbot.transfer'],
      { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    follower.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    follower.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    try {
      await new Promise((r) => setTimeout(r, 800)); // listening or watching
      const { testIO } = await import('../helpers/io.js');
      const hooks = await startServeHooks(
        { key: [KEY], ...(args.length ? { log: args[1] } : {}) },
        testIO({ env: storeEnv }),
      );
      const port = Number(new URL(hooks.url).port);
      expect(
        await postOnce(port, JSON.stringify({ call_id: 'c-follow', event: 'session.transfer', conclusion: {} })),
      ).toBe(200);
      await hooks.stop();
      await eventually(() => out.includes('c-follow'), 10_000, `the followed event (stderr: ${err})`);
      const line = JSON.parse(out.trim().split('\n').at(-1)!);
      expect(line).toMatchObject({ type: 'chatbot.transfer', call: 'c-follow', retry: 0 });
    } finally {
      if (follower.exitCode === null) {
        follower.kill('SIGINT');
        await new Promise((r) => follower.once('exit', r));
      }
    }
    expect(follower.exitCode).toBe(130);
    expect(err).toBe('');
  });
});

describe('hooks replay from the PostgreSQL store', () => {
  it('sends each accepted first arrival again, in order', async () => {
    const got: string[] = [];
    const http = await import('node:http');
    const server = http.createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        got.push(b);
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const to = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      const r = await runCli(['hooks', 'replay', '--to', to, '--json', '--events', 'task.end,workflow.api_push'], {
        env: { ...env(), CALLCTL_STORE: pgUrl },
      });
      expect(r.code, r.err).toBe(0);
      expect(
        got.map((b) => (JSON.parse(b) as { TaskID?: string; call?: { call_id: string } }).TaskID ?? 'api'),
      ).toEqual(['T-ONE', 'api']);
    } finally {
      server.close();
    }
  });
});
