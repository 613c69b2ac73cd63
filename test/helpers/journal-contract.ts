import { expect, it } from 'vitest';
import type { Journals } from '../../src/store/store.js';

/**
 * What every journal store does (files today; a PostgreSQL store runs the same contract).
 * `tear(store, name)` leaves the journal as a run killed in the middle of a record would.
 */
export function journalStoreContract(
  make: () => Journals | Promise<Journals>,
  tear: (store: Journals, name: string) => void,
) {
  it('has no journal until the first record; then the header first, records in order', async () => {
    const store = await make();
    expect(await store.read('a-1')).toBeUndefined();
    expect(await store.first('a-1')).toBeUndefined();
    const j = store.open('a-1', () => ({ type: 'start', file: '/c.csv' }));
    expect(await store.read('a-1')).toBeUndefined();
    await j.append({ type: 'sending', n: 1 }, true);
    await j.append({ type: 'sent', n: 1 }, false);
    await j.close();
    await j.close();
    expect(await store.read('a-1')).toEqual([
      { type: 'start', file: '/c.csv' },
      { type: 'sending', n: 1 },
      { type: 'sent', n: 1 },
    ]);
    expect(await store.first('a-1')).toEqual({ type: 'start', file: '/c.csv' });
    // Opened again: appended after what is there, the header not repeated.
    const again = store.open('a-1', () => ({ type: 'start', file: 'other' }));
    await again.append({ type: 'sending', n: 2 }, true);
    await again.close();
    expect((await store.read('a-1'))?.map((r) => r.type)).toEqual(['start', 'sending', 'sent', 'sending']);
  });

  it('a record torn by a kill is left out, and the next one is read whole', async () => {
    const store = await make();
    const j = store.open('t-1', () => ({ type: 'start' }));
    await j.append({ type: 'sending', n: 1 }, true);
    await j.close();
    tear(store, 't-1');
    const next = store.open('t-1', () => ({ type: 'start' }));
    await next.append({ type: 'sending', n: 2 }, true);
    await next.close();
    expect(await store.read('t-1')).toEqual([{ type: 'start' }, { type: 'sending', n: 1 }, { type: 'sending', n: 2 }]);
  });

  it('lists by prefix and removes', async () => {
    const store = await make();
    for (const name of ['push-1', 'push-2', 'template-1']) {
      const j = store.open(name, () => ({ name }));
      await j.append({ n: 1 }, true);
      await j.close();
    }
    expect((await store.list('push-')).sort()).toEqual(['push-1', 'push-2']);
    expect((await store.list()).sort()).toEqual(['push-1', 'push-2', 'template-1']);
    await store.remove('push-1');
    expect(await store.read('push-1')).toBeUndefined();
    expect((await store.list('push-')).sort()).toEqual(['push-2']);
  });
}
