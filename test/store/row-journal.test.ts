import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Journal, journalName, type JournalKey } from '../../src/store/row-journal.js';
import { pushDestination } from '../../src/store/destination.js';
import { FilesStore } from '../../src/store/files/store.js';
import { tempDir } from '../helpers/temp.js';

const key: JournalKey = { command: 'push', destination: pushDestination('http://x', 'live'), sha256: 'ab'.repeat(32) };
const storeIn = (dir: string) => new FilesStore({ dir });
const reachJournals = (dir: string) => storeIn(dir).journals('reach');
const pathFor = async (dir: string, k: JournalKey) => (await reachJournals(dir)).where(journalName(k));
const now = () => Date.parse('2026-11-22T10:00:00Z');

describe('journal', async () => {
  it('records about-to-send and answers, and a later run reads them back', async () => {
    const dir = tempDir();
    const j = await Journal.open(await reachJournals(dir), key, { file: 'x.csv' }, now);
    expect(j.isNew).toBe(true);
    j.about(1);
    j.answer(1, { state: 'sent', at: j.iso(), id: 't-1' });
    j.about(2);
    j.answer(2, { state: 'failed', at: j.iso(), error: 'code 400' });
    j.about(3);
    await j.close();
    const again = await Journal.open(await reachJournals(dir), key, {}, now);
    expect(again.isNew).toBe(false);
    expect(Object.fromEntries([...again.states].map(([row, s]) => [row, s.state]))).toEqual({
      1: 'sent',
      2: 'failed',
      3: 'about',
    });
    expect(again.states.get(1)).toMatchObject({ id: 't-1' });
    await again.close();
    const lines = readFileSync(again.path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ t: 'begin', command: 'push', file: 'x.csv' });
    expect(lines.filter((l) => l.t === 'begin')).toHaveLength(1);
  });

  it('another file content, destination or command is another journal; the same destination however spelled is one', async () => {
    const dir = tempDir();
    const a = await pathFor(dir, key);
    expect(await pathFor(dir, { ...key, sha256: 'cd'.repeat(32) })).not.toBe(a);
    expect(await pathFor(dir, { ...key, destination: pushDestination('http://x', 'test') })).not.toBe(a);
    expect(await pathFor(dir, { ...key, destination: pushDestination('http://y', 'live') })).not.toBe(a);
    expect(await pathFor(dir, { ...key, command: 'template' })).not.toBe(a);
    expect(await pathFor(dir, { ...key, destination: pushDestination('HTTP://X:80/', 'live') })).toBe(a);
  });

  it('a line cut short by a kill is ignored, and the next entry starts on a line of its own', async () => {
    const dir = tempDir();
    const j = await Journal.open(await reachJournals(dir), key, {}, now);
    j.about(1);
    j.answer(1, { state: 'sent', at: j.iso(), id: 't-1' });
    await j.close();
    appendFileSync(j.path, '{"t":"about","ro');
    const again = await Journal.open(await reachJournals(dir), key, {}, now);
    again.about(2);
    await again.close();
    const third = await Journal.open(await reachJournals(dir), key, {}, now);
    expect(third.states.get(2)?.state).toBe('about');
    expect(third.states.get(1)?.state).toBe('sent');
    await third.close();
  });

  it('peek reads without locking or creating anything', async () => {
    const dir = tempDir();
    expect((await Journal.peek(await reachJournals(dir), key)).size).toBe(0);
    expect(existsSync(await pathFor(dir, key))).toBe(false);
  });

  it("a second run of the same send is refused while the first holds the send's lock; a stale lock is taken over", async () => {
    const dir = tempDir();
    const lock = {
      name: `push ${key.destination.text} ${key.sha256}`,
      what: 'push run of this file',
      file: `${dir}/send.lock`,
    };
    const release = await storeIn(dir).lock(lock);
    await expect(storeIn(dir).lock(lock)).rejects.toThrow(/another push run of this file is running \(pid \d+/);
    await release();
    // A lock left by a process that no longer exists (killed with SIGKILL).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(lock.file, `${dead.stdout}\n`);
    const next = await storeIn(dir).lock(lock);
    expect(JSON.parse(readFileSync(lock.file, 'utf8')).pid).toBe(process.pid);
    await next();
    expect(existsSync(lock.file)).toBe(false);
  });
});
