/**
 * Issue 23 item 2: every error names what was used. A connection error names the address and
 * where it came from; the wrong scheme is one line saying which to use (exit 1, no retries); a
 * rejected token or credentials from the environment name the variable and a fix that works.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttps } from 'node:https';
import { createServer as createHttp, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempConfigDir } from '../helpers/cli.js';

const fx = useSandbox();
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A port nothing listens on (a server opened and closed). */
async function closedPort(): Promise<number> {
  const s = createHttp();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('a connection error names the address and where it came from', () => {
  it.each([
    ['--base-url', (url: string) => ({ argv: ['--base-url', url], env: {} }), 'the base URL, from --base-url'],
    ['CALLCTL_BASE_URL', (url: string) => ({ argv: [], env: { CALLCTL_BASE_URL: url } }), 'from CALLCTL_BASE_URL'],
  ])('from %s', async (_name, given, from) => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { argv, env } = given(url);
    const r = await runCli([...argv, 'robots'], { env: { ...fx.env, CALLCTL_BASE_URL: '', ...env } });
    expect(r.code).toBe(5);
    expect(r.err).toContain(`connection refused at ${url} (`);
    expect(r.err).toContain(from);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it("from the profile: names the profile's key", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const env = { CALLCTL_CONFIG_DIR: tempConfigDir(), CALLCTL_TOKEN: 'tok-1234' };
    expect((await runCli(['-p', 'staging', 'config', 'set', 'base-url', url], { env })).code).toBe(0);
    const r = await runCli(['-p', 'staging', 'robots'], { env });
    expect(r.code).toBe(5);
    expect(r.err).toContain(`connection refused at ${url} (the base URL, from profile staging's base-url;`);
  });

  it('a flex-route URL too', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await runCli(['push', '--caller-id', '+6281234567001', '--yes'], {
      env: { ...fx.env, CALLCTL_FLEX_URL: url, CALLCTL_PUSH_TOKEN: 'ptk-abcdef' },
    });
    expect(r.code).toBe(5);
    expect(r.err).toMatch(/connection refused \(the flex-route URL, from CALLCTL_FLEX_URL; is it running/);
  });
});

describe('the wrong scheme: one line saying which to use, exit 1, no retries', () => {
  it('https:// against a plain HTTP server', async () => {
    const https = fx.sandbox.url.replace('http://', 'https://');
    const r = await runCli(['robots'], { env: { ...fx.env, CALLCTL_BASE_URL: https } });
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `error: GET /service/cloud/robot: ${https} answers in plain HTTP, not HTTPS: use ${fx.sandbox.url} (the base URL, from CALLCTL_BASE_URL); nothing was sent\n`,
    );
    expect(r.io.slept).toEqual([]);
  });

  it('http:// against a TLS server', async () => {
    const tls = createHttps(
      {
        key: readFileSync(new URL('../../fixtures/tls/localhost-test.key', import.meta.url)),
        cert: readFileSync(new URL('../../fixtures/tls/localhost-test.crt', import.meta.url)),
      },
      (_req, res) => res.end('{}'),
    );
    servers.push(tls);
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    const origin = `127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const r = await runCli(['--base-url', `http://${origin}`, 'robots'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `error: GET /service/cloud/robot: http://${origin} speaks HTTPS (TLS), not plain HTTP: use https://${origin} (the base URL, from --base-url); nothing was sent\n`,
    );
    expect(r.io.slept).toEqual([]);
  });

  it('a server that merely closes the connection is not taken for TLS', async () => {
    const rude = createHttp();
    rude.on('connection', (socket) => socket.destroy());
    servers.push(rude);
    await new Promise<void>((r) => rude.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(rude.address() as AddressInfo).port}`;
    const r = await runCli(['robots'], { env: { ...fx.env, CALLCTL_BASE_URL: url } });
    expect(r.code).toBe(5);
    expect(r.err).toContain('connection closed by the server before it answered');
  });
});

describe('a token or credentials from the environment: the variable, and a fix that works', () => {
  it('a rejected CALLCTL_TOKEN is not "log in again" (the environment wins over the login)', async () => {
    const r = await runCli(['robots'], { env: { ...fx.env, CALLCTL_TOKEN: 'not-a-token' } });
    expect(r.code).toBe(4);
    expect(r.err).toContain(
      'the token in CALLCTL_TOKEN was rejected: set CALLCTL_TOKEN to a current token, or unset it',
    );
    expect(r.err).not.toMatch(/: the token was rejected; log in again/);
  });

  it('rejected credentials name where each came from', async () => {
    const env = {
      ...fx.env,
      CALLCTL_TOKEN: '',
      CALLCTL_APP_KEY: fx.sandbox.appKey,
      CALLCTL_APP_SECRET: 'not-the-secret',
    };
    const r = await runCli(['robots'], { env });
    expect(r.code).toBe(4);
    expect(r.err).toContain(
      'the service rejected the APPKey (from CALLCTL_APP_KEY) and APPSecret (from CALLCTL_APP_SECRET): check CALLCTL_APP_KEY and CALLCTL_APP_SECRET',
    );
    const login = await runCli(['auth', 'login', '--app-key', 'k-1', '--app-secret-stdin'], {
      env: { ...fx.env, CALLCTL_TOKEN: '' },
      stdin: 'wrong-secret',
    });
    expect(login.code).toBe(4);
    expect(login.err).toContain(
      'rejected the APPKey (from --app-key) and APPSecret (from --app-secret-stdin): check them and log in again',
    );
  });
});
