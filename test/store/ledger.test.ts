import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileLedgers } from '../../src/store/files/ledger.js';
import { pushDestination } from '../../src/store/destination.js';
import { FilesStore } from '../../src/store/files/store.js';
import { openLedger } from '../../src/store/ledger.js';
import { tempDir } from '../helpers/temp.js';

const DEST = 'push live http://127.0.0.1';
const peekLedger = (state: string, destination: string) => fileLedgers(state).peek(destination);

describe('file ledger', () => {
  it('keeps who was reached across runs; a refused send clears; a line torn by a kill is skipped and the next entry starts afresh', async () => {
    const state = tempDir();
    const first = await fileLedgers(state).open(DEST);
    await first.pending('+621', '2026-11-23T01:00:00.000Z');
    await first.pending('+622', '2026-11-23T01:00:01.000Z');
    await first.cleared('+622', '2026-11-23T01:00:02.000Z');
    await first.close();
    const [file] = readdirSync(join(state, 'ledgers')).filter((n) => n.endsWith('.jsonl'));
    appendFileSync(join(state, 'ledgers', file!), '{"p":"+623","s":"pen');
    const second = await fileLedgers(state).open(DEST);
    expect(second.lastReached('+621')).toBe('2026-11-23T01:00:00.000Z');
    expect(second.lastReached('+622')).toBeUndefined();
    expect(second.lastReached('+623')).toBeUndefined();
    await second.pending('+624', '2026-11-23T02:00:00.000Z');
    await second.close();
    const peek = await peekLedger(state, DEST);
    expect(peek('+624')).toBe('2026-11-23T02:00:00.000Z');
    expect(peek('+621')).toBe('2026-11-23T01:00:00.000Z');
    expect((await peekLedger(state, `${DEST}/other`))('+621')).toBeUndefined();
  });

  it('one run per destination at a time, however its address is spelled', async () => {
    const dir = tempDir();
    const store = new FilesStore({ dir });
    const first = await openLedger(store, pushDestination('http://localhost:8080/', 'live'));
    await expect(openLedger(store, pushDestination('HTTP://127.0.0.1:8080', 'live'))).rejects.toThrow(
      /another send to push live http:\/\/127\.0\.0\.1:8080 is running/,
    );
    // Another route is another destination, with a lock of its own.
    await (await openLedger(store, pushDestination('http://127.0.0.1:8080', 'test'))).close();
    await first.close();
    await (await openLedger(store, pushDestination('http://127.0.0.1:8080', 'live'))).close();
  });
});
