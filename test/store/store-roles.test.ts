import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import {
  DEBIAN_PG_PROGRAMS,
  DEBIAN_PG_TLS_PROGRAMS,
  PSQL,
  ROLE_NAMES,
  useDebianPg,
  type Role,
  type Via,
} from '../helpers/debian-pg.js';
import { runBuilt, useHosts } from '../helpers/hosts.js';
import { itWith } from '../helpers/programs.js';
import { pushCsv, tempDir, writeIn } from '../reach/helpers.js';
import { KEY, postOnce, taskEnd, withReceiver } from './helpers.js';

// Issue 35: roles, refused credentials and privileges, and TLS, on PostgreSQL as operators run it
// (test/helpers/debian-pg.ts).
const server = useDebianPg();
const hosts = useHosts('roles');

/** A database the owner migrated with the built CLI's `store migrate`, straight to the server. */
async function migrated(prefix: string): Promise<string> {
  const db = await server.database(prefix);
  const r = await runBuilt(['store', 'migrate'], hosts.host('admin', { CALLCTL_STORE: server.url('owner', db) }));
  expect(r.code, r.err).toBe(0);
  return db;
}

/** A host's environment for a push to the sandbox, its store `store`. */
const pushing = (store: string) =>
  hosts.host('h', {
    CALLCTL_FLEX_URL: hosts.sandbox.flexUrl,
    CALLCTL_PUSH_TOKEN: hosts.sandbox.pushToken,
    CALLCTL_STORE: store,
  });
const push = (file: string, store: string) =>
  runBuilt(['push', '--csv', file, '--rate', '100', '--yes'], pushing(store));
const pushed = () => hosts.sandbox.state.received.pushes.map((p) => p.caller_id);

const MAY_PASS = /may pass by itself|run again later/;

describe('a receiver role: read and write rights on callctl tables, no CREATE on the schema', () => {
  itWith(
    DEBIAN_PG_PROGRAMS,
    'starts serve-hooks on a store the owner migrated and records the events it acknowledges',
    async () => {
      const db = await migrated('receiver');
      const statuses = await withReceiver(server.url('receiver', db), (r) =>
        Promise.all(Array.from({ length: 20 }, (_, i) => postOnce(r.port, taskEnd(`T-R-${i}`)))),
      );
      expect(statuses).toEqual(Array(20).fill(200));
      const n = await server.admin(
        db,
        async (c) => (await c.query('SELECT count(*)::int AS n FROM callctl_events')).rows[0].n,
      );
      expect(n).toBe(20);
    },
    60_000,
  );

  itWith(
    DEBIAN_PG_PROGRAMS,
    'runs push --csv on a store the owner migrated, calling each person once',
    async () => {
      const db = await migrated('receiver');
      const file = writeIn(tempDir(), 'people.csv', pushCsv(5));
      const r = await push(file, server.url('receiver', db));
      expect(r.code, r.err).toBe(0);
      expect(pushed().sort()).toEqual(
        pushCsv(5)
          .split('\n')
          .slice(1, -1)
          .map((l) => l.split(',')[0]),
      );
    },
    90_000,
  );
});

describe('store migrate prints the GRANTs a receiver role needs', () => {
  itWith(
    DEBIAN_PG_PROGRAMS,
    'a receiver role with no rights at all, given only the printed GRANTs (run by the owner), starts serve-hooks, records, and runs push --csv',
    async () => {
      const db = await migrated('grants');
      // Nothing from the harness's default privileges: only what store migrate prints.
      await server.admin(db, async (c) => {
        await c.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${ROLE_NAMES.receiver}`);
        await c.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ${ROLE_NAMES.receiver}`);
      });
      const before = pushed().length;
      const refused = await push(writeIn(tempDir(), 'people.csv', pushCsv(2)), server.url('receiver', db));
      expect(refused.code, refused.err).toBe(6);
      expect(pushed()).toHaveLength(before);
      const printed = await runBuilt(
        ['store', 'migrate', '--grant-to', ROLE_NAMES.receiver],
        hosts.host('admin', { CALLCTL_STORE: server.url('owner', db) }),
      );
      expect(printed.code, printed.err).toBe(0);
      const granted = await psql(server.url('owner', db), printed.out);
      expect(granted.code, granted.err).toBe(0);
      const statuses = await withReceiver(server.url('receiver', db), (r) =>
        Promise.all(Array.from({ length: 5 }, (_, i) => postOnce(r.port, taskEnd(`T-G-${i}`)))),
      );
      expect(statuses).toEqual(Array(5).fill(200));
      const r = await push(writeIn(tempDir(), 'people.csv', pushCsv(2)), server.url('receiver', db));
      expect(r.code, r.err).toBe(0);
      expect(pushed()).toHaveLength(before + 2);
    },
    90_000,
  );
});

