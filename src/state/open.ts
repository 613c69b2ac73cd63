import { UsageError } from '../errors.js';
import type { EventStore } from './types.js';

/** Whether a store value names a PostgreSQL database (else it is an NDJSON file path). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(value);
}

/** The password inside a store URL, so the caller can add it to the run's secrets. */
export function storePassword(value: string): string | undefined {
  if (!isPostgresUrl(value)) return undefined;
  try {
    const p = new URL(value).password;
    return p ? decodeURIComponent(p) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens the store a value names: a `postgres://` URL (the `pg` driver is imported only then), or
 * an NDJSON file (`file:` prefix optional). For reading (`hooks events`, `show`, `replay`);
 * serve-hooks opens its store for writing itself.
 */
export async function openStoreForReading(value: string): Promise<EventStore> {
  if (isPostgresUrl(value)) {
    try {
      new URL(value);
    } catch {
      throw new UsageError('--store: not a valid postgres:// URL');
    }
    const { PostgresStore } = await import('./postgres.js');
    const store = await PostgresStore.open(value);
    try {
      await store.check();
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
    return store;
  }
  const { NdjsonStore } = await import('./ndjson.js');
  return NdjsonStore.open(value.replace(/^file:(\/\/)?/, ''));
}
