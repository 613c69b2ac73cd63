import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

/** The test run's PostgreSQL (test/helpers/postgres-global.ts). */
export function pgServer() {
  return inject('pg');
}

/** The URL of a database on the test server; no database named. */
export function pgUrl(database = 'postgres'): string {
  const s = pgServer();
  return `postgres://${s.user}:${s.password}@${s.host}:${s.port}/${database}`;
}

/**
 * Creates a fresh, empty database on the test server and returns its URL; each test file calls
 * it once (or more) so that files running side by side never see each other's rows.
 */
export async function freshDatabase(prefix = 't'): Promise<string> {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return pgUrl(name);
}

/** A fresh database (freshDatabase) with callctl's tables in it, as `callctl store migrate` makes them. */
export async function migratedDatabase(prefix = 't'): Promise<string> {
  const url = await freshDatabase(prefix);
  const { PostgresEvents } = await import('../../src/store/postgres/events.js');
  const setup = await PostgresEvents.open(url);
  await setup.migrate();
  await setup.close();
  return url;
}
