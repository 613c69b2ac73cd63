import { appendFileSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findInterrupted, JournalWriter, readJournal, uploadKey } from '../../src/upload/journal.js';
import { acquireLock } from '../../src/files/lock.js';
import { tempDir } from './helpers.js';

const batch = (index: number, firstLine: number, lastLine: number, count: number) => ({ index, firstLine, lastLine, count });

describe('journal', () => {
  it('is created at the first acknowledged batch; a torn last line counts as not acknowledged', () => {
    const dir = tempDir();
    const path = join(dir, 'uploads', `${uploadKey('wf/1', 'ab'.repeat(32))}.journal`);
    expect(path).toMatch(/uploads\/wf_1~[0-9a-f]{8}-abababababababab\.journal$/);
    const w = new JournalWriter(path, { workflowId: 'wf/1', file: '/data/c.csv', sha256: 'ab'.repeat(32), bytes: 10 });
    expect(existsSync(path)).toBe(false);
    w.batch(batch(1, 2, 11, 10), 10);
    w.batch(batch(2, 12, 25, 10), 10);
    w.close();
    appendFileSync(path, '{"type":"batch","index":3,"firstLi');
    const state = readJournal(path);
    expect(state.doneAt).toBeUndefined();
    expect(state).toMatchObject({ resumeLine: 25, ackedEntries: 20, header: { workflowId: 'wf/1', file: '/data/c.csv' } });
    expect(state.batches.map((b) => b.index)).toEqual([1, 2]);
    expect(readFileSync(path, 'utf8').split('\n')[0]).toContain('"type":"start"');
  });

  it('finds unfinished uploads of the same file with other content', () => {
    const dir = tempDir();
    const other = new JournalWriter(join(dir, `${uploadKey('wf-1', '11'.repeat(32))}.journal`), { workflowId: 'wf-1', file: '/c.csv', sha256: '11'.repeat(32), bytes: 1 });
    other.batch(batch(1, 2, 3, 2), 2);
    other.close();
    const finished = new JournalWriter(join(dir, `${uploadKey('wf-1', '22'.repeat(32))}.journal`), { workflowId: 'wf-1', file: '/c.csv', sha256: '22'.repeat(32), bytes: 1 });
    finished.batch(batch(1, 2, 3, 2), 2);
    finished.done();
    finished.close();
    expect(findInterrupted(dir, 'wf-1', '/c.csv', '33'.repeat(32)).map((j) => j.header?.sha256)).toEqual(['11'.repeat(32)]);
    expect(findInterrupted(dir, 'wf-1', '/other.csv', '33'.repeat(32))).toEqual([]);
    expect(findInterrupted(dir, 'wf-2', '/c.csv', '33'.repeat(32))).toEqual([]);
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
    expect(() => acquireLock(path, 'upload of c.csv to workflow wf-1', () => undefined)).toThrow(`another upload of c.csv to workflow wf-1 is running (pid ${process.pid}`);
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
