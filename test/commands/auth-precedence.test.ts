/**
 * The credentials a run was given are the ones it uses (issue 36 item 4): after `auth login`, an
 * APPSecret in the environment (with the profile's or the environment's APPKey) wins over the
 * stored token, as GH_TOKEN does for gh: the run gets a token with them, in memory, and a wrong
 * one fails now with exit 4 naming the variable, not the night the stored token expires.
 * CALLCTL_TOKEN keeps its meaning. `-v` and `auth status` say what is used, never the secret.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli, type RunOptions } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

const fixture = useSandbox();

const cli = (argv: string[], options: RunOptions = {}) =>
  runCli(argv, { ...options, env: { ...fixture.env, CALLCTL_TOKEN: '', CALLCTL_APP_KEY: '', ...options.env } });
const stored = () =>
  JSON.parse(readFileSync(join(fixture.env.CALLCTL_CONFIG_DIR!, 'config.json'), 'utf8')).profiles.default;
const tokenRequests = () => fixture.sandbox.requests.filter((r) => r.path === '/service/cloud/auth').length;

beforeEach(async () => {
  const login = await cli(['auth', 'login', '--app-key', fixture.sandbox.appKey, '--app-secret-stdin'], {
    stdin: fixture.sandbox.appSecret,
  });
  expect(login.code, login.err).toBe(0);
});

describe('credentials in the environment win over a stored token', () => {
  it('a wrong CALLCTL_APP_SECRET after auth login: exit 4, naming the variable; the stored token is not used', async () => {
    const before = stored();
    const r = await cli(['robots'], { env: { CALLCTL_APP_SECRET: 'wrong-secret-1' } });
    expect(r.code, r.err).toBe(4);
    expect(r.err).toContain(
      "the service rejected the APPKey (from profile default's app-key) and APPSecret (from CALLCTL_APP_SECRET): check CALLCTL_APP_SECRET",
    );
    expect(r.err).not.toContain('wrong-secret-1');
    // So is a file it names, and the environment's APPKey is named when it is the one given.
    const file = join(tempDir(), 'secret');
    writeFileSync(file, 'wrong-secret-2\n');
    const fromFile = await cli(['robots'], {
      env: { CALLCTL_APP_SECRET_FILE: file, CALLCTL_APP_KEY: fixture.sandbox.appKey },
    });
    expect(fromFile.code).toBe(4);
    expect(fromFile.err).toContain('check CALLCTL_APP_KEY and CALLCTL_APP_SECRET_FILE');
    // Nothing was written: the profile's token is as auth login left it.
    expect(stored()).toEqual(before);
  });

  it('the right secret: a token is got for the run, in memory; -v says which credentials, never the secret', async () => {
    const before = stored();
    const asked = tokenRequests();
    const r = await cli(['robots', '-v'], { env: { CALLCTL_APP_SECRET: fixture.sandbox.appSecret } });
    expect(r.code, r.err).toBe(0);
    expect(tokenRequests()).toBe(asked + 1);
    expect(r.err).toContain(
      "* credentials: the APPKey from profile default's app-key and the APPSecret from CALLCTL_APP_SECRET: a token is got with them for this run, kept in memory, not stored; profile default's stored token is set aside",
    );
    expect(r.err).not.toContain(fixture.sandbox.appSecret);
    expect(stored()).toEqual(before);
    // Without them, the stored token, and -v says so.
    const plain = await cli(['robots', '-v']);
    expect(plain.code, plain.err).toBe(0);
    expect(plain.err).toContain(
      `* credentials: profile default's token (from auth login, obtained ${before['token-obtained-at']})`,
    );
    expect(tokenRequests()).toBe(asked + 1);
  });

  it('auth status says what a run would use, and checks it (exit 4 with a wrong secret)', async () => {
    const wrong = await cli(['auth', 'status'], { env: { CALLCTL_APP_SECRET: 'wrong-secret-3' } });
    expect(wrong.code).toBe(4);
    expect(wrong.out).toMatch(
      /a run uses\s+the APPKey from profile default's app-key and the APPSecret from CALLCTL_APP_SECRET/,
    );
    expect(wrong.err).toContain('check CALLCTL_APP_SECRET');
    const json = await cli(['auth', 'status', '--json'], { env: { CALLCTL_APP_SECRET: fixture.sandbox.appSecret } });
    expect(json.code, json.err).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ tokenSource: 'credentials in the environment', accepted: true });
    const profile = await cli(['auth', 'status', '--json']);
    expect(JSON.parse(profile.out)).toMatchObject({ tokenSource: 'profile', accepted: true });
    // auth token prints the token a run would use: a new one with the environment's credentials.
    const token = await cli(['auth', 'token'], { env: { CALLCTL_APP_SECRET: fixture.sandbox.appSecret } });
    expect(token.code, token.err).toBe(0);
    expect(token.out.trim()).not.toBe(stored().token);
    expect((await cli(['auth', 'token'], { env: { CALLCTL_APP_SECRET: 'wrong-secret-4' } })).code).toBe(4);
  });

  it('an APPKey in the environment without its secret does not borrow the stored token of another APPKey', async () => {
    const other = await cli(['robots'], { env: { CALLCTL_APP_KEY: 'another-app-key' } });
    expect(other.code, other.err).toBe(4);
    expect(other.err).toContain(
      "CALLCTL_APP_KEY is not the APPKey profile default's token was got with, and no APPSecret is given for it: set CALLCTL_APP_SECRET (or CALLCTL_APP_SECRET_FILE) too, or unset CALLCTL_APP_KEY",
    );
    expect(other.err).not.toContain('another-app-key');
    // The APPKey the login used: the stored token, as before.
    const same = await cli(['robots'], { env: { CALLCTL_APP_KEY: fixture.sandbox.appKey } });
    expect(same.code, same.err).toBe(0);
  });

  it('CALLCTL_TOKEN keeps its meaning: used as given, the credentials only renew it when it is rejected', async () => {
    const asked = tokenRequests();
    const r = await cli(['robots', '-v'], {
      env: { CALLCTL_TOKEN: fixture.sandbox.issueToken(), CALLCTL_APP_SECRET: 'wrong-secret-5' },
    });
    expect(r.code, r.err).toBe(0);
    expect(tokenRequests()).toBe(asked);
    expect(r.err).toContain(
      "* credentials: the token in CALLCTL_TOKEN (renewed with the APPKey from profile default's app-key and the APPSecret from CALLCTL_APP_SECRET if it is rejected)",
    );
  });
});
