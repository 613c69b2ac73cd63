/**
 * vitest globalSetup: the home folder and the platform's state and cache folders (journals, ledgers, locks, spools)
 * point into one temp folder for the whole run, so no test reads or leaves state in the real
 * ~/.local/state/callctl (a stale upload journal there once made a terminal test see
 * "already uploaded"). Forked test workers and the CLIs they spawn inherit the variables; a test
 * that needs its own folders still sets them itself. The folder is removed after the run.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'callctl-test-state-'));
  process.env.XDG_STATE_HOME = join(root, 'state');
  process.env.XDG_CACHE_HOME = join(root, 'cache');
  // The home folder too: a command that is given no XDG folder and no --config-dir (a test that
  // builds its environment from process.env) finds ~/.config, ~/.local/state and ~/.cache here.
  // npm (test/package.test.ts installs the packed tarball) keeps the user's own settings.
  process.env.NPM_CONFIG_USERCONFIG ??= join(homedir(), '.npmrc');
  process.env.HOME = join(root, 'home');
  mkdirSync(process.env.HOME);
  return () => rmSync(root, { recursive: true, force: true });
}
