import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';

describe('config store', () => {
  it('writes a 0600 file in a 0700 folder and reads settings back with their sources', async () => {
    const dir = join(tempConfigDir(), 'nested', 'callctl');
    const env = { CALLCTL_CONFIG_DIR: dir };
    expect((await runCli(['config', 'set', 'base-url', 'http://127.0.0.1:9'], { env })).code).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);

    const got = await runCli(['config', 'get', 'base-url', '--json'], { env });
    expect(JSON.parse(got.out)).toEqual({ key: 'base-url', value: 'http://127.0.0.1:9', source: 'profile' });

    // Precedence: flag over environment over profile.
    const fromEnv = await runCli(['config', 'get', 'base-url'], { env: { ...env, CALLCTL_BASE_URL: 'http://env' } });
    expect(fromEnv.out).toBe('http://env\n');
    const fromFlag = await runCli(['config', 'get', 'base-url', '--base-url', 'http://flag'], {
      env: { ...env, CALLCTL_BASE_URL: 'http://env' },
    });
    expect(fromFlag.out).toBe('http://flag\n');
  });

  it('keeps profiles side by side', async () => {
    const env = { CALLCTL_CONFIG_DIR: tempConfigDir() };
    await runCli(['-p', 'prod', 'config', 'set', 'base-url', 'https://prod.example'], { env });
    await runCli(['-p', 'test', 'config', 'set', 'base-url', 'https://test.example'], { env });
    expect((await runCli(['config', 'get', 'base-url'], { env: { ...env, CALLCTL_PROFILE: 'test' } })).out).toBe(
      'https://test.example\n',
    );
    expect((await runCli(['-p', 'prod', 'config', 'get', 'base-url'], { env })).out).toBe('https://prod.example\n');
    const list = JSON.parse((await runCli(['-p', 'prod', 'config', 'list', '--json'], { env })).out);
    expect(list.profiles.sort()).toEqual(['prod', 'test']);
  });

  it('refuses a secret on the command line and takes it from stdin, masked in list', async () => {
    const dir = tempConfigDir();
    const env = { CALLCTL_CONFIG_DIR: dir };
    const refused = await runCli(['config', 'set', 'push-token', 'ptk-very-secret-123'], { env });
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/secret/);
    expect(refused.err).not.toContain('ptk-very-secret-123');

    const ok = await runCli(['config', 'set', 'push-token', '--stdin'], { env, stdin: 'ptk-very-secret-123\n' });
    expect(ok.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default['push-token']).toBe(
      'ptk-very-secret-123',
    );
    const list = await runCli(['config', 'list'], { env });
    expect(list.out).toMatch(/push-token\t\*+23\tprofile/);
    expect(list.out + list.err).not.toContain('ptk-very-secret-123');
  });

  it('rejects unknown keys and settings only auth writes', async () => {
    const env = { CALLCTL_CONFIG_DIR: tempConfigDir() };
    expect((await runCli(['config', 'set', 'colour', 'x'], { env })).code).toBe(2);
    expect((await runCli(['config', 'set', 'token'], { env, stdin: 'x' })).code).toBe(2);
    expect((await runCli(['config', 'set', 'base-url', 'ftp://x'], { env })).code).toBe(2);
  });

  it('asks for a missing value only on a TTY', async () => {
    const env = { CALLCTL_CONFIG_DIR: tempConfigDir() };
    const piped = await runCli(['config', 'set', 'flex-url'], { env });
    expect(piped.code).toBe(2);
    expect(piped.err).toMatch(/missing value for flex-url/);
    const tty = await runCli(['config', 'set', 'flex-url'], { env, tty: true, answers: ['http://flex.local'] });
    expect(tty.code).toBe(0);
    expect(tty.io.asked).toEqual(['flex-url']);
    const noInput = await runCli(['config', 'set', 'flex-url', '--no-input'], { env, tty: true });
    expect(noInput.code).toBe(2);
  });
});
