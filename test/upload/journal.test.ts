import { appendFileSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findInterrupted, JournalWriter, readJournal, uploadKey } from '../../src/store/upload-journal.js';
import { FileJournals } from '../../src/store/files/journal.js';
import { acquireLock } from '../../src/files/lock.js';
import { tempDir } from './helpers.js';

const batch = (index: number, firstLine: number, lastLine: number, count: number) => ({
  index,
  firstLine,
  lastLine,
  count,
});

describe('journal', () => {
  it('is created at the first acknowledged batch; a torn last line counts as not acknowledged', async () => {
    const dir = tempDir();
    const store = new FileJournals(join(dir, 'uploads'), '.journal');
    const key = uploadKey('wf/1', 'ab'.repeat(32));
    const path = store.where(key);
    expect(path).toMatch(/uploads\/wf_1~[0-9a-f]{8}-abababababababab\.journal$/);
    const w = new JournalWriter(store, key, {
      workflowId: 'wf/1',
      file: '/data/c.csv',
      sha256: 'ab'.repeat(32),
      bytes: 10,
    });
    expect(existsSync(path)).toBe(false);
    await w.batch(batch(1, 2, 11, 10), 10);
    await w.batch(batch(2, 12, 25, 10), 10);
    await w.close();
    appendFileSync(path, '{"type":"batch","index":3,"firstLi');
    const state = await readJournal(store, key);
    expect(state.doneAt).toBeUndefined();
    expect(state).toMatchObject({
      acceptedLine: 25,
      lastIndex: 2,
      ackedEntries: 20,
      header: { workflowId: 'wf/1', file: '/data/c.csv' },
    });
    expect(state.batches.map((b) => b.index)).toEqual([1, 2]);
    expect(readFileSync(path, 'utf8').split('\n')[0]).toContain('"type":"start"');
  });

  it('after a run killed mid-write, the next run records on a line of its own: the batch it sends is known as in flight', async () => {
    const store = new FileJournals(tempDir(), '.journal');
    const key = uploadKey('wf-1', 'cd'.repeat(32));
    const header = { workflowId: 'wf-1', file: '/c.csv', sha256: 'cd'.repeat(32), bytes: 10 };
    const first = new JournalWriter(store, key, header);
    await first.batch(batch(1, 2, 11, 10), 10);
    await first.close();
    // Killed while writing batch 2's record: a torn last line, no newline.
    appendFileSync(store.where(key), '{"type":"sending","index":2,"firstLi');
    const second = new JournalWriter(store, key, header);
    await second.sending(batch(2, 12, 21, 10));
    await second.close();
    // Killed again while batch 2 was in flight: the re-run must see it as uncertain, not send it silently.
    const state = await readJournal(store, key);
    expect(state.batches.map((b) => b.index)).toEqual([1]);
    expect(state.uncertain.map((b) => b.index)).toEqual([2]);
  });

  it('finds unfinished uploads of the same file with other content', async () => {
    const store = new FileJournals(tempDir(), '.journal');
    const other = new JournalWriter(store, uploadKey('wf-1', '11'.repeat(32)), {
      workflowId: 'wf-1',
      destination: 'cloud http://a account k',
      file: '/c.csv',
      sha256: '11'.repeat(32),
      bytes: 1,
    });
    await other.batch(batch(1, 2, 3, 2), 2);
    await other.close();
    const finished = new JournalWriter(store, uploadKey('wf-1', '22'.repeat(32)), {
      workflowId: 'wf-1',
      destination: 'cloud http://a account k',
      file: '/c.csv',
      sha256: '22'.repeat(32),
      bytes: 1,
    });
    await finished.batch(batch(1, 2, 3, 2), 2);
    await finished.done();
    await finished.close();
    const dest = 'cloud http://a account k';
    expect(
      (await findInterrupted(store, 'wf-1', dest, '/c.csv', '33'.repeat(32))).map((j) => j.header?.sha256),
    ).toEqual(['11'.repeat(32)]);
    expect(await findInterrupted(store, 'wf-1', dest, '/other.csv', '33'.repeat(32))).toEqual([]);
    expect(await findInterrupted(store, 'wf-2', dest, '/c.csv', '33'.repeat(32))).toEqual([]);
    // Another service or account: its uploads are its own.
    expect(await findInterrupted(store, 'wf-1', 'cloud http://b account k', '/c.csv', '33'.repeat(32))).toEqual([]);
  });
});

describe('lock', () => {
  it('is exclusive while its process lives, taken over when it is gone, and released', () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'x.lock');
    const stale: number[] = [];
    const release = acquireLock(path, 'upload of c.csv to workflow wf-1', (o) => stale.push(o.pid));
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    expect(() => acquireLock(path, 'upload of c.csv to workflow wf-1', () => undefined)).toThrow(
      `another upload of c.csv to workflow wf-1 is running (pid ${process.pid}`,
    );
    release();
    expect(existsSync(path)).toBe(false);

    writeFileSync(path, JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), at: 'then' }));
    acquireLock(path, 'c.csv', (o) => stale.push(o.pid))();
    expect(stale).toEqual([2 ** 22 + 7]);

    // An empty lock file is a run starting (refused) until it is a few seconds old (taken over).
    writeFileSync(path, '');
    expect(() => acquireLock(path, 'c.csv', () => undefined)).toThrow(/a process that is starting/);
    utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    acquireLock(path, 'c.csv', (o) => stale.push(o.pid))();
    expect(stale).toEqual([2 ** 22 + 7, 0]);
  });
});
