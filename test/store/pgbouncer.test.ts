import { describe, expect } from 'vitest';
import { TEMPLATE_CSV_FLAGS } from '../helpers/template-send.js';
import { DEBIAN_PG_PROGRAMS, useDebianPg, type Via } from '../helpers/debian-pg.js';
import { runBuilt, useHosts, type BuiltRun } from '../helpers/hosts.js';
import { itWith } from '../helpers/programs.js';
import { pushCsv, tempDir, writeIn } from '../reach/helpers.js';
import { eventually, postOnce, taskEnd, withReceiver } from './helpers.js';

// Issue 35: callctl's store behind PgBouncer, as operators run it (test/helpers/debian-pg.ts).
const server = useDebianPg();
// Every request to the sandbox waits a little (a run of ROWS lasts 4 s or more), so that two runs
// started together meet however loaded the machine is.
const hosts = useHosts('pgbouncer', { faults: { delayMs: 200 } });
const POOLS = ['transaction', 'session'] as const;
const ROWS = 20;

/** The built CLI's `store migrate`, as the database's owner, straight to the server (what an operator runs first). */
async function migrated(prefix: string): Promise<string> {
  const db = await server.database(prefix);
  const r = await runBuilt(['store', 'migrate'], hosts.host('admin', { CALLCTL_STORE: server.url('owner', db) }));
  expect(r.code, r.err).toBe(0);
  return db;
}

/** Who the sandbox got more than once, with how many times. */
function twice(who: string[]): Record<string, number> {
  const n = new Map<string, number>();
  for (const w of who) n.set(w, (n.get(w) ?? 0) + 1);
  return Object.fromEntries([...n].filter(([, k]) => k > 1));
}

const said = (runs: BuiltRun[]) => runs.map((r, i) => `run ${i + 1}: exit ${r.code}\n${r.err}`).join('\n---\n');

/** The advisory locks held on `db` and by whom: none once every run has ended. */
const heldLocks = (db: string) =>
  server.admin(db, async (c) => {
    const r = await c.query(
      `SELECT l.pid, a.application_name AS app, a.state FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()`,
    );
    return r.rows;
  });

/** The leases recorded in `db` (src/store/postgres/lease.ts): none once every run has ended. */
const leases = (db: string) =>
  server.admin(db, async (c) => (await c.query('SELECT name, pid, host FROM callctl_leases')).rows);

interface Send {
  args: (file: string) => string[];
  csv: (rows: number) => string;
  env: () => Record<string, string>;
  /** Who the sandbox has reached so far. */
  reached: () => string[];
}

const SENDS: Record<'push' | 'template send', Send> = {
  push: {
    args: (file) => ['push', '--csv', file, '--rate', '50', '--yes', '--json'],
    csv: (rows) => pushCsv(rows),
    env: () => ({ CALLCTL_FLEX_URL: hosts.sandbox.flexUrl, CALLCTL_PUSH_TOKEN: hosts.sandbox.pushToken }),
    reached: () => hosts.sandbox.state.received.pushes.map((p) => p.caller_id),
  },
  'template send': {
    args: (file) => ['template', 'send', ...TEMPLATE_CSV_FLAGS, '--csv', file, '--rate', '50', '--yes', '--json'],
    csv: (rows) =>
      ['channel_id,user_id,name', ...Array.from({ length: rows }, (_, i) => `+62810000${1000 + i},u${i},Ani ${i}`)]
        .join('\n')
        .concat('\n'),
    env: () => ({
      CALLCTL_BASE_URL: hosts.sandbox.url,
      CALLCTL_SIGN_KEY: hosts.sandbox.signKey,
      CALLCTL_SIGN_SECRET: hosts.sandbox.signSecret,
    }),
    reached: () => hosts.sandbox.state.received.templates.map((t) => t.channel_id),
  },
};

