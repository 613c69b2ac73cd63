import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from './helpers/cli.js';
import { useSandbox } from './helpers/sandbox.js';

/*
 * Redaction touches only secrets: a URL's user name is no secret (only its password is), and
 * callctl's own words (its flags, variables, messages) are never taken for one.
 */

/** A service whose robots carry links with a user name, and one with a password. */
let service: Server;
let url: string;
beforeAll(async () => {
  service = createServer((req, res) => {
    const robots = ['ssh://git@host/robots.git', 'https://ops:hunter2-pw@host/x'].map((link, i) => ({
      RobotMethod: 'single',
      RobotID: `r-${i}`,
      RobotDescription: link,
      Link: link,
    }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 200, status: 'OK', data: robots }));
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => service.close(() => resolve())));

const env = () => ({ CALLCTL_BASE_URL: url, CALLCTL_TOKEN: 'tok-only-secrets', CALLCTL_CONFIG_DIR: tempConfigDir() });

describe("a URL's user name is no secret, its password is", () => {
  it('robots --json, api and the table keep ssh://git@host and hide https://ops:***@host', async () => {
    for (const argv of [
      ['robots', '--json'],
      ['api', 'GET', '/service/cloud/robot'],
      ['robots', '--wide'],
    ]) {
      const r = await runCli(argv, { env: env() });
      expect(r.code, r.err).toBe(0);
      expect(r.out, argv.join(' ')).toContain('ssh://git@host/robots.git');
      expect(r.out, argv.join(' ')).toContain('https://ops:***@host/x');
      expect(r.out).not.toContain('hunter2-pw');
    }
  });

  it('a base URL with a user name only: the name is shown, its password never', async () => {
    const { host } = new URL(url);
    const withUser = await runCli(['robots', '-v', '--base-url', `http://callctl@${host}`], { env: env() });
    expect(withUser.code, withUser.err).toBe(0);
    // The name is no secret: not hidden in the URL, nor taken out of callctl's own user agent.
    expect(withUser.err).toContain(`> GET http://callctl@${host}/service/cloud/robot`);
    expect(withUser.err).toMatch(/^> user-agent: callctl\//m);
    const withPassword = await runCli(['robots', '-v', '--base-url', `http://callctl:s3cret-pw@${host}`], {
      env: env(),
    });
    expect(withPassword.err).toContain(`> GET http://callctl:***@${host}/service/cloud/robot`);
    expect(withPassword.err + withPassword.out).not.toContain('s3cret-pw');
  });
});

describe("callctl's own words are never taken for a secret", () => {
  const sandbox = useSandbox();
  const login = (secret: string, extra: string[] = [], base = sandbox.sandbox.url) =>
    runCli([...extra, 'auth', 'login', '--base-url', base, '--app-key', 'k-1', '--app-secret-stdin', '--no-input'], {
      env: { CALLCTL_CONFIG_DIR: sandbox.configDir },
      stdin: secret,
    });
  const REJECTED =
    'the service rejected the APPKey (from --app-key) and APPSecret (from --app-secret-stdin): check them and log in again (`callctl auth login`)';

  it('a wrong secret `secret`: the flag --app-secret-stdin is named as it is, in the line and in --json', async () => {
    const r = await login('secret');
    expect(r.code, r.err).toBe(4);
    expect(r.err).toBe(`error: POST /service/cloud/auth: code 401: invalid APPKey or APPSecret: ${REJECTED}\n`);
    const json = await login('secret', ['--json']);
    expect(json.code).toBe(4);
    const error = JSON.parse(json.err.trim().split('\n').at(-1)!).error;
    expect(error.message).toBe(`POST /service/cloud/auth: code 401: invalid APPKey or APPSecret: ${REJECTED}`);
  });

  it("the secret in the service's words is still redacted, in every spelling, and callctl's words kept", async () => {
    // A service that says the secret back in its refusal: as is, JSON-escaped and percent-encoded.
    const echo = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const secret = (JSON.parse(body) as { APPSecret: string }).APPSecret;
        const status = `no app with secret ${secret} (${JSON.stringify(secret)}, ${encodeURIComponent(secret)})`;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 401, status, data: null }));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
      for (const secret of ['secret', 'se"cr/et stdin']) {
        for (const extra of [[], ['--json'], ['-v']]) {
          const r = await login(secret, extra, base);
          expect(r.code, r.err).toBe(4);
          const line = r.err.split('\n').find((l) => l.startsWith('error: '));
          // The service's words are outside text: its "secret" too is redacted (it spells the secret).
          expect(line, r.err).toMatch(
            /: code 401: no app with \*\*\* \*\*\* \("\*\*\*", \*\*\*\): the service rejected/,
          );
          expect(line).toContain(REJECTED);
          for (const form of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])
            expect(r.err.replaceAll(REJECTED, '').replaceAll('--app-key', ''), form).not.toContain(form);
        }
      }
    } finally {
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
  });
});
