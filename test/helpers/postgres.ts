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

/** Runs `work` on a connection of its own to the database of `url`. */
export async function onDatabase<T>(url: string, work: (client: import('pg').Client) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a fresh, empty database on the test server and returns its URL; each test file calls
 * it once (or more) so that files running side by side never see each other's rows.
 */
export async function freshDatabase(prefix = 't'): Promise<string> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  await onDatabase(pgUrl(), (client) => client.query(`CREATE DATABASE ${name}`));
  return pgUrl(name);
}

/** Brings the database of `url` to callctl's tables, as `callctl store migrate` does. */
export async function migrateDatabase(url: string): Promise<{ from: number; applied: number[] }> {
  const { migrate } = await import('../../src/store/postgres/schema.js');
  return onDatabase(url, migrate);
}

/** A fresh database (freshDatabase) with callctl's tables in it, as `callctl store migrate` makes them. */
export async function migratedDatabase(prefix = 't'): Promise<string> {
  const url = await freshDatabase(prefix);
  await migrateDatabase(url);
  return url;
}
