import { execSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, pgServer } from '../helpers/postgres.js';
import {
  eventually,
  exited,
  forwardTarget,
  postOnce,
  ROOT,
  serveHooks,
  taskEnd,
  tcpProxy,
  type Receiver,
} from './helpers.js';

beforeAll(() => {
  // The receivers run the built CLI (`npm test` builds first); build when it is missing.
  if (!existsSync(join(ROOT, 'dist/main.js'))) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
});

const clients: pg.Client[] = [];
async function db(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  clients.push(c);
  return c;
}
const running: Receiver[] = [];
afterAll(async () => {
  for (const r of running) r.child.kill('SIGKILL');
  await Promise.all(clients.map((c) => c.end()));
});

describe('two serve-hooks behind a round-robin proxy, one PostgreSQL store', () => {
  it('takes a retried event landing on either receiver as one event, forwarded once', async () => {
    const url = await freshDatabase('rr');
    const app = await forwardTarget();
    const a = await serveHooks(url, ['--forward-to', app.url]);
    const b = await serveHooks(url, ['--forward-to', app.url]);
    running.push(a, b);
    const lb = await tcpProxy([a, b].map((r) => ({ host: '127.0.0.1', port: r.port })));
    try {
      // One event and its five retries, one after the other: they alternate between a and b.
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push(await postOnce(lb.port, taskEnd('T-RETRY')));
      // Ten events, each sent three times at once.
      const burst = await Promise.all(
        Array.from({ length: 30 }, (_, i) => postOnce(lb.port, taskEnd(`T-BURST-${i % 10}`))),
      );
      expect(statuses).toEqual(Array(6).fill(200));
      expect(burst).toEqual(Array(30).fill(200));
      expect(lb.counts[0]).toBeGreaterThan(0);
      expect(lb.counts[1]).toBeGreaterThan(0);

      const c = await db(url);
      const rows = (
        await c.query("SELECT retry, record->'headers' AS h FROM callctl_events WHERE task = 'T-RETRY' ORDER BY id")
      ).rows;
      expect(rows.map((r) => r.retry)).toEqual([0, 1, 2, 3, 4, 5]);
      const firsts = (
        await c.query('SELECT task, count(*)::int AS n FROM callctl_events WHERE retry = 0 GROUP BY task')
      ).rows;
      expect(firsts).toHaveLength(11);
      expect(firsts.every((r) => r.n === 1)).toBe(true);
      await eventually(
        async () =>
          (await c.query("SELECT count(*)::int AS n FROM callctl_events WHERE fwd_state = 'done'")).rows[0].n === 11,
        10_000,
        'forwards done',
      );
      await new Promise((r) => setTimeout(r, 200)); // a second forward, if any, would have arrived
      expect(app.got.get('T-RETRY')).toBe(1);
      for (let i = 0; i < 10; i++) expect(app.got.get(`T-BURST-${i}`)).toBe(1);
      expect([...app.got.values()].reduce((s, n) => s + n, 0)).toBe(11);
      // Neither receiver printed the store's password.
      const { password } = pgServer();
      expect(a.stderr() + b.stderr()).not.toContain(password);
      expect(a.stderr()).toContain('store postgres://postgres:***@');
    } finally {
      await lb.close();
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      await Promise.all([exited(a.child), exited(b.child)]);
      await app.close();
    }
  });

  it('loses no acknowledged event when one receiver is killed under load, and the other forwards what it left', async () => {
    const url = await freshDatabase('kill');
    const app = await forwardTarget();
    const a = await serveHooks(url, ['--forward-to', app.url, '--forward-lease', '1']);
    const b = await serveHooks(url, ['--forward-to', app.url, '--forward-lease', '1']);
    running.push(a, b);
    const lb = await tcpProxy([a, b].map((r) => ({ host: '127.0.0.1', port: r.port })));
    const acked = new Set<string>();
    let stop = false;
    let n = 0;
    // Like the service: an event not answered 200 is sent again, until it is.
    const worker = async (w: number) => {
      while (!stop) {
        const id = `T-LOAD-${w}-${++n}`;
        for (let tries = 0; tries < 50; tries++) {
          if ((await postOnce(lb.port, taskEnd(id))) === 200) {
            acked.add(id);
            break;
          }
        }
      }
    };
    try {
      const workers = Array.from({ length: 8 }, (_, w) => worker(w));
      await eventually(() => acked.size >= 150, 15_000, '150 acknowledged events');
      a.child.kill('SIGKILL');
      await exited(a.child);
      const atKill = acked.size;
      await eventually(() => acked.size >= atKill + 100, 15_000, '100 more acknowledged events after the kill');
      stop = true;
      await Promise.all(workers);

      const c = await db(url);
      const stored = new Set(
        (await c.query('SELECT DISTINCT task FROM callctl_events WHERE status = 200')).rows.map(
          (r) => r.task as string,
        ),
      );
      expect([...acked].filter((id) => !stored.has(id))).toEqual([]);
      const dupFirsts = (
        await c.query('SELECT task FROM callctl_events WHERE retry = 0 GROUP BY task HAVING count(*) > 1')
      ).rows;
      expect(dupFirsts).toEqual([]);
      // Every event gets forwarded: what a took and did not finish, b takes over once its lease ends.
      await eventually(
        async () =>
          (
            await c.query(
              "SELECT count(*)::int AS n FROM callctl_events WHERE retry = 0 AND fwd_state IS DISTINCT FROM 'done'",
            )
          ).rows[0].n === 0,
        15_000,
        'every forward done',
      );
      expect([...acked].filter((id) => !app.got.has(id))).toEqual([]);
    } finally {
      stop = true;
      await lb.close();
      b.child.kill('SIGTERM');
      await exited(b.child);
      await app.close();
    }
  });

  it('answers 503 while the database is unreachable, says so once, keeps nothing it did not answer 200, and resumes', async () => {
    const url = await freshDatabase('down');
    const s = pgServer();
    const dbProxy = await tcpProxy([{ host: s.host, port: s.port }]);
    const viaProxy = url.replace(`:${s.port}/`, `:${dbProxy.port}/`);
    const r = await serveHooks(viaProxy);
    running.push(r);
    try {
      const before = await Promise.all([1, 2, 3].map((i) => postOnce(r.port, taskEnd(`T-UP-${i}`))));
      await dbProxy.cut();
      const during = [];
      for (let i = 1; i <= 5; i++) during.push(await postOnce(r.port, taskEnd(`T-DOWN-${i}`)));
      await dbProxy.restore();
      await eventually(async () => (await postOnce(r.port, taskEnd('T-BACK'))) === 200, 10_000, 'the store back');
      // The service sends the refused ones again: each is new (it was never kept).
      const again = [];
      for (let i = 1; i <= 5; i++) again.push(await postOnce(r.port, taskEnd(`T-DOWN-${i}`)));
      expect(before).toEqual([200, 200, 200]);
      expect(during).toEqual(Array(5).fill(503));
      expect(again).toEqual(Array(5).fill(200));

      const c = await db(url);
      const rows = (await c.query("SELECT task, retry FROM callctl_events WHERE task LIKE 'T-DOWN-%' ORDER BY task"))
        .rows;
      expect(rows).toEqual([1, 2, 3, 4, 5].map((i) => ({ task: `T-DOWN-${i}`, retry: 0 })));
      const ups = (await c.query("SELECT count(*)::int AS n FROM callctl_events WHERE task LIKE 'T-UP-%'")).rows[0].n;
      expect(ups).toBe(3);
      await eventually(() => /the store is back/.test(r.stderr()), 5_000, 'the back line');
      const lines = r.stderr().split('\n');
      expect(lines.filter((l) => /cannot write to the store/.test(l))).toHaveLength(1);
      expect(lines.filter((l) => /the store is back after [\d.]+ s; \d+ requests? answered 503/.test(l))).toHaveLength(
        1,
      );
      expect(r.stderr()).not.toContain(s.password);
    } finally {
      r.child.kill('SIGTERM');
      await exited(r.child);
      await dbProxy.close();
    }
  });
  it('names the new reason when the database comes back empty during an outage (its tables gone), and resumes once they are made again', async () => {
    const url = await freshDatabase('empty');
    const s = pgServer();
    const dbProxy = await tcpProxy([{ host: s.host, port: s.port }]);
    const r = await serveHooks(url.replace(`:${s.port}/`, `:${dbProxy.port}/`));
    running.push(r);
    try {
      expect(await postOnce(r.port, taskEnd('T-E-1'))).toBe(200);
      await dbProxy.cut();
      expect(await postOnce(r.port, taskEnd('T-E-2'))).toBe(503);
      // The database is restored from nothing: no callctl tables.
      const c = await db(url);
      await c.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
      await dbProxy.restore();
      const meanwhile: number[] = [];
      await eventually(
        async () => {
          meanwhile.push(await postOnce(r.port, taskEnd('T-E-3')));
          return /callctl's tables are not in the store/.test(r.stderr());
        },
        10_000,
        'the new reason',
      ).catch((e: Error) => {
        throw new Error(
          `${e.message}; statuses ${[...new Set(meanwhile)].join(',')}; stderr: ${JSON.stringify(r.stderr())}`,
        );
      });
      expect(new Set(meanwhile)).toEqual(new Set([503]));
      const lines = r
        .stderr()
        .split('\n')
        .filter((l) => /cannot write to the store/.test(l));
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(
        /^\S+Z error: cannot write to the store: callctl's tables are not in the store \(relation "callctl_\w+" does not exist \(42P01\)\): run `callctl store migrate`$/,
      );
      expect(r.stderr()).not.toMatch(/the store is back/);
      const migrated = spawnSync(process.execPath, ['bin/callctl.js', 'store', 'migrate'], {
        cwd: ROOT,
        env: { ...process.env, CALLCTL_STORE: url },
        encoding: 'utf8',
      });
      expect(migrated.status, migrated.stderr).toBe(0);
      await eventually(async () => (await postOnce(r.port, taskEnd('T-E-4'))) === 200, 10_000, 'the store back');
      await eventually(
        () => /the store is back after [\d.]+ s; \d+ requests? answered 503/.test(r.stderr()),
        5_000,
        'the back line',
      );
      // Each reason once, however many requests met it.
      expect(
        r
          .stderr()
          .split('\n')
          .filter((l) => /cannot write to the store/.test(l)),
      ).toHaveLength(2);
      expect(r.stderr()).not.toContain(s.password);
    } finally {
      r.child.kill('SIGTERM');
      await exited(r.child);
      await dbProxy.close();
    }
  });
});
