import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox } from '../../src/sandbox/server.js';
import { runCli, type RunOptions } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let dir: string;

const fixture = useSandbox();
beforeEach(() => {
  sandbox = fixture.sandbox;
  dir = fixture.configDir;
});

const cli = (argv: string[], options: RunOptions = {}) =>
  runCli(argv, { ...options, env: { CALLCTL_CONFIG_DIR: dir, NO_COLOR: '1', ...options.env } });
const login = (profile: string) =>
  cli(['-p', profile, 'auth', 'login', '--base-url', sandbox.url, '--app-key', sandbox.appKey, '--app-secret-stdin'], {
    stdin: sandbox.appSecret,
  });

describe('config profiles', () => {
  it('lists every stored profile with its base URL and token state, and no secret', async () => {
    expect((await login('prod')).code).toBe(0);
    expect((await cli(['-p', 'test', 'config', 'set', 'base-url', 'https://test.example'])).code).toBe(0);
    const piped = await cli(['config', 'profiles', '--header']);
    expect(piped.code).toBe(0);
    const lines = piped.out
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(lines[0]).toEqual(['CURRENT', 'NAME', 'BASE URL', 'TOKEN']);
    // default is in use (nothing stored in it yet), then the stored ones by name.
    expect(lines.slice(1).map((l) => [l[0], l[1], l[2]])).toEqual([
      ['*', 'default', ''],
      ['', 'prod', sandbox.url],
      ['', 'test', 'https://test.example'],
    ]);
    expect(lines[2]![3]).toMatch(/^stored \d{4}-\d\d-\d\dT/);
    expect(lines[3]![3]).toBe('none');
    const token = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.prod.token as string;
    const json = await cli(['config', 'profiles', '--json']);
    expect(json.out).not.toContain(token);
    expect(JSON.parse(json.out)).toMatchObject({
      current: 'default',
      source: 'default',
      profiles: [
        { name: 'default' },
        { name: 'prod', token: 'stored', baseUrl: sandbox.url },
        { name: 'test', token: 'none' },
      ],
    });
  });
});

describe('config use', () => {
  it('makes a stored profile the default for every command; -p and CALLCTL_PROFILE still win', async () => {
    await login('prod');
    // Without a stored token in the profile used, robots stops at authentication (exit 4).
    const robotsIn = (extra: string[] = [], env: Record<string, string> = {}) =>
      cli([...extra, 'robots'], { env: { CALLCTL_BASE_URL: sandbox.url, ...env } });
    expect((await robotsIn()).code).toBe(4);
    const use = await cli(['config', 'use', 'prod']);
    expect(use.code).toBe(0);
    expect(use.err).toMatch(/profile prod is now the default/);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);

    const robots = await robotsIn();
    expect(robots.code, robots.err).toBe(0);
    expect(robots.out).toContain('rb-1001');
    expect(JSON.parse((await cli(['config', 'profiles', '--json'])).out)).toMatchObject({
      current: 'prod',
      source: 'config use',
    });
    expect((await robotsIn(['-p', 'default'])).code).toBe(4);
    expect((await robotsIn([], { CALLCTL_PROFILE: 'other' })).code).toBe(4);

    expect((await cli(['config', 'use', 'default'])).code).toBe(0);
    expect((await robotsIn()).code).toBe(4);
  });

  it('an unknown profile exits 2 naming the stored ones, and changes nothing', async () => {
    await login('prod');
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const r = await cli(['config', 'use', 'prdo']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'error: no profile "prdo"; profiles: prod (create one with `callctl -p prdo auth login` or `config set`)\n',
    );
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  });
});

describe('auth status --all', () => {
  it('checks every stored profile with the service: one row each, the worst exit code', async () => {
    expect((await login('prod')).code).toBe(0);
    expect((await login('test')).code).toBe(0);
    // A profile whose stored token the service no longer accepts, and one with no token at all.
    const file = join(dir, 'config.json');
    const store = JSON.parse(readFileSync(file, 'utf8'));
    store.profiles.stale = { ...store.profiles.test, token: 'expired-token-value' };
    store.profiles.empty = { 'base-url': sandbox.url };
    writeFileSync(file, JSON.stringify(store));
    const before = sandbox.state.counters.byRoute['GET /service/cloud/robot'] ?? 0;

    const r = await cli(['auth', 'status', '--all', '--header']);
    expect(r.code).toBe(4);
    const rows = r.out
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows[0]).toEqual(['PROFILE', 'BASE URL', 'TOKEN', 'SERVICE', 'PROBLEM']);
    expect(rows.slice(1).map((row) => [row[0], row[3]])).toEqual([
      ['empty', ''],
      ['prod', 'accepted'],
      ['stale', 'rejected'],
      ['test', 'accepted'],
    ]);
    expect(rows[1]![4]).toMatch(/no token for profile empty/);
    expect(rows[3]![4]).toMatch(/rejected/);
    expect(r.out).not.toContain('expired-token-value');
    // One request for each profile that has a token.
    expect((sandbox.state.counters.byRoute['GET /service/cloud/robot'] ?? 0) - before).toBe(3);

    const json = await cli(['auth', 'status', '--all', '--json']);
    expect(
      JSON.parse(json.out).map((s: { profile: string; accepted: boolean | null }) => [s.profile, s.accepted]),
    ).toEqual([
      ['empty', null],
      ['prod', true],
      ['stale', false],
      ['test', true],
    ]);

    const offline = await cli(['auth', 'status', '--all', '--offline']);
    expect(offline.code).toBe(4);
    expect((sandbox.state.counters.byRoute['GET /service/cloud/robot'] ?? 0) - before).toBe(6);
  });

  it('a profile the service cannot be reached for is exit 5 when every token is otherwise fine', async () => {
    await login('prod');
    const file = join(dir, 'config.json');
    const store = JSON.parse(readFileSync(file, 'utf8'));
    store.profiles.down = {
      ...store.profiles.prod,
      'base-url': 'http://127.0.0.1:9',
      'token-base-url': 'http://127.0.0.1:9',
    };
    writeFileSync(file, JSON.stringify(store));
    const r = await cli(['auth', 'status', '--all'], { env: { CALLCTL_TIMEOUT: '2' } });
    expect(r.code).toBe(5);
    expect(r.out).toMatch(/^down\t.*connection refused/m);
    expect(r.out).toMatch(/^prod\t.*\taccepted\t/m);
  });
});
