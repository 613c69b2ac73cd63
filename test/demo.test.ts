import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/temp.js';

const run = promisify(execFile);
const demo = fileURLToPath(new URL('../scripts/demo.mjs', import.meta.url));

describe('npm run demo', () => {
  it("drives the campaign in folders of its own: the user's config, state and cache are untouched, and it leaves nothing behind", async () => {
    const home = tempDir('callctl-demo-home-');
    const tmp = tempDir('callctl-demo-tmp-');
    // A user's shell: no XDG folders (so the defaults under HOME would be used), the sandbox's
    // export line pasted from an earlier tour, a profile and a store of their own.
    const env: Record<string, string> = {
      ...Object.fromEntries(
        Object.entries(process.env).filter(
          (e): e is [string, string] => e[1] !== undefined && !/^(XDG_|CALLCTL_)/.test(e[0]),
        ),
      ),
      HOME: home,
      TMPDIR: tmp,
      CALLCTL_TOKEN: 'a-token-of-the-users-own',
      CALLCTL_BASE_URL: 'http://127.0.0.1:1',
      CALLCTL_PROFILE: 'prod',
      CALLCTL_STORE: join(home, 'events.ndjson'),
      NO_COLOR: '1',
    };
    const result = await run(process.execPath, [demo], { env, maxBuffer: 16 * 1024 * 1024 }).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect((result as { code?: number }).code ?? 0, result.stdout.slice(-2000)).toBe(0);
    expect(result.stdout).toContain('demo finished: every step behaved as expected');
    for (const folder of ['.config/callctl', '.local/state/callctl', '.cache/callctl', 'events.ndjson'])
      expect(existsSync(join(home, folder)), folder).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
  }, 60_000);
});
