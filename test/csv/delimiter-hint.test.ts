import { beforeEach, describe, expect, it } from 'vitest';
import { delimiterHint } from '../../src/csv/delimiter-hint.js';
import { SEED, type Sandbox } from '../../src/sandbox/server.js';
import { useSandbox } from '../helpers/sandbox.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeIn } from '../reach/helpers.js';

describe('delimiterHint', () => {
  it('names the flag when another common delimiter splits a one-field header', () => {
    expect(delimiterHint(['callee;platform'], ',')).toBe(`; the file looks separated by ";": try --delimiter ';'`);
    expect(delimiterHint(['callee\tplatform'], ',')).toBe('; the file looks separated by tabs: try --delimiter tab');
    expect(delimiterHint(['callee,platform'], ';')).toBe(`; the file looks separated by ",": try --delimiter ','`);
    expect(delimiterHint(['callee'], ',')).toBe('');
    expect(delimiterHint(['callee', 'platform'], ',')).toBe('');
  });
});

describe('a semicolon-separated file', () => {
  let sandbox: Sandbox;
  let env: Record<string, string>;
  const fixture = useSandbox();
  beforeEach(() => {
    sandbox = fixture.sandbox;
    env = {
      ...fixture.env,
      CALLCTL_FLEX_URL: sandbox.flexUrl,
      CALLCTL_PUSH_TOKEN: sandbox.pushToken,
      CALLCTL_SIGN_KEY: sandbox.signKey,
      CALLCTL_SIGN_SECRET: sandbox.signSecret,
    };
  });
  const dir = tempDir();

  it('workflow update, push and template send suggest --delimiter, and read it with the flag', async () => {
    const contacts = writeIn(dir, 'contacts.csv', 'callee;platform\n+6281234567001;sms\n');
    const update = await runCli(
      ['workflow', 'update', '--workflow-id', SEED.workflowId, '--csv', contacts, '--dry-run'],
      { env },
    );
    expect(update.code).toBe(3);
    expect(update.err).toMatch(/missing required columns callee and platform .*try --delimiter ';'/);
    const fixed = await runCli(
      ['workflow', 'update', '--workflow-id', SEED.workflowId, '--csv', contacts, '--dry-run', '--delimiter', ';'],
      { env },
    );
    expect(fixed.code, fixed.err).toBe(0);

    const calls = writeIn(dir, 'calls.csv', 'caller_id;debt_amount\n+6281234567001;5\n');
    const push = await runCli(['push', '--csv', calls, '--dry-run'], { env });
    expect(push.code).toBe(3);
    expect(push.err).toMatch(/no caller_id column; the file looks separated by ";": try --delimiter ';'/);
    const pushed = await runCli(['push', '--csv', calls, '--delimiter', ';', '--yes'], { env });
    expect(pushed.code, pushed.err).toBe(0);
    expect(sandbox.state.received.pushes.at(-1)).toMatchObject({ caller_id: '+6281234567001' });

    const messages = writeIn(dir, 'messages.csv', 'channel_id;name\n+6281234567001;Budi\n');
    const template = await runCli(
      ['template', 'send', '--template-id', '7', '--channel', 'whatsapp', '--csv', messages, '--dry-run'],
      { env },
    );
    expect(template.code).toBe(3);
    expect(template.err).toMatch(/no channel_id column .*try --delimiter ';'/);
    const sent = await runCli(
      [
        'template',
        'send',
        '--template-id',
        '7',
        '--channel',
        'whatsapp',
        '--csv',
        messages,
        '--delimiter',
        ';',
        '--var',
        'date=2026-12-01',
        '--reply-url',
        'https://example.com/replies',
        '--dry-run',
      ],
      { env },
    );
    expect(sent.code, sent.err).toBe(0);

    const alone = await runCli(['push', '--caller-id', '+6281234567001', '--delimiter', ';', '--dry-run'], { env });
    expect(alone.code).toBe(2);
    expect(alone.err).toMatch(/--delimiter goes with --csv/);
  });
});
