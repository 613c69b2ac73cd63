import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileLedgers, peekLedger } from '../../src/state/ledger.js';
import { tempDir } from './helpers.js';

const DEST = 'push live POST http://127.0.0.1/api/push/***';

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

  it('one run per destination at a time', async () => {
    const state = tempDir();
    const first = await fileLedgers(state).open(DEST);
    await expect(Promise.resolve().then(() => fileLedgers(state).open(DEST))).rejects.toThrow(
      /another send to .* is running/,
    );
    await first.close();
    await (await fileLedgers(state).open(DEST)).close();
  });
});
