import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * A temporary name beside `path` (same folder, so the rename that completes it is atomic; a
 * rename across file systems is a copy). Hidden, and unique per process and call.
 */
export function tempBeside(path: string): string {
  return join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`,
  );
}

/**
 * Completes a file written under a temporary name beside it: its bytes flushed to disk (fsync),
 * then renamed over `path`, then the folder flushed so the new name survives a power cut too. A
 * reader sees the old file or the new one, never half of one. The temporary file is removed when
 * this fails.
 */
export function commitFile(temp: string, path: string): void {
  try {
    syncFile(temp);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDir(dirname(path));
}

/** Writes a whole file atomically (tempBeside, write, commitFile). */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: { mode?: number } = {}): void {
  const temp = tempBeside(path);
  try {
    writeFileSync(temp, data, { mode: options.mode ?? 0o600 });
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  commitFile(temp, path);
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a new name in a folder durable (best effort: Windows cannot open a folder). */
export function syncDir(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems refuse to sync a folder; the rename is done either way.
  } finally {
    closeSync(fd);
  }
}
