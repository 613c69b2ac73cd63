import pg from 'pg';
import { beforeAll, describe, expect } from 'vitest';
import {
  DEBIAN_PG_PROGRAMS,
  DEBIAN_PG_TLS_PROGRAMS,
  ROLE_NAMES,
  useDebianPg,
  type Role,
  type Via,
} from '../helpers/debian-pg.js';
import { runBuilt } from '../helpers/hosts.js';
import { itWith } from '../helpers/programs.js';
import { tempDir } from '../helpers/temp.js';
import { ensureBuilt } from '../hooks/child.js';

// The harness of the tests against PostgreSQL as operators run it (test/helpers/debian-pg.ts).
const server = useDebianPg();
beforeAll(ensureBuilt);

/** The built CLI with the store `server.url(role, database, via)` in CALLCTL_STORE. */
const callctl = (args: string[], role: Role, database: string, via: Via) =>
  runBuilt(args, { CALLCTL_CONFIG_DIR: tempDir(), CALLCTL_STORE: server.url(role, database, via), NO_COLOR: '1' });

/** `sql` on `n` connections at once through `via`, each in its own transaction; the backends' pids. */
async function backends(via: Via, database: string, n: number): Promise<number[]> {
  const clients = Array.from(
    { length: n },
    () => new pg.Client({ connectionString: server.url('owner', database, via) }),
  );
  await Promise.all(clients.map((c) => c.connect()));
  try {
    return await Promise.all(
      clients.map(async (c) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid),
    );
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

describe("Debian's PostgreSQL 15 with scram passwords and roles, behind PgBouncer in transaction and session pooling", () => {
  itWith(
    DEBIAN_PG_PROGRAMS,
    'the server takes only scram-sha-256 passwords; the transaction pool shares two server connections among many clients, the session pool hands a closed one on',
    async () => {
      const db = await server.database('smoke');
      const settings = await server.admin(db, async (c) => ({
        version: (await c.query('SHOW server_version_num')).rows[0].server_version_num as string,
        encryption: (await c.query('SHOW password_encryption')).rows[0].password_encryption as string,
        methods: (await c.query('SELECT DISTINCT auth_method FROM pg_hba_file_rules')).rows.map((r) => r.auth_method),
      }));
      expect(settings).toEqual({
        version: expect.stringMatching(/^15\d{4}$/),
        encryption: 'scram-sha-256',
        methods: ['scram-sha-256'],
      });
      // Eight clients at once through the transaction pool: at most two server backends serve them.
      const pooled = await backends('transaction', db, 8);
      expect(new Set(pooled).size).toBeLessThanOrEqual(2);
      // Two clients one after the other through the session pool: the second gets the first one's backend.
      const [first] = await backends('session', db, 1);
      const [second] = await backends('session', db, 1);
      expect(second).toBe(first);
      // A wrong password is refused by each: 28P01 from the server; PgBouncer 1.18 says it with 08P01.
      const refusals: Record<string, unknown> = {};
      for (const via of ['direct', 'transaction', 'session'] as const) {
        const url = new URL(server.url('owner', db, via));
        url.password = 'wrong';
        const c = new pg.Client({ connectionString: url.toString() });
        refusals[via] = await c.connect().then(
          () => 'connected',
          (e: { code?: string; message?: string }) => `${e.code} ${e.message}`,
        );
      }
      expect(refusals).toEqual({
        direct: `28P01 password authentication failed for user "${ROLE_NAMES.owner}"`,
        transaction: '08P01 SASL authentication failed',
        session: '08P01 SASL authentication failed',
      });
    },
    60_000,
  );

  itWith(
    DEBIAN_PG_PROGRAMS,
    'callctl store migrate and store status work straight and through each pool; the receiver role reads the store and may not CREATE',
    async () => {
      const db = await server.database('smoke');
      const applied = await callctl(['store', 'migrate', '--json'], 'owner', db, 'direct');
      expect(applied.code, applied.err + server.logs()).toBe(0);
      expect(JSON.parse(applied.out)).toMatchObject({ from: 0, applied: expect.arrayContaining([1]) });
      const VIAS = ['direct', 'transaction', 'session'] as const;
      await Promise.all(
        VIAS.map(async (via) => {
          const again = await callctl(['store', 'migrate', '--json'], 'owner', db, via);
          expect(again.code, `${via}: ${again.err}`).toBe(0);
          expect(JSON.parse(again.out)).toMatchObject({ applied: [] });
          const status = await callctl(['store', 'status', '--json'], 'owner', db, via);
          expect(status.code, `${via}: ${status.err}`).toBe(0);
          expect(JSON.parse(status.out)).toMatchObject({ server: expect.stringMatching(/^15\./), events: 0 });
          // The store is named without its password.
          expect(status.out).toContain(`${ROLE_NAMES.owner}:***@127.0.0.1:${server.port(via)}/${db}`);
          const receiver = await callctl(['store', 'status', '--json'], 'receiver', db, via);
          expect(receiver.code, `${via}: ${receiver.err}`).toBe(0);
        }),
      );
      const rights = await server.admin(
        db,
        async (c) =>
          (
            await c.query(
              `SELECT has_schema_privilege($1, 'public', 'CREATE') AS "create",
                  has_table_privilege($1, 'callctl_events', 'INSERT') AS "insert"`,
              [ROLE_NAMES.receiver],
            )
          ).rows[0],
      );
      expect(rights).toEqual({ create: false, insert: true });
    },
    120_000,
  );

  itWith(DEBIAN_PG_TLS_PROGRAMS, 'the server speaks TLS with its self-signed certificate', async () => {
    const db = await server.database('smoke');
    const c = new pg.Client({ connectionString: server.url('owner', db), ssl: { rejectUnauthorized: false } });
    await c.connect();
    try {
      const r = await c.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
      expect(r.rows).toEqual([{ ssl: true }]);
    } finally {
      await c.end();
    }
  });
});
