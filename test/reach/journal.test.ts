import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Journal, type JournalKey } from '../../src/reach/journal.js';
import { tempDir } from './helpers.js';

const key: JournalKey = { command: 'push', target: 'live POST http://x/api/push/***', sha256: 'ab'.repeat(32) };
const now = () => Date.parse('2026-11-22T10:00:00Z');

describe('journal', () => {
  it('records about-to-send and answers, and a later run reads them back', () => {
    const dir = tempDir();
    const j = Journal.open(dir, key, { file: 'x.csv' }, now);
    expect(j.isNew).toBe(true);
    j.about(1);
    j.answer(1, { state: 'sent', at: j.iso(), id: 't-1' });
    j.about(2);
    j.answer(2, { state: 'failed', at: j.iso(), error: 'code 400' });
    j.about(3);
    j.close();
    const again = Journal.open(dir, key, {}, now);
    expect(again.isNew).toBe(false);
    expect(Object.fromEntries([...again.states].map(([row, s]) => [row, s.state]))).toEqual({ 1: 'sent', 2: 'failed', 3: 'about' });
    expect(again.states.get(1)).toMatchObject({ id: 't-1' });
    again.close();
    const lines = readFileSync(again.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ t: 'begin', command: 'push', file: 'x.csv' });
    expect(lines.filter((l) => l.t === 'begin')).toHaveLength(1);
  });

  it('another file content, target or command is another journal', () => {
    const dir = tempDir();
    const a = Journal.pathFor(dir, key);
    expect(Journal.pathFor(dir, { ...key, sha256: 'cd'.repeat(32) })).not.toBe(a);
    expect(Journal.pathFor(dir, { ...key, target: 'test POST http://x/api/push/***' })).not.toBe(a);
    expect(Journal.pathFor(dir, { ...key, command: 'template' })).not.toBe(a);
    expect(Journal.pathFor(dir, { ...key })).toBe(a);
  });

  it('a line cut short by a kill is ignored, and the next entry starts on a line of its own', () => {
    const dir = tempDir();
    const j = Journal.open(dir, key, {}, now);
    j.about(1);
    j.answer(1, { state: 'sent', at: j.iso(), id: 't-1' });
    j.close();
    appendFileSync(j.path, '{"t":"about","ro');
    const again = Journal.open(dir, key, {}, now);
    again.about(2);
    again.close();
    const third = Journal.open(dir, key, {}, now);
    expect(third.states.get(2)?.state).toBe('about');
    expect(third.states.get(1)?.state).toBe('sent');
    third.close();
  });

  it('peek reads without locking or creating anything', () => {
    const dir = tempDir();
    expect(Journal.peek(dir, key).size).toBe(0);
    expect(existsSync(Journal.pathFor(dir, key))).toBe(false);
  });

  it('a second run on the same batch is refused while the first holds the lock; a stale lock is taken over', () => {
    const dir = tempDir();
    const first = Journal.open(dir, key, {}, now);
    expect(() => Journal.open(dir, key, {}, now)).toThrow(/another push run of this file is running \(pid \d+/);
    first.close();
    // A lock left by a process that no longer exists (killed with SIGKILL).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(`${Journal.pathFor(dir, key)}.lock`, `${dead.stdout}\n`);
    const next = Journal.open(dir, key, {}, now);
    expect(JSON.parse(readFileSync(`${next.path}.lock`, 'utf8')).pid).toBe(process.pid);
    next.close();
    expect(existsSync(`${next.path}.lock`)).toBe(false);
  });
});
