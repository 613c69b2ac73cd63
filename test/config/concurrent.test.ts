import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';

const bin = fileURLToPath(new URL('../../bin/callctl.js', import.meta.url));

function configSet(dir: string, profile: string, value: string): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, '-p', profile, 'config', 'set', 'base-url', value], {
      env: { ...process.env, CALLCTL_CONFIG_DIR: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => resolve({ code, err }));
  });
}

// Without the lock, conf's read-modify-write lost updates: 12 at once kept about 9 profiles.
it('12 concurrent `config set` (real processes) keep all 12 profiles, and leave no lock behind', async () => {
  for (let round = 0; round < 1; round++) {
    const dir = tempConfigDir();
    const names = Array.from({ length: 12 }, (_, i) => `p${round}-${i}`);
    const results = await Promise.all(names.map((name) => configSet(dir, name, `https://${name}.example`)));
    for (const r of results) expect(r.code, r.err).toBe(0);
    const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles as Record<
      string,
      { 'base-url': string }
    >;
    expect(Object.keys(stored).sort()).toEqual([...names].sort());
    for (const name of names) expect(stored[name]!['base-url']).toBe(`https://${name}.example`);
    expect(readdirSync(dir).filter((f) => f.includes('.lock'))).toEqual([]);
  }
});
