import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sampleBody } from '../../src/hooks/samples.js';
import { testIO } from '../helpers/io.js';
import { taskSign } from '../../src/signing/sign.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { post, startServeHooks, tempDir, until } from './helpers.js';
import { runUi } from './ui-helpers.js';

/*
 * Forwards (serve-hooks --forward-to), replays (hooks replay) and the inspector's "send again" are
 * signed as Standard Webhooks defines; the app behind verifies them with the standardwebhooks
 * package, as an app would.
 */

const KEY = 'signed-forwards-key';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const task = (id: string) => JSON.stringify({ TaskID: id, TaskName: 'signed', Sign: taskSign(id, KEY) });
const open: Array<() => unknown> = [];
afterEach(async () => {
  while (open.length) await open.pop()!();
});

/** A file holding `text` (a secret file ends with a newline, as an editor leaves it). */
function file(text: string): string {
  const path = join(tempDir(), 'forward-secret');
  writeFileSync(path, `${text}\n`, { mode: 0o600 });
  return path;
}

/** The app behind: what each request carried; answers the statuses of `answers` in turn, then 200. */
async function app(answers: number[] = []) {
  const got: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ body, headers: req.headers });
      res.writeHead(answers.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push(() => new Promise((r) => server.close(r)));
  return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

/** The headers as the standardwebhooks package takes them. */
const plain = (h: IncomingHttpHeaders) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));
const verify = (secret: string, body: string, headers: IncomingHttpHeaders) =>
  new Webhook(secret).verify(body, plain(headers));

async function receiver(forwardTo: string, env: Record<string, string> = {}) {
  const log = join(tempDir(), 'events.ndjson');
  const run = await startServeHooks({ key: [KEY], forwardTo, log, forwardSecretFile: file(SECRET) }, testIO({ env }));
  open.push(() => run.stop());
  return { ...run, log };
}

describe('signed forwards', () => {
  it('a forward verifies with the standardwebhooks package; a forged, tampered or stale one does not', async () => {
    const target = await app();
    const run = await receiver(target.url);
    // A sender's own webhook-* headers never reach the app.
    const forged = { 'webhook-id': 'evil', 'webhook-timestamp': '1', 'webhook-signature': 'v1,Zm9yZ2Vk' };
    expect((await post(run.url, task('T-SIGNED'), { 'content-type': 'application/json', ...forged })).status).toBe(200);
    await until(() => target.got.length === 1);
    const { body, headers } = target.got[0]!;
    expect(verify(SECRET, body, headers)).toMatchObject({ TaskID: 'T-SIGNED' });
    expect(headers['webhook-id']).toBe(headers['x-callctl-event-id']);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    // Forged: another secret; the body, the id or the time changed after signing.
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    expect(() => verify(other, body, headers)).toThrow(/No matching signature/);
    expect(() => verify(SECRET, body.replace('T-SIGNED', 'T-FORGED'), headers)).toThrow(/No matching signature/);
    expect(() => verify(SECRET, body, { ...headers, 'webhook-id': 'evil' })).toThrow(/No matching signature/);
    const later = String(Number(headers['webhook-timestamp']) + 1);
    expect(() => verify(SECRET, body, { ...headers, 'webhook-timestamp': later })).toThrow(/No matching signature/);
    // Stale: the same forward sent again six minutes later (past the package's five).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 6 * 60_000 });
    try {
      expect(() => verify(SECRET, body, headers)).toThrow(/too old/);
    } finally {
      vi.useRealTimers();
    }
    expect(run.io.err()).toContain(`forwarding to ${new URL(target.url).origin} signed`);
    expect(run.io.err() + run.io.out()).not.toContain(SECRET.slice('whsec_'.length));
  });

  it('each attempt is signed with its own time and the same webhook-id', async () => {
    const target = await app([503]);
    const run = await receiver(target.url);
    expect((await post(run.url, task('T-RETRY'))).status).toBe(200);
    await until(() => target.got.length === 2, 15_000);
    const [first, second] = target.got;
    for (const { body, headers } of target.got)
      expect(verify(SECRET, body, headers)).toMatchObject({ TaskID: 'T-RETRY' });
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect([first!.headers['x-callctl-attempt'], second!.headers['x-callctl-attempt']]).toEqual(['1', '2']);
  });

  it('an event callctl did not verify goes unsigned: the app that verifies drops it', async () => {
    const target = await app();
    const run = await receiver(target.url); // no chatbot secret: chatbot events are unverified
    const forged = { 'content-type': 'application/json', 'webhook-id': 'evil', 'webhook-signature': 'v1,Zm9yZ2Vk' };
    const body = JSON.stringify(sampleBody('chatbot.transfer'));
    expect((await post(run.url, body, forged)).status).toBe(200);
    await until(() => target.got.length === 1);
    const { headers } = target.got[0]!;
    expect(headers['x-callctl-verdict']).toBe('unverified');
    expect(Object.keys(headers).filter((h) => h.startsWith('webhook-'))).toEqual([]);
    expect(() => verify(SECRET, target.got[0]!.body, headers)).toThrow(/Missing required headers/);
  });

  it('hooks replay and the inspector send again signed as the forward was: the same webhook-id', async () => {
    const target = await app();
    const secretFile = file(SECRET);
    const log = join(tempDir(), 'events.ndjson');
    const run = await runUi(
      ['serve-hooks', '--port', '0', '--ui', '--ui-port', '0', '--log', log, '--forward-to', target.url],
      { CALLCTL_HOOK_KEYS: KEY, CALLCTL_FORWARD_SECRET: SECRET },
    );
    open.push(() => run.child.kill());
    expect((await post(run.hooks!, task('T-AGAIN'))).status).toBe(200);
    await until(() => target.got.length === 1);
    const id = target.got[0]!.headers['webhook-id'];
    // The inspector's "send again" (the page's CSRF token, as the page sends it).
    const page = await post(run.ui, '', {}, 'GET');
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(page.body)![1]!;
    const n = String(target.got[0]!.headers['x-callctl-event']);
    const sent = await post(`${run.ui}api/events/${n}/send`, '{}', {
      'content-type': 'application/json',
      'x-csrf-token': csrf,
    });
    expect(sent.status).toBe(200);
    // hooks replay, the secret from a file this time.
    const replay = await runCli([
      'hooks',
      'replay',
      '--log',
      log,
      '--to',
      target.url,
      '--forward-secret-file',
      secretFile,
      '--config-dir',
      tempConfigDir(),
    ]);
    expect(replay.code, replay.err).toBe(0);
    expect(target.got).toHaveLength(3);
    for (const { body, headers } of target.got) {
      expect(verify(SECRET, body, headers)).toMatchObject({ TaskID: 'T-AGAIN' });
      expect(headers['webhook-id']).toBe(id);
    }
    expect(run.err() + run.out() + replay.err + replay.out).not.toContain(SECRET.slice('whsec_'.length));
  });
});

