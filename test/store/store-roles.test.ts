import { describe, expect } from 'vitest';
import { DEBIAN_PG_PROGRAMS, useDebianPg } from '../helpers/debian-pg.js';
import { runBuilt, useHosts } from '../helpers/hosts.js';
import { itWith } from '../helpers/programs.js';
import { pushCsv, tempDir, writeIn } from '../reach/helpers.js';

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

describe('a receiver role: read and write rights on callctl tables, no CREATE on the schema', () => {
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