describe('store credentials and privileges refused: their own exit codes, never "run again later"', () => {
  for (const via of ['direct', 'transaction'] as const) {
    itWith(
      DEBIAN_PG_PROGRAMS,
      `a wrong password (${via}) exits 4 from store status, push --csv and serve-hooks, saying so and naming the store (its role) without its password`,
      async () => {
        const db = await migrated('auth');
        const url = new URL(server.url('owner', db, via));
        url.password = 'wrong-pw-7f3a';
        const shown = `postgres://${ROLE_NAMES.owner}:***@127.0.0.1:${server.port(via)}/${db}`;
        const env = pushing(url.toString());
        const file = writeIn(tempDir(), 'people.csv', pushCsv(3));
        const runs = {
          'store status': await runBuilt(['store', 'status'], env),
          'push --csv': await runBuilt(['push', '--csv', file, '--yes'], env),
          'serve-hooks': await runBuilt(['serve-hooks', '--port', '0', '--key', KEY], env, 20_000),
        };
        for (const [what, r] of Object.entries(runs)) {
          expect.soft(r.code, `${what}: ${r.err}`).toBe(4);
          expect.soft(r.err, what).toContain(shown);
          expect.soft(r.err, what).toMatch(/password|authenticat|credential/i);
          expect.soft(r.err, what).not.toMatch(MAY_PASS);
          expect.soft(r.err + r.out, what).not.toContain('wrong-pw-7f3a');
        }
        expect(pushed()).toEqual([]);
      },
      90_000,
    );
  }

  itWith(
    DEBIAN_PG_PROGRAMS,
    'a role without the right to write callctl tables: push --csv exits 6 naming the privilege and the table, and sends nothing',
    async () => {
      const db = await migrated('privilege');
      await server.admin(db, (c) =>
        c.query(`REVOKE INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public FROM ${ROLE_NAMES.receiver}`),
      );
      const r = await push(writeIn(tempDir(), 'people.csv', pushCsv(3)), server.url('receiver', db));
      expect.soft(r.code, r.err).toBe(6);
      expect.soft(r.err).toMatch(/\b(INSERT|UPDATE|DELETE)\b/);
      expect.soft(r.err).toMatch(/callctl_\w+/);
      expect.soft(r.err).toContain(ROLE_NAMES.receiver);
      expect.soft(r.err).not.toMatch(MAY_PASS);
      expect(pushed()).toEqual([]);
    },
    60_000,
  );
});

const psql = (url: string, sql: string) =>
  promisify(execFile)(PSQL, [url, '-tAc', sql]).then(
    (r) => ({ code: 0, out: r.stdout.trim(), err: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
  );

/** `store status` with `?sslmode=require` on the store's URL. */
const statusRequiringTls = (role: Role, db: string, via: Via) =>
  runBuilt(['store', 'status'], hosts.host('tls', { CALLCTL_STORE: server.url(role, db, via, 'sslmode=require') }));

describe('sslmode means what it means to libpq', () => {
  itWith(
    DEBIAN_PG_TLS_PROGRAMS,
    'sslmode=require connects to a server with a self-signed certificate, encrypted, as psql does; no library warning reaches stderr',
    async () => {
      const db = await migrated('tls');
      const url = server.url('owner', db, 'direct', 'sslmode=require');
      expect(await psql(url, 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).toMatchObject({ out: 't' });
      const status = await statusRequiringTls('owner', db, 'direct');
      expect.soft(status.code, status.err).toBe(0);
      expect.soft(status.err).toBe('');
      // A receiver's sessions are encrypted.
      const sessions = await withReceiver(url, async (r) => {
        expect(await postOnce(r.port, taskEnd('T-TLS'))).toBe(200);
        return server.admin(db, async (c) => {
          const q = `SELECT s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid
                      WHERE a.datname = $1 AND a.usename = $2`;
          return (await c.query<{ ssl: boolean }>(q, [db, ROLE_NAMES.owner])).rows.map((row) => row.ssl);
        });
      });
      expect(sessions.length).toBeGreaterThan(0);
      expect(sessions.every(Boolean)).toBe(true);
    },
    60_000,
  );

  itWith(
    DEBIAN_PG_TLS_PROGRAMS,
    'sslmode=require to a server without TLS (PgBouncer offers none to clients here) is refused, as psql refuses it, in one line naming the store',
    async () => {
      const db = await migrated('notls');
      const psqlSaid = await psql(server.url('owner', db, 'transaction', 'sslmode=require'), 'SELECT 1');
      expect(psqlSaid.err).toMatch(/server does not support SSL, but SSL was required/);
      const status = await statusRequiringTls('owner', db, 'transaction');
      expect(status.code, status.err).not.toBe(0);
      expect(status.err.trim().split('\n'), status.err).toHaveLength(1);
      expect(status.err).toContain(`postgres://${ROLE_NAMES.owner}:***@127.0.0.1:${server.port('transaction')}/${db}`);
      expect(status.err).not.toMatch(/SECURITY WARNING|MaxListeners|DeprecationWarning/);
    },
    60_000,
  );
});
