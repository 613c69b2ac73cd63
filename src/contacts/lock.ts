import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { UsageError } from '../errors.js';

export interface LockOwner {
  pid: number;
  host: string;
  at: string;
}

/** A lock file younger than this with no readable owner is being written, not abandoned. */
const FRESH_MS = 5_000;

/**
 * Takes the lock file of an upload: created with O_EXCL, holding this process's pid. A lock
 * whose process is gone (killed, crashed) is taken over, and `onStale` is told. A lock held by
 * a live process refuses with a usage error naming its pid. Returns the release function.
 */
export function acquireLock(path: string, what: string, onStale: (owner: LockOwner) => void): () => void {
  const me: LockOwner = { pid: process.pid, host: hostname(), at: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(me)}\n`);
      } finally {
        closeSync(fd);
      }
      return () => release(path, me.pid);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = readOwner(path);
    const stale = owner ? owner.host === me.host && !alive(owner.pid) : isOld(path);
    // A second EEXIST after removing a stale lock: another run took it first.
    if (!stale || attempt > 0) throw busy(what, owner);
    onStale(owner ?? { pid: 0, host: me.host, at: '' });
    rmSync(path, { force: true });
  }
}

function busy(what: string, owner: LockOwner | undefined): UsageError {
  const who = owner ? `pid ${owner.pid}${owner.host !== hostname() ? ` on ${owner.host}` : ''}, started ${owner.at}` : 'a process that is starting';
  return new UsageError(`another upload of ${what} is running (${who}); wait for it to finish, or stop it and run again`, {
    ...(owner ? { pid: owner.pid } : {}),
  });
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
    return Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

function isOld(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > FRESH_MS;
  } catch {
    return true;
  }
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function release(path: string, pid: number): void {
  // Only our own lock: never remove one a later process took over.
  if (readOwner(path)?.pid === pid) rmSync(path, { force: true });
}
