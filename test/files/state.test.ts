import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDir, stateDir } from '../../src/files/state.js';
import { runCli } from '../helpers/cli.js';
import { received, useUploadSandbox, WORKFLOW, writeContacts, type UploadSetup } from '../upload/helpers.js';

let upload: UploadSetup | undefined;
useUploadSandbox((s) => (upload = s));

describe('state folders', () => {
  it('follow the platform: XDG_STATE_HOME first, then ~/.local/state, Application Support, LOCALAPPDATA', () => {
    expect(stateDir({ XDG_STATE_HOME: '/s', HOME: '/h' }, 'linux')).toBe('/s/callctl');
    expect(stateDir({ HOME: '/h' }, 'linux')).toBe('/h/.local/state/callctl');
    expect(stateDir({ HOME: '/h' }, 'darwin')).toBe('/h/Library/Application Support/callctl/State');
    expect(stateDir({ HOME: 'C:\\Users\\a', LOCALAPPDATA: 'L' }, 'win32')).toBe(join('L', 'callctl', 'State'));
    expect(cacheDir({ HOME: '/h' }, 'linux')).toBe('/h/.cache/callctl');
    expect(cacheDir({ XDG_CACHE_HOME: '/c' }, 'darwin')).toBe('/c/callctl');
    expect(cacheDir({ HOME: '/h' }, 'darwin')).toBe('/h/Library/Caches/callctl');
  });

  it('an upload keeps its journal and lock in the state folder and its spool in the cache, nothing in the config folder', async () => {
    const { sandbox, env, dir, configDir } = upload!;
    const r = await runCli(
      ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', writeContacts(join(dir, 's.csv'), 5), '--yes'],
      { env },
    );
    expect(r.code, r.err).toBe(0);
    expect(received(sandbox)).toHaveLength(5);
    expect(
      readdirSync(join(env.XDG_STATE_HOME!, 'callctl', 'uploads')).filter((f) => f.endsWith('.journal')),
    ).toHaveLength(1);
    expect(readdirSync(join(env.XDG_CACHE_HOME!, 'callctl', 'spool'))).toEqual([]);
    expect(existsSync(join(configDir, 'uploads'))).toBe(false);
    expect(existsSync(join(configDir, 'journals'))).toBe(false);
  });
});
