import { LocalError, NetworkError, UsageError } from '../../errors.js';
import type { EventStore } from '../../store/events.js';

/**
 * A read that failed half-way: the database went away (exit 5, store named without its
 * password), or the NDJSON log is a folder or unreadable (exit 6: running again will not help).
 */
export async function readFailed(store: EventStore, error: unknown): Promise<never> {
  if (error instanceof UsageError || error instanceof NetworkError || error instanceof LocalError) throw error;
  throw store.readFailure(error);
}