describe('the forward secret', () => {
  const serve = (args: string[], env: Record<string, string> = {}) =>
    runCli(['serve-hooks', '--port', '0', '--skip-verify', ...args, '--config-dir', tempConfigDir()], { env });
  const to = ['--forward-to', 'http://127.0.0.1:9/hooks'];

  it('not whsec_ and base64, or shorter than 24 bytes: exit 2, one line naming where it came from', async () => {
    const short = `whsec_${randomBytes(16).toString('base64')}`;
    const path = file(short);
    const cases = [
      [await serve([...to, '--forward-secret-file', path]), `--forward-secret-file ${path}: its key is 16 bytes`],
      [
        await serve(to, { CALLCTL_FORWARD_SECRET: 'plain-secret-text' }),
        'CALLCTL_FORWARD_SECRET: not a Standard Webhooks secret',
      ],
      [
        await serve(to, { CALLCTL_FORWARD_SECRET: 'whsec_not base64!' }),
        'CALLCTL_FORWARD_SECRET: not a Standard Webhooks secret',
      ],
      [
        await runCli(['hooks', 'replay', '--log', path, '--to', to[1]!, '--config-dir', tempConfigDir()], {
          env: { CALLCTL_FORWARD_SECRET: short },
        }),
        'CALLCTL_FORWARD_SECRET: its key is 16 bytes',
      ],
      [
        await serve(['--forward-secret-file', file(SECRET)]),
        '--forward-secret-file signs forwards: give --forward-to too',
      ],
    ] as const;
    for (const [r, line] of cases) {
      expect(r.code, r.err).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toContain(line);
      for (const secret of [short, 'plain-secret-text', short.slice('whsec_'.length)])
        expect(r.err).not.toContain(secret);
    }
  });

  it('--print-config names the file, never the secret; --help names the flag and the variable', async () => {
    const path = file(SECRET);
    const r = await serve([...to, '--forward-secret-file', path, '--print-config']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`forward-secret-file = "${path}"`);
    expect(r.out).not.toContain(SECRET);
    const help = await runCli(['serve-hooks', '--help']);
    expect(help.out).toMatch(/--forward-secret-file <file>.*CALLCTL_FORWARD_SECRET/s);
  });
});
