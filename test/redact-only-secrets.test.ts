import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from './helpers/cli.js';

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