describe('two hosts sending one file at once, their store behind PgBouncer', () => {
  for (const via of POOLS) {
    for (const kind of ['push', 'template send'] as const) {
      itWith(
        DEBIAN_PG_PROGRAMS,
        `${kind} --csv through ${via} pooling: each person is reached once, a third run finishes the file, and nothing is left locked (no backend holds a lock, a run straight to PostgreSQL is not refused)`,
        async () => {
          const send = SENDS[kind];
          const db = await migrated(via);
          const file = writeIn(tempDir(), 'people.csv', send.csv(ROWS));
          const env = (name: string, to: Via = via) =>
            hosts.host(name, { ...send.env(), CALLCTL_STORE: server.url('owner', db, to) });
          // Each exits 0, or refuses with 2 because the other is sending the file.
          const runs: BuiltRun[] = await Promise.all([
            runBuilt(send.args(file), env('a')),
            runBuilt(send.args(file), env('b')),
          ]);
          for (const r of runs) expect.soft([0, 2], said(runs)).toContain(r.code);
          expect.soft(twice(send.reached()), `reached twice by the two runs; ${said(runs)}`).toEqual({});
          // Once they have ended, no session of the server (PgBouncer's idle ones included) holds a lock.
          expect.soft(await heldLocks(db), `locks held after both runs ended; ${said(runs)}`).toEqual([]);
          // Nor is any lease left in the store: each run released its own.
          expect.soft(await leases(db), `leases left after both runs ended; ${said(runs)}`).toEqual([]);
          runs.push(await runBuilt(send.args(file), env('c')));
          expect.soft(runs[2]!.code, `the third run, through ${via} pooling; ${said(runs)}`).toBe(0);
          runs.push(await runBuilt(send.args(file), env('d', 'direct')));
          expect.soft(runs[3]!.code, `a fourth run, straight to PostgreSQL; ${said(runs)}`).toBe(0);
          expect(twice(send.reached()), said(runs)).toEqual({});
          expect(new Set(send.reached()).size, said(runs)).toBe(ROWS);
        },
        120_000,
      );
    }
  }
});

describe('serve-hooks with its store behind PgBouncer in transaction pooling', () => {
  itWith(
    DEBIAN_PG_PROGRAMS,
    'answers each of 500 signed notifications 200, none 503, and records each once',
    async () => {
      const db = await migrated('hooks');
      const statuses = new Map<number, number>();
      const stderr = await withReceiver(server.url('owner', db, 'transaction'), async (receiver) => {
        for (let start = 0; start < 500; start += 50) {
          const batch = Array.from({ length: 50 }, (_, i) => postOnce(receiver.port, taskEnd(`T-${start + i}`)));
          for (const s of await Promise.all(batch)) statuses.set(s, (statuses.get(s) ?? 0) + 1);
        }
        return receiver.stderr();
      });
      expect.soft(Object.fromEntries(statuses), stderr).toEqual({ 200: 500 });
      const recorded = await server.admin(db, async (c) => {
        const r = await c.query('SELECT count(DISTINCT task)::int AS tasks, count(*)::int AS n FROM callctl_events');
        return r.rows[0];
      });
      expect(recorded).toEqual({ tasks: 500, n: 500 });
    },
    120_000,
  );

  itWith(
    DEBIAN_PG_PROGRAMS,
    '/readyz is 503 and notifications are not acknowledged while the server is stopped; both come back once it is started again',
    async () => {
      const db = await migrated('ready');
      await withReceiver(server.url('owner', db, 'transaction'), async (receiver) => {
        const readyz = async () => (await fetch(`${receiver.url}/readyz`)).status;
        expect(await readyz()).toBe(200);
        await server.stopServer();
        try {
          await eventually(async () => (await readyz()) === 503, 30_000, '/readyz 503 with the server stopped');
          expect(await postOnce(receiver.port, taskEnd('T-down'))).toBe(503);
        } finally {
          await server.startServer();
        }
        await eventually(async () => (await readyz()) === 200, 30_000, '/readyz 200 with the server back');
        expect(await postOnce(receiver.port, taskEnd('T-back'))).toBe(200);
      });
      const tasks = await server.admin(db, async (c) => (await c.query('SELECT task FROM callctl_events')).rows);
      expect(tasks).toEqual([{ task: 'T-back' }]);
    },
    120_000,
  );
});
