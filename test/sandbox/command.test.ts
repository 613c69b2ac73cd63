import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { main } from '../../src/main.js';
import { SEED } from '../../src/sandbox/server.js';
import { call } from './helpers.js';
import { tempDir } from '../helpers/temp.js';
import { signalIO } from '../helpers/cli.js';

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('callctl sandbox', () => {
  test('--json prints one JSON line with the URLs and credentials, serves, stops on SIGTERM with 0', async () => {
    const io = signalIO();
    const running = main(['sandbox', '--json', '--time-scale', '60', '--token-ttl', '600', '--app-key', 'k-cmd'], io);
    await until(() => io.out().includes('\n'));
    const lines = io.out().trim().split('\n');
    expect(lines).toHaveLength(1);
    const info = JSON.parse(lines[0]!);
    expect(info).toMatchObject({
      appKey: 'k-cmd',
      timeScale: 60,
      tokenTtlSeconds: 600,
      notifyUrl: null,
      seed: { debtTaskId: SEED.debtTaskId },
    });
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.flexUrl).toBe(`${info.url}/flex`);
    expect(info.flexTestUrl).toBe(`${info.url}/flex-test`);
    const auth = await call(info.url, 'POST', '/service/cloud/auth', {
      body: { APPKey: 'k-cmd', APPSecret: info.appSecret },
    });
    expect(auth.json.code).toBe(200);
    const push = await call(info.flexUrl, 'POST', `/api/push/${info.pushToken}`, {
      body: { caller_id: 'x', variables: {} },
    });
    expect(push.json.code).toBe(200);
    // Messages and credentials go to stderr too, for a person.
    expect(io.err()).toContain(info.url);
    expect(io.err()).toContain(info.appSecret);
    expect(io.err()).toMatch(/push received \(live\)/);
    io.fire('SIGTERM');
    expect(await running).toBe(0);
    expect(io.err()).toMatch(/SIGTERM: sandbox stopped after 2 requests/);
    await expect(fetch(`${info.url}/__sandbox/health`)).rejects.toThrow();
  });

  test('without --json, stdout stays empty; faults from flags; --app-secret-file; --verbose shows requests', async () => {
    const dir = tempDir('callctl-sbx-');
    writeFileSync(join(dir, 'secret'), 'file-secret\n');
    const io = signalIO();
    const running = main(
      [
        'sandbox',
        '--verbose',
        '--app-secret-file',
        join(dir, 'secret'),
        '--fault-429',
        '1',
        '--retry-after',
        '4',
        '--fail-batch',
        '2:drop:always',
        '--fault-path',
        '/service/cloud/robot',
      ],
      io,
    );
    await until(() => /Ctrl-C to stop/.test(io.err()));
    expect(io.out()).toBe('');
    const url = /base URL\s+(\S+)/.exec(io.err())![1]!;
    expect(io.err()).toContain('file-secret');
    const faults = (await call(url, 'GET', '/__sandbox/faults')).json.data;
    expect(faults).toMatchObject({
      fail429: 1,
      retryAfter: 4,
      path: '/service/cloud/robot',
      failBatch: { index: 2, mode: 'drop', repeat: 'always' },
    });
    const r = await call(url, 'GET', '/service/cloud/robot');
    expect(r.status).toBe(429);
    expect(io.err()).toMatch(/fault fail429: GET \/service\/cloud\/robot/);
    expect(io.err()).toMatch(/GET \/service\/cloud\/robot 429/);
    const token = (
      await call(url, 'POST', '/service/cloud/auth', { body: { APPKey: 'demo-app-key', APPSecret: 'file-secret' } })
    ).json.data.token;
    expect(token).toBeTruthy();
    io.fire('SIGINT');
    expect(await running).toBe(0);
  });

  test.each([
    [['--port', '70000'], /--port/],
    [['--fail-rate', '1.5'], /fraction/],
    [['--fail-batch', '0'], /N\[:MODE/],
    [['--fail-batch', '1:boom'], /MODE is/],
    [['--time-scale', '0'], /positive/],
    [['--notify-url', 'ftp://x'], /--notify-url: expected an http:\/\/ or https:\/\/ URL/],
    [['--app-secret-file', '/nonexistent/file'], /cannot read/],
    [
      ['--variant', 'nope'],
      /unknown sandbox variant "nope"; valid: errors-http, error-message, auth-401-http, .*no-user-agent/,
    ],
    [['--variant', 'page-cap,count-new', '--variant', 'count-sent'], /count-sent and count-new answer the same point/],
    [['--variant', ','], /NAME\[,NAME/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const io = signalIO();
    const code = await main(['sandbox', ...args], io);
    expect(code).toBe(2);
    expect(io.err()).toMatch(message);
  });

  test('--variant a,b (repeatable) starts the sandbox with those variants; --help lists them all', async () => {
    const io = signalIO();
    const running = main(['sandbox', '--json', '--variant', 'page-cap,errors-http', '--variant', 'count-new'], io);
    await until(() => io.out().includes('\n'));
    const info = JSON.parse(io.out());
    expect(info.variants).toEqual(['errors-http', 'page-cap', 'count-new']);
    expect(io.err()).toMatch(/variants\s+errors-http, page-cap, count-new/);
    expect((await call(info.url, 'GET', '/__sandbox/variants')).json.data.variants).toEqual([
      'errors-http',
      'page-cap',
      'count-new',
    ]);
    const token = (
      await call(info.url, 'POST', '/service/cloud/auth', { body: { APPKey: info.appKey, APPSecret: info.appSecret } })
    ).json.data.token;
    const list = await call(info.url, 'GET', '/service/cloud/workflow/instancelist?size=10', { token });
    expect(list.json.data.lists).toHaveLength(5);
    io.fire('SIGTERM');
    expect(await running).toBe(0);

    const help = signalIO();
    expect(await main(['sandbox', '--help'], help)).toBe(0);
    const { VARIANT_NAMES } = await import('../../src/sandbox/variants.js');
    for (const name of VARIANT_NAMES) expect(help.out()).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(help.out()).toContain('--variant <names>');
  });

  test('a port in use is a usage error naming it', async () => {
    const io = signalIO();
    const running = main(['sandbox', '--json'], io);
    await until(() => io.out().includes('\n'));
    const port = new URL(JSON.parse(io.out()).url).port;
    const second = signalIO();
    expect(await main(['sandbox', '--port', port], second)).toBe(2);
    expect(second.err()).toMatch(/the port is in use \(--port 0 picks a free one\)/);
    io.fire('SIGTERM');
    await running;
  });

  test('--notify-url sends signed notifications; the key falls back to CALLCTL_HOOK_KEYS', async () => {
    const { createServer } = await import('node:http');
    const got: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push(body);
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const io = signalIO({ CALLCTL_HOOK_KEYS: 'env-key,other' });
    const running = main(['sandbox', '--json', '--notify-url', hook], io);
    await until(() => io.out().includes('\n'));
    const info = JSON.parse(io.out());
    expect(info).toMatchObject({ notifyUrl: hook, notifyKey: 'env-key' });
    await call(info.url, 'POST', '/__sandbox/simulate', { body: { action: 'finishTask', id: SEED.callingTaskId } });
    await until(() => got.length > 0);
    const { taskSign } = await import('../../src/signing/sign.js');
    expect(JSON.parse(got[0]!)).toMatchObject({
      TaskID: SEED.callingTaskId,
      Sign: taskSign(SEED.callingTaskId, 'env-key'),
    });
    await until(() => /notification task\.end delivered/.test(io.err()));
    io.fire('SIGTERM');
    await running;
    server.closeAllConnections();
    server.close();
  });
});
