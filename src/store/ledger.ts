import type { Destination } from './destination.js';
import type { Ledger, Store } from './store.js';

/** Default window within which a person reached through a destination is not reached again. */
export const RECALL_WINDOW_MS = 24 * 3600 * 1000;

/**
 * The ledger of a destination, under its lock (two runs to one destination would each miss the
 * other's people); closing it releases the lock.
 */
export async function openLedger(store: Store, destination: Destination): Promise<Ledger> {
  const release = await store.lock({ name: `ledger ${destination.text}`, what: `send to ${destination.text}` });
  try {
    const ledger = await (await store.ledgers()).open(destination.text);
    return {
      lastReached: (p) => ledger.lastReached(p),
      pending: (p, at) => ledger.pending(p, at),
      cleared: (p, at) => ledger.cleared(p, at),
      close: async () => {
        try {
          await ledger.close();
        } finally {
          await release();
        }
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}
