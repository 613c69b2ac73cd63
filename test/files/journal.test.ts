import { appendFileSync, existsSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileJournals } from '../../src/store/files/journal.js';
import { journalStoreContract } from '../helpers/journal-contract.js';
import { addSecret } from '../../src/redact.js';
import { tempDir } from '../helpers/temp.js';

describe('file journals', () => {
  const dir = () => join(tempDir(), 'journals');
  journalStoreContract(
    () => new FileJournals(dir(), '.jsonl'),
    (store, name) => appendFileSync(store.where(name), '{"type":"sending","n":'),
  );

  it('is private, one JSON record a line; a known secret in a record does not reach the file', async () => {
    addSecret('tok-8c1f2e9a7b6d');
    const store = new FileJournals(dir(), '.jsonl');
    const j = store.open('s-1', () => ({ type: 'start' }));
    await j.append({ type: 'failed', error: 'POST https://flex.example/api/push/tok-8c1f2e9a7b6d: refused' }, true);
    await j.close();
    const path = store.where('s-1');
    expect(path.endsWith('s-1.jsonl')).toBe(true);
    const text = readFileSync(path, 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(2);
    expect(text).not.toContain('tok-8c1f2e9a7b6d');
    expect(text).toContain('refused');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('prunes finished journals older than the age kept, and nothing else', async () => {
    const store = new FileJournals(dir(), '.jsonl');
    for (const name of ['old-done', 'old-open', 'new-done']) {
      const j = store.open(name, () => ({ type: 'start' }));
      await j.append({ type: name.endsWith('done') ? 'done' : 'sending' }, true);
      await j.close();
    }
    const old = new Date(Date.now() - 31 * 24 * 3600 * 1000);
    for (const name of ['old-done', 'old-open']) utimesSync(store.where(name), old, old);
    const removed = await store.prune((records) => records.some((r) => r.type === 'done'));
    expect(removed).toEqual([store.where('old-done')]);
    expect(existsSync(store.where('old-open'))).toBe(true);
    expect(existsSync(store.where('new-done'))).toBe(true);
  });
});
