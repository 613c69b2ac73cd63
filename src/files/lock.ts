import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { hostname } from 'node:os';
import { UsageError } from '../errors.js';
import { said } from '../said.js';

/** Who holds a lock: written in the lock file as one JSON line. */
export interface LockOwner {
  pid: number;
  host: string;
  at: string;
  /** Random, so that two locks of the same pid are told apart. */
  nonce?: string;
}

/** A lock file this young with no readable owner is being written by hand or by an old version. */
const FRESH_MS = 5_000;

/**
 * Takes a lock file. The file appears with its content in one step (written aside, then
 * hard-linked into place: `link` fails if the name exists), so a reader never sees it half
 * written. A lock whose owner is gone (same host, pid not alive) is taken over atomically: the
 * contender first creates `<lock>.stale-<inode>` with O_EXCL, which only one contender can do,
 * and checks that the lock still is the very file (inode and bytes) it judged stale; only then
 * does it rename its own file over the lock. Any other contender fails that
 * claim (or finds another file behind the lock's name) and reports the lock busy. So of N runs started together
 * over a dead owner's lock, exactly one proceeds. `what` names the work ("upload of c.csv to
 * workflow wf-1") for the busy message.
 */
export function acquireLock(
  path: string,
  what: string,
  onStale: (owner: LockOwner) => void = () => undefined,
): () => void {
  // node:crypto is loaded here, not with this module: every command that reads the config loads
  // it, and loading crypto costs a few milliseconds of start-up that reading never needs.
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    at: new Date().toISOString(),
    nonce: randomBytes(8).toString('hex'),
  };
  const text = `${JSON.stringify(me)}\n`;
  const mine = `${path}.${process.pid}.${me.nonce}.tmp`;
  writeFileSync(mine, text, { mode: 0o600 });
  try {
    try {
      linkSync(mine, path);
      return () => release(path, text);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const seen = readLock(path);
    if (!seen) {
      // Gone between our link and our read: its owner released it. Try once more from the top.
      try {
        linkSync(mine, path);
        return () => release(path, text);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        throw busy(what, readLock(path)?.owner);
      }
    }
    const stale = seen.owner ? seen.owner.host === me.host && !alive(seen.owner.pid) : seen.ageMs > FRESH_MS;
    if (!stale) throw busy(what, seen.owner);
    const claim = takeClaim(path, seen.ino, text);
    if (!claim) throw busy(what, readLock(path)?.owner);
    // Our claim on this generation: is the lock still the very file we judged stale?
    const now = readLock(path);
    if (!now || now.ino !== seen.ino || now.text !== seen.text) {
      rmSync(claim, { force: true });
      throw busy(what, now?.owner);
    }
    onStale(seen.owner ?? { pid: 0, host: me.host, at: '' });
    // Nobody else can claim this generation: replace it with ours in one step.
    renameSync(mine, path);
    removeClaims(path, seen.ino);
    return () => release(path, text);
  } finally {
    rmSync(mine, { force: true });
  }
}

/**
 * Claims the takeover of one generation (inode) of a lock: `<lock>.stale-<inode>` created with
 * O_EXCL, so one contender only. A claim left by a contender that died before finishing is
 * never removed by others (that would race again): the next claim name (`-1`, `-2`...) is tried.
 */
function takeClaim(path: string, ino: number, text: string): string | undefined {
  for (let k = 0; k < 100; k++) {
    const claim = `${path}.stale-${ino}${k === 0 ? '' : `-${k}`}`;
    try {
      writeFileSync(claim, text, { flag: 'wx', mode: 0o600 });
      return claim;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readLock(claim);
    // A live (or half-written) claim: another run is taking over right now.
    if (!holder?.owner || holder.owner.host !== hostname() || alive(holder.owner.pid)) return undefined;
  }
  return undefined;
}

function removeClaims(path: string, ino: number): void {
  const dir = dirname(path);
  const prefix = `${basename(path)}.stale-${ino}`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names)
    if (name === prefix || name.startsWith(`${prefix}-`)) rmSync(join(dir, name), { force: true });
}

function busy(what: string, owner: LockOwner | undefined): UsageError {
  const who = owner
    ? `pid ${owner.pid}${owner.host !== hostname() ? ` on ${owner.host}` : ''}${owner.at ? `, started ${owner.at}` : ''}`
    : 'a process that is starting';
  return new UsageError(said`another ${what} is running (${who}); wait for it to finish, or stop it and run again`, {
    ...(owner ? { pid: owner.pid } : {}),
  });
}

interface SeenLock {
  owner: LockOwner | undefined;
  text: string;
  ino: number;
  ageMs: number;
}

/** Reads a lock file through one descriptor, so that its bytes and inode belong together. */
function readLock(path: string): SeenLock | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    const text = readFileSync(fd, 'utf8');
    return { owner: parseOwner(text), text, ino: st.ino, ageMs: Date.now() - st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** JSON owner, or a bare pid (locks written by earlier versions of push --csv). */
function parseOwner(text: string): LockOwner | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed), host: hostname(), at: '' };
  try {
    const owner = JSON.parse(trimmed) as LockOwner;
    return Number.isInteger(owner.pid) && owner.pid > 0
      ? { ...owner, host: owner.host ?? hostname(), at: owner.at ?? '' }
      : undefined;
  } catch {
    return undefined;
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

function release(path: string, text: string): void {
  // Only our own lock (same bytes, nonce included): never remove one a later process took over.
  try {
    if (readFileSync(path, 'utf8') === text) unlinkSync(path);
  } catch {
    /* already gone */
  }
}
