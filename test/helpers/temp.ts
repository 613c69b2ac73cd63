/**
 * The one temporary-folder helper of the tests. A folder made inside a test is removed when that
 * test finishes; one made outside a test (in beforeAll, or as a file-level constant) is removed
 * after the test file. Nothing is left in the system's temp folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/** Folders to remove after the file (this module is evaluated once per test file). */
const forTheFile: string[] = [];
afterAll(() => {
  for (const dir of forTheFile.splice(0)) remove(dir);
});

function remove(dir: string): void {
  // A CLI a test started may still be closing a file in it: retried, then left to the OS if it still fails.
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  } catch {
    /* the system's temp folder is cleaned by the OS */
  }
}

/**
 * A fresh, empty temporary folder, removed after the current test (or after the file when made
 * outside a test). `scope: 'file'` keeps a folder made inside a test until the file ends, for
 * folders that are cached across tests.
 */
export function tempDir(prefix = 'callctl-test-', scope: 'test' | 'file' = 'test'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (scope === 'test') {
    try {
      onTestFinished(() => remove(dir));
      return dir;
    } catch {
      // Not inside a test: kept for the file.
    }
  }
  forTheFile.push(dir);
  return dir;
}

/** Writes a file in `dir` and returns its path. */
export function writeIn(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
