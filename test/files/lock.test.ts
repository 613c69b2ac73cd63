import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/files/lock.js';
import { tempDir } from '../helpers/temp.js';

const dead = (pid = 2 ** 22 + 13) => `${JSON.stringify({ pid, host: hostname(), at: '2026-01-01T00:00:00.000Z' })}\n`;

describe('lock', () => {
  it('a takeover claim left by a run that died mid-takeover does not block the next run', () => {
    const dir = tempDir('callctl-lock-');
    const path = join(dir, 'x.lock');
    writeFileSync(path, dead());
    writeFileSync(`${path}.stale-${statSync(path).ino}`, dead(2 ** 22 + 17));
    const release = acquireLock(path, 'push of c.csv');
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    expect(readdirSync(dir)).toEqual(['x.lock']);
    release();
    expect(existsSync(path)).toBe(false);
  });

  it('a live takeover claim (another run taking over now) means busy; a bare pid from older versions is read', () => {
    const dir = tempDir('callctl-lock-');
    const path = join(dir, 'x.lock');
    writeFileSync(path, dead());
    writeFileSync(
      `${path}.stale-${statSync(path).ino}`,
      `${JSON.stringify({ pid: process.pid, host: hostname(), at: 'now' })}\n`,
    );
    expect(() => acquireLock(path, 'push of c.csv')).toThrow(/another push of c.csv is running/);
    writeFileSync(join(dir, 'y.lock'), `${process.pid}\n`);
    expect(() => acquireLock(join(dir, 'y.lock'), 'push of c.csv')).toThrow(
      `another push of c.csv is running (pid ${process.pid})`,
    );
  });
});
