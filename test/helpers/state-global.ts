/**
 * vitest globalSetup: the platform's state and cache folders (journals, ledgers, locks, spools)
 * point into one temp folder for the whole run, so no test reads or leaves state in the real
 * ~/.local/state/callctl (a stale upload journal there once made a terminal test see
 * "already uploaded"). Forked test workers and the CLIs they spawn inherit the variables; a test
 * that needs its own folders still sets them itself. The folder is removed after the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'callctl-test-state-'));
  process.env.XDG_STATE_HOME = join(root, 'state');
  process.env.XDG_CACHE_HOME = join(root, 'cache');
  return () => rmSync(root, { recursive: true, force: true });
}
