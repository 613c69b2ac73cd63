import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { acquireLock } from '../files/lock.js';
import type { LockRequest } from './store.js';

/**
 * Takes a lock's file in the state folder `dir`: this host's runs, whatever the store (a shared
 * store's own lock is taken first by its back end). Busy: a UsageError naming the holder.
 * Returns its release.
 */
export function lockFile(dir: string, request: LockRequest): () => void {
  const file = resolve(
    dir,
    request.file ?? join('locks', `${createHash('sha256').update(request.name).digest('hex').slice(0, 24)}.lock`),
  );
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const onStale = request.onStale;
  return acquireLock(file, request.what, onStale && ((owner) => onStale(owner, file)));
}
