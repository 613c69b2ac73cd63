import { createConnection, createServer } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testIO } from '../helpers/io.js';
import { signNotification } from '../../src/hooks/outgoing.js';
import { sampleBody, type SampleType } from '../../src/hooks/samples.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { post, startServeHooks, tempDir } from './helpers.js';

const stops: Array<() => unknown> = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

async function serve(...args: Parameters<typeof startServeHooks>) {
  const s = await startServeHooks(...args);
  stops.push(() => s.stop());
  return s;
}

async function send(url: string, type: SampleType, key?: string, set: Record<string, unknown> = {}, secret?: string) {
  const body = { ...sampleBody(type), ...set };
  const req = await signNotification(type, body, { key, chatbot: secret ? { secret } : {} });
  return { res: await post(url, req.body, req.headers), body, req };
}

describe('serve-hooks: start-up', () => {
  it('refuses to start without a KEY unless --skip-verify, naming the ways to give one', async () => {
    const r = await runCli(['serve-hooks', '--port', '0', '--config-dir', tempConfigDir()]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no KEY.*--key, --key-file or CALLCTL_HOOK_KEYS.*--skip-verify/);
  });

  it.each([
    [['--fsync', '--key', 'k'], /--fsync needs --log/],
    [['--events', 'task.end,nope', '--key', 'k'], /--events: unknown type nope/],
    [['--path', 'no-slash', '--key', 'k'], /--path must start with \//],
    [['--forward-to', 'ftp://x', '--key', 'k'], /--forward-to: expected an http/],
    [['--on-bad-sign', 'maybe', '--key', 'k'], /maybe/],
    [['--port', '70000', '--key', 'k'], /expected a port/],
    [['--strict', '--skip-verify'], /--strict .* cannot be used with --skip-verify/],
    [['--max-age', '-1', '--key', 'k'], /max-age/],
  ])('%j is a usage error', async (args, message) => {
    const r = await runCli(['serve-hooks', '--port', '0', ...args, '--config-dir', tempConfigDir()]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('says so when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = String((blocker.address() as { port: number }).port);
    const r = await runCli(['serve-hooks', '--port', port, '--key', 'k', '--config-dir', tempConfigDir()]);
    blocker.close();
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/port is in use \(--port 0 picks a free one\)/);
  });

  it('takes keys from CALLCTL_HOOK_KEYS, --key-file and the profile, and never prints them', async () => {
    const configDir = tempConfigDir();
    expect(
      (
        await runCli(['config', 'set', 'hook-keys', '--stdin', '--config-dir', configDir], {
          stdin: 'profile-key-1,profile-key-2\n',
        })
      ).code,
    ).toBe(0);
    const fromProfile = await serve({}, testIO(), { configDir });
    expect((await send(fromProfile.url, 'task.end', 'profile-key-2')).res.status).toBe(200);
    expect(fromProfile.shown()[0]).toMatchObject({ verdict: 'verified', by: 'key 2' });

    const fromEnv = await serve({}, testIO({ env: { CALLCTL_HOOK_KEYS: 'env-key-1, env-key-2' } }), { configDir });
    expect((await send(fromEnv.url, 'task.end', 'env-key-2')).res.status).toBe(200);
    expect((await send(fromEnv.url, 'task.end', 'profile-key-1')).res.status).toBe(401); // env wins over the profile

    const file = join(tempDir(), 'keys.txt');
    writeFileSync(file, '# rotated 2026-11\nfile-key-new\nfile-key-old\n');
    const fromFile = await serve({ keyFile: file }, testIO({ env: { CALLCTL_HOOK_KEYS: 'env-key-1' } }), { configDir });
    expect((await send(fromFile.url, 'task.end', 'file-key-old')).res.status).toBe(200);
    expect(fromFile.shown()[0]).toMatchObject({ by: 'key 2' });
    for (const s of [fromProfile, fromEnv, fromFile]) {
      const printed = s.io.out() + s.io.err();
      for (const k of ['profile-key', 'env-key', 'file-key']) expect(printed).not.toContain(k);
    }
  });
});

describe('serve-hooks: output', () => {
  it('on a terminal: one line per event with ids, masked callee, verdict and key, retry count', async () => {
    const s = await serve({ key: ['k-old', 'k-new'] }, testIO({ tty: true }));
    const task = await send(s.url, 'task.end', 'k-new');
    await post(s.url, task.req.body, task.req.headers); // the service's retry
    await send(s.url, 'template.status', undefined, { callee: '+6281234567002' });
    await send(s.url, 'task.end', 'intruder');
    await s.stop();
    const lines = s.io.out().trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d  task\\.end .*plan ${task.body.PlanName}  task ${task.body.TaskID}.*✓ verified \\(key 2\\)`,
      ),
    );
    expect(lines[0]).not.toMatch(/retry/);
    expect(lines[1]).toMatch(/task\.end .*retry 1/);
    expect(lines[2]).toMatch(/template\.status .*callee \+62\*+7002.*delivery.*unsigned/);
    expect(lines[2]).not.toContain('+6281234567002');
    expect(lines[3]).toMatch(/✗ REJECTED: Sign matches no key.*answered 401/);
    expect(s.io.err()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(s.io.err()).toMatch(/stopped: 4 events \(1 retry, 1 rejected\)/);
  });

  it('on a terminal: control characters from a request (ESC, BEL, a line break) are shown as text, never sent to the terminal', async () => {
    const s = await serve({ key: ['k'] }, testIO({ tty: true }));
    await post(s.url, JSON.stringify({ TaskID: 'T-\u001b]0;pwned\u0007X', Sign: '0'.repeat(32), PlanName: 'P\nQ' }), {
      'content-type': 'application/json',
    });
    await s.stop();
    const lines = s.io.out().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(lines[0]).toContain('task T-\\x1b]0;pwned\\x07X');
  });

  it('piped: NDJSON on stdout, --events filters what is shown (all is recorded), --show-numbers', async () => {
    const log = join(tempDir(), 'events.ndjson');
    const s = await serve({ key: ['k'], events: 'template.status', showNumbers: true, log });
    await send(s.url, 'task.end', 'k');
    await send(s.url, 'template.status', undefined, { callee: '+6281234567002' });
    await s.stop();
    const shown = s.shown();
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({
      type: 'template.status',
      callee: '+6281234567002',
      verdict: 'unsigned',
      retry: 0,
      httpStatus: 200,
    });
    const { readRecords } = await import('./helpers.js');
    expect(readRecords(log).map((r) => r.type)).toEqual(['task.end', 'template.status']);
  });

  it('never records or shows a header named like a credential (X-Api-Key, X-Auth-Token...), whatever the sender calls it', async () => {
    const log = join(tempDir(), 'events.ndjson');
    const s = await serve({ key: ['k'], log });
    const secrets = {
      'x-api-key': 'APIKEYSECRET-1',
      'x-auth-token': 'AUTHTOKEN-2',
      'x-webhook-secret': 'HOOKSECRET-3',
      'x-signature': 'SIGVALUE-4',
    };
    const req = await signNotification('task.end', sampleBody('task.end'), { key: 'k' });
    const answer = await post(s.url, req.body, { ...req.headers, 'x-request-id': 'visible-id', ...secrets });
    expect(answer.status).toBe(200);
    await s.stop();
    const text = (await import('node:fs')).readFileSync(log, 'utf8');
    expect(text).toContain('visible-id');
    const shown = await runCli(['hooks', 'show', '1', '--log', log], { env: { CALLCTL_CONFIG_DIR: tempConfigDir() } });
    expect(shown.code, shown.err).toBe(0);
    for (const value of Object.values(secrets)) {
      expect(text).not.toContain(value);
      expect(shown.out + shown.err + s.io.out() + s.io.err()).not.toContain(value);
    }
  });

  it('with --skip-verify says so on every event line', async () => {
    const s = await serve({ skipVerify: true }, testIO({ tty: true }));
    await send(s.url, 'task.end', 'any');
    await send(s.url, 'workflow.api_push');
    await s.stop();
    const lines = s.io.out().trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toContain('[--skip-verify]');
    expect(s.io.err()).toMatch(/--skip-verify: plan and task Sign are NOT checked/);
  });

  it('refused requests are messages on stderr, never events on stdout', async () => {
    const s = await serve({ key: ['k'] });
    expect((await post(s.url, 'nope', { 'content-type': 'text/plain' })).status).toBe(415);
    await s.stop();
    expect(s.shown()).toEqual([]);
    expect(s.io.err()).toMatch(/answered 415 to POST \/ from 127\.0\.0\.1: content type must be application\/json/);
  });

  it('every line on stderr starts with its time, on a terminal or not (the inspector beside it too)', async () => {
    for (const tty of [false, true]) {
      const log = join(tempDir(), 'events.ndjson');
      const s = await serve({ skipVerify: true, log, ui: true, uiPort: 0 }, testIO({ tty }));
      expect((await post(s.url, 'nope', { 'content-type': 'text/plain' })).status).toBe(415);
      expect((await post(s.url, '{}', {}, 'PUT')).status).toBe(405);
      await s.stop();
      const lines = s.io.err().trimEnd().split('\n');
      // listening, --skip-verify, the inspector, two refusals, stopping, stopped
      expect(lines.length).toBeGreaterThanOrEqual(7);
      for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \S/);
    }
  });

  it('never prints the chatbot secret or the X-Service-Sign', async () => {
    const secret = 'chatbot-secret-xyz';
    const s = await serve({ key: ['k'] }, testIO({ env: { CALLCTL_CHATBOT_SECRET: secret } }));
    const { req } = await send(s.url, 'chatbot.transfer', undefined, {}, secret);
    await s.stop();
    expect(s.shown()[0]).toMatchObject({ type: 'chatbot.transfer', verdict: 'verified', by: 'secret' });
    const printed = s.io.out() + s.io.err();
    expect(printed).not.toContain(secret);
    expect(printed).not.toContain(req.headers['x-service-sign']);
  });
});

describe('serve-hooks: a known secret in a body', () => {
  it('is redacted in what it prints, and kept as it came in the log (the body is the sender’s data)', async () => {
    const key = 'hk-Secret-77aa';
    const log = join(tempDir(), 'events.ndjson');
    const s = await serve({ key: [key], log });
    const req = await signNotification('task.end', { TaskID: 'T-1', TaskName: `about ${key} again` }, { key });
    expect((await post(`${s.url}/`, req.body, req.headers)).status).toBe(200);
    expect(await s.stop()).toBe(0);
    expect(s.io.out()).toContain('about *** again');
    expect(s.io.out() + s.io.err()).not.toContain(key);
    expect(readFileSync(log, 'utf8')).toContain(`about ${key} again`);
  });
});

describe('serve-hooks: every limit has its flag', () => {
  it('--max-body-kib, --max-header-kib and --keep-alive-timeout hold as given', async () => {
    const s = await serve({ key: ['k'], maxBodyKib: 1, maxHeaderKib: 1, keepAliveTimeout: 0.3 });
    const atCap = Buffer.alloc(1024, 0x20);
    atCap.write('{}');
    expect((await post(`${s.url}/`, atCap)).status).toBe(200);
    expect((await post(`${s.url}/`, Buffer.concat([atCap, Buffer.from(' ')]))).status).toBe(413);
    expect(
      (await post(`${s.url}/`, '{}', { 'content-type': 'application/json', 'x-big': 'a'.repeat(1500) })).status,
    ).toBe(431);
    // An idle keep-alive connection is closed after 0.3 s.
    const { port } = new URL(s.url);
    const socket = createConnection(Number(port), '127.0.0.1');
    const started = Date.now();
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    await new Promise((r) => socket.on('close', r));
    expect(answer).toMatch(/^HTTP\/1.1 200 /);
    expect(Date.now() - started).toBeLessThan(5_000); // Node's default keeps it 5 s
  });

  it.each([
    ['--max-body-kib', '0'],
    ['--max-header-kib', '2.5'],
    ['--keep-alive-timeout', '0'],
    ['--sign-timeout', '1e9'],
    ['--sign-concurrency', '0'],
  ])('%s %s is refused with exit 2 and the allowed range', async (flag, value) => {
    const r = await runCli(['serve-hooks', '--key', 'k', flag, value], {
      env: { CALLCTL_CONFIG_DIR: tempConfigDir() },
    });
    expect(r.code).toBe(2);
    expect(r.err).toContain(flag);
  });
});
