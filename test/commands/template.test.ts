import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultServiceSign } from '../../src/signing/sign.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { TEMPLATE_MAGIC_RECIPIENTS } from '../../src/sandbox/routes/template.js';
import { runCli, type RunOptions } from '../helpers/cli.js';
import { received, tempDir, useSendSandbox, writeIn } from '../reach/helpers.js';
import { templateMessage } from '../helpers/template-send.js';

let sandbox: Sandbox;
let env: Record<string, string>;
const PATH = '/api/v1/template/unitcast';
const SIGNER = fileURLToPath(new URL('../../fixtures/send/hmac-sign.mjs', import.meta.url));

useSendSandbox('template', (s, e) => {
  sandbox = s;
  env = e;
});

const MESSAGE = templateMessage();
const cli = (argv: string[], options: RunOptions = {}) =>
  runCli(['template', 'send', ...argv], { ...options, env: { ...env, ...options.env } });

describe('template send', () => {
  it('sends the body of the spec, signed with the default scheme, and shows the answer', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await cli([...MESSAGE, '--user-id', 'u-42', '--yes']);
    expect(r.code, r.err).toBe(0);
    const [msg] = sandbox.state.received.templates;
    expect(msg).toMatchObject({
      template_id: 7,
      channel: 'whatsapp',
      channel_id: '+6281234567001',
      user_id: 'u-42',
      variable: { date: '2026-12-01', name: 'Budi' },
      custom: JSON.stringify({ reply_url: 'https://example.com/replies' }),
      reply_url: 'https://example.com/replies',
    });
    expect(msg!.timestamp).toBeGreaterThanOrEqual(before);
    expect(msg!.timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    const [req] = received(sandbox, PATH);
    expect(req!.headers['x-service-sign-key']).toBe(sandbox.signKey);
    expect(req!.headers['x-service-sign']).toBe(defaultServiceSign(req!.body, sandbox.signSecret));
    expect(r.out).toContain(`request_id\t${msg!.request_id}`);
    expect(r.out).toContain(`task_id\t${msg!.task_id}`);
    expect(r.out).toMatch(/^code\t200$/m);
  });

  it('user_id may be empty; --json prints the answer object', async () => {
    const r = await cli([...MESSAGE, '--yes', '--json']);
    expect(r.code, r.err).toBe(0);
    const answer = JSON.parse(r.out);
    const msg = sandbox.state.received.templates[0]!;
    expect(msg.user_id).toBe('');
    expect(answer).toEqual({
      request_id: msg.request_id,
      code: 200,
      message: 'success',
      data: { task_id: msg.task_id },
    });
  });

  it('--signature is sent as is: with --timestamp, the body a dry run prints can be signed ahead', async () => {
    const dry = await cli([...MESSAGE, '--timestamp', '1764547200', '--dry-run', '--json']);
    expect(dry.code, dry.err).toBe(0);
    const body = JSON.stringify(JSON.parse(dry.out).requests[0].body);
    const signature = defaultServiceSign(body, sandbox.signSecret);
    const r = await cli([...MESSAGE, '--timestamp', '1764547200', '--signature', signature, '--yes'], {
      env: { CALLCTL_SIGN_SECRET: '' },
    });
    expect(r.code, r.err).toBe(0);
    expect(received(sandbox, PATH)[0]!.body).toBe(body);
    expect(sandbox.state.received.templates[0]!.timestamp).toBe(1764547200);
  });

  it('a rejected signature exits 1 with the service message and request id', async () => {
    const r = await cli([...MESSAGE, '--signature', 'deadbeef', '--yes']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('X-Service-Sign does not match the body');
    expect(r.err).toMatch(/request_id req-[0-9a-f]+/);
    expect(sandbox.state.received.templates).toHaveLength(0);
  });

  it('--sign-command gets the exact body on stdin and its output is the signature', async () => {
    const secretFile = writeIn(tempDir(), 'secret', `${sandbox.signSecret}\n`);
    const r = await cli([...MESSAGE, '--sign-command', `"${process.execPath}" "${SIGNER}" "${secretFile}"`, '--yes'], {
      env: { CALLCTL_SIGN_SECRET: '' },
    });
    expect(r.code, r.err).toBe(0);
    expect(sandbox.state.received.templates).toHaveLength(1);
  });

  it.each([
    ['exits non-zero', 'echo oops >&2; exit 3', /--sign-command exited with code 3/],
    ['prints nothing', 'cat >/dev/null', /--sign-command printed nothing/],
  ])('a --sign-command that %s is a usage error (2), nothing sent', async (_what, command, message) => {
    const r = await cli([...MESSAGE, '--sign-command', command, '--yes']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toContain('oops');
    expect(sandbox.requests).toHaveLength(0);
  });

  it('the default secret can come from --sign-secret-file or CALLCTL_SIGN_SECRET_FILE', async () => {
    const file = writeIn(tempDir(), 'secret', `${sandbox.signSecret}\n`);
    const a = await cli([...MESSAGE, '--sign-secret-file', file, '--yes'], { env: { CALLCTL_SIGN_SECRET: '' } });
    expect(a.code, a.err).toBe(0);
    // The same message again, on purpose: past the never-twice ledger.
    const b = await cli([...MESSAGE, '--yes', '--call-again'], {
      env: { CALLCTL_SIGN_SECRET: '', CALLCTL_SIGN_SECRET_FILE: file },
    });
    expect(b.code, b.err).toBe(0);
    expect(sandbox.state.received.templates).toHaveLength(2);
    const wrong = await cli([...MESSAGE, '--yes', '--call-again'], { env: { CALLCTL_SIGN_SECRET: 'not-the-secret' } });
    expect(wrong.code).toBe(1);
    expect(wrong.err).not.toContain('not-the-secret');
  });

  it('no signature source, or no sign key, is a usage error (2) naming the ways', async () => {
    const noSign = await cli([...MESSAGE, '--yes'], { env: { CALLCTL_SIGN_SECRET: '' } });
    expect(noSign.code).toBe(2);
    expect(noSign.err).toMatch(/--signature, --sign-command CMD, --sign-secret-file FILE, CALLCTL_SIGN_SECRET/);
    const noKey = await cli([...MESSAGE, '--yes'], { env: { CALLCTL_SIGN_KEY: '' } });
    expect(noKey.code).toBe(2);
    expect(noKey.err).toMatch(/sign-key.*CALLCTL_SIGN_KEY/);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('missing date or name is invalid input (3); a missing --template-id or --channel-id is usage (2)', async () => {
    const noName = await cli([
      '--template-id',
      '7',
      '--channel',
      'whatsapp',
      '--channel-id',
      '+62812',
      '--var',
      'date=2026-12-01',
      '--reply-url',
      'https://e.com/r',
      '--yes',
    ]);
    expect(noName.code).toBe(3);
    expect(noName.err).toContain('variable name is required');
    const noId = await cli(MESSAGE.slice(2).concat('--yes'));
    expect(noId.code).toBe(2);
    expect(noId.err).toContain('--template-id');
    const badReply = await cli([...MESSAGE.slice(0, -1), 'not a url', '--yes']);
    expect(badReply.code).toBe(3);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('--dry-run prints the exact request with key and signature redacted, and sends nothing', async () => {
    const r = await cli([...MESSAGE, '--timestamp', '1764547200', '--dry-run']);
    expect(r.code, r.err).toBe(0);
    expect(sandbox.requests).toHaveLength(0);
    expect(r.out).toContain(`POST ${sandbox.url}${PATH}`);
    expect(r.out).toContain('x-service-sign-key: ***');
    expect(r.out).toContain('x-service-sign: ***');
    expect(r.out).toContain(
      '{"template_id":7,"timestamp":1764547200,"channel":"whatsapp","channel_id":"+6281234567001","user_id":"","variable":{"date":"2026-12-01","name":"Budi"},"custom":"{\\"reply_url\\":\\"https://example.com/replies\\"}"}',
    );
    expect(r.out + r.err).not.toContain(sandbox.signKey);
    expect(r.out + r.err).not.toContain(sandbox.signSecret);
  });

  it('--verbose redacts the key, the signature and the secret', async () => {
    const r = await cli([...MESSAGE, '--yes', '--verbose']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('> x-service-sign-key: ***');
    expect(r.err).toContain('> x-service-sign: ***');
    expect(r.err).not.toContain(sandbox.signKey);
    expect(r.err).not.toContain(sandbox.signSecret);
  });

  it('asks on a terminal, showing template, recipient and variables; needs --yes without one', async () => {
    const declined = await cli(MESSAGE, { tty: true, answers: [false] });
    expect(declined.code).toBe(130);
    expect(declined.err).toMatch(/template_id\s+7/);
    expect(declined.err).toMatch(/channel_id\s+\+6281234567001/);
    expect(declined.err).toContain('"name":"Budi"');
    const noTty = await cli(MESSAGE);
    expect(noTty.code).toBe(2);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('never twice: a connection dropped after the body was read exits 5, says the message may have gone out, one request', async () => {
    sandbox.setFaults({ dropAfterBody: 1 });
    const r = await cli([...MESSAGE, '--yes']);
    expect(r.code).toBe(5);
    expect(r.err).toContain('the message MAY HAVE BEEN SENT');
    expect(r.err).toMatch(/template 7 to whatsapp channel_id \+6281234567001, timestamp \d+/);
    expect(received(sandbox, PATH)).toHaveLength(1);
    expect(received(sandbox, PATH)[0]!.outcome).toBe('dropped-after-body');
  });
});

describe('template send, then status callbacks from the sandbox (--notify-url)', () => {
  it('an accepted message moves through wait, send, delivery, read (then replied), or wait, send, failed', async () => {
    const bodies: Array<{ waba_task_id: string; status: string }> = [];
    const hooks = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(text));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    const notifyUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`;
    // A status step is 5 s of simulated time: 50 ms here, so that one message's callbacks (each
    // delivered on its own) cannot overtake each other on loopback.
    const sb = await startSandbox({ notifyUrl, timeScale: 100 });
    try {
      const e = { ...env, CALLCTL_BASE_URL: sb.url, CALLCTL_SIGN_KEY: sb.signKey, CALLCTL_SIGN_SECRET: sb.signSecret };
      const taskIds: string[] = [];
      for (const userId of ['u-ordinary', TEMPLATE_MAGIC_RECIPIENTS.replied, TEMPLATE_MAGIC_RECIPIENTS.failed]) {
        const r = await runCli(['template', 'send', ...MESSAGE, '--user-id', userId, '--yes', '--json'], { env: e });
        expect(r.code, r.err).toBe(0);
        taskIds.push(JSON.parse(r.out).data.task_id);
      }
      const statuses = (id: string) => bodies.filter((b) => b.waba_task_id === id).map((b) => b.status);
      for (let i = 0; i < 300 && bodies.length < 12; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(statuses(taskIds[0]!)).toEqual(['wait', 'send', 'delivery', 'read']);
      expect(statuses(taskIds[1]!)).toEqual(['wait', 'send', 'delivery', 'read', 'replied']);
      expect(statuses(taskIds[2]!)).toEqual(['wait', 'send', 'failed']);
    } finally {
      await sb.close();
      hooks.close();
    }
  });
});

describe('the sign secret from the profile or a masked prompt', () => {
  const withoutSecret = () => ({ ...env, CALLCTL_SIGN_SECRET: '' });

  it('config set sign-secret --stdin stores it (never from the command line); template send then signs with it', async () => {
    const onCommandLine = await runCli(['config', 'set', 'sign-secret', sandbox.signSecret], { env: withoutSecret() });
    expect(onCommandLine.code).toBe(2);
    const set = await runCli(['config', 'set', 'sign-secret', '--stdin'], {
      env: withoutSecret(),
      stdin: `${sandbox.signSecret}\n`,
    });
    expect(set.code, set.err).toBe(0);
    const list = await runCli(['config', 'list'], { env: withoutSecret() });
    expect(list.out).toMatch(/^sign-secret\t\S+\tprofile$/m);
    expect(list.out).not.toContain(sandbox.signSecret);

    const r = await cli([...MESSAGE, '--yes'], { env: withoutSecret() });
    expect(r.code, r.err).toBe(0);
    const [req] = received(sandbox, PATH);
    expect(req!.headers['x-service-sign']).toBe(defaultServiceSign(req!.body, sandbox.signSecret));
    const verbose = await cli([...MESSAGE, '--yes', '-v'], { env: withoutSecret() });
    expect(`${verbose.out}${verbose.err}`).not.toContain(sandbox.signSecret);
  });

  it('with nothing given, a terminal asks for it masked; without one the error says how to store it', async () => {
    const asked = await cli([...MESSAGE, '--yes'], { env: withoutSecret(), tty: true, answers: [sandbox.signSecret] });
    expect(asked.code, asked.err).toBe(0);
    expect(asked.io.asked).toEqual(['X-Service-Sign secret']);
    const [req] = received(sandbox, PATH);
    expect(req!.headers['x-service-sign']).toBe(defaultServiceSign(req!.body, sandbox.signSecret));
    expect(asked.out + asked.err).not.toContain(sandbox.signSecret);

    const none = await cli([...MESSAGE, '--yes'], { env: withoutSecret() });
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/missing X-Service-Sign: .*config set sign-secret --stdin/);
  });
});
