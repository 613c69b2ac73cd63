/**
 * A push token or a template key refused by the service names where it came from and the fix that
 * works for that source (issue 23 item 2): an environment variable wins over the profile, so
 * logging in again or `config set` would not help.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { templateMessage } from '../helpers/template-send.js';

describe('a refused push token or template key names where it came from', () => {
  const fixture = useSandbox();
  it('CALLCTL_PUSH_TOKEN: set the right one there or unset it; a profile value: config set', async () => {
    const sb = fixture.sandbox;
    const env = { ...fixture.env, CALLCTL_FLEX_URL: sb.flexUrl, CALLCTL_PUSH_TOKEN: 'not-the-push-token' };
    const r = await runCli(['push', '--caller-id', '+6281234567301', '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      "refused: the push token (from CALLCTL_PUSH_TOKEN: set the right one in CALLCTL_PUSH_TOKEN, or unset it to use the profile's)",
    );
    const t = await runCli(['template', 'send', ...templateMessage('+6281234567302'), '--yes'], {
      env: { ...fixture.env, CALLCTL_SIGN_KEY: 'not-the-key', CALLCTL_SIGN_SECRET: sb.signSecret },
    });
    expect(t.code).toBe(1);
    expect(t.err).toContain(
      'refused: X-Service-Sign-Key (from CALLCTL_SIGN_KEY: set the right one in CALLCTL_SIGN_KEY',
    );
    expect(t.err).toContain('or the X-Service-Sign secret (from CALLCTL_SIGN_SECRET:');
    expect(r.err + t.err).not.toContain('not-the-');
  });
});
