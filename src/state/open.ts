import { UsageError } from '../errors.js';
import type { EventStore } from './types.js';
import { isPostgresUrl } from './choice.js';

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
