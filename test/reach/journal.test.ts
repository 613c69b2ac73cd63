import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Journal, reachJournals, type JournalKey } from '../../src/state/row-journal.js';
import { tempDir } from './helpers.js';

const key: JournalKey = { command: 'push', target: 'live POST http://x/api/push/***', sha256: 'ab'.repeat(32) };
const now = () => Date.parse('2026-11-22T10:00:00Z');

describe('journal', async () => {
  it('records about-to-send and answers, and a later run reads them back', async () => {
    const dir = tempDir();
    const j = await Journal.open(reachJournals(dir), key, { file: 'x.csv' }, now);
    expect(j.isNew).toBe(true);
    j.about(1);
    j.answer(1, { state: 'sent', at: j.iso(), id: 't-1' });
    j.about(2);
    j.answer(2, { state: 'failed', at: j.iso(), error: 'code 400' });
    j.about(3);
    await j.close();
    const again = await Journal.open(reachJournals(dir), key, {}, now);
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

  it('another file content, target or command is another journal', async () => {
    const dir = tempDir();
    const a = Journal.pathFor(dir, key);
    expect(Journal.pathFor(dir, { ...key, sha256: 'cd'.repeat(32) })).not.toBe(a);
    expect(Journal.pathFor(dir, { ...key, target: 'test POST http://x/api/push/***' })).not.toBe(a);
    expect(Journal.pathFor(dir, { ...key, command: 'template' })).not.toBe(a);
    expect(Journal.pathFor(dir, { ...key })).toBe(a);
  });

  it('a line cut short by a kill is ignored, and the next entry starts on a line of its own', async () => {
    const dir = tempDir();
    const j = await Journal.open(reachJournals(dir), key, {}, now);
    j.about(1);
    j.answer(1, { state: 'sent', at: j.iso(), id: 't-1' });
    await j.close();
    appendFileSync(j.path, '{"t":"about","ro');
    const again = await Journal.open(reachJournals(dir), key, {}, now);
    again.about(2);
    await again.close();
    const third = await Journal.open(reachJournals(dir), key, {}, now);
    expect(third.states.get(2)?.state).toBe('about');
    expect(third.states.get(1)?.state).toBe('sent');
    await third.close();
  });

  it('peek reads without locking or creating anything', async () => {
    const dir = tempDir();
    expect((await Journal.peek(reachJournals(dir), key)).size).toBe(0);
    expect(existsSync(Journal.pathFor(dir, key))).toBe(false);
  });

  it('a second run on the same batch is refused while the first holds the lock; a stale lock is taken over', async () => {
    const dir = tempDir();
    const first = await Journal.open(reachJournals(dir), key, {}, now);
    await expect(Journal.open(reachJournals(dir), key, {}, now)).rejects.toThrow(
      /another push run of this file is running \(pid \d+/,
    );
    await first.close();
    // A lock left by a process that no longer exists (killed with SIGKILL).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(`${Journal.pathFor(dir, key)}.lock`, `${dead.stdout}\n`);
    const next = await Journal.open(reachJournals(dir), key, {}, now);
    expect(JSON.parse(readFileSync(`${next.path}.lock`, 'utf8')).pid).toBe(process.pid);
    await next.close();
    expect(existsSync(`${next.path}.lock`)).toBe(false);
  });
});
