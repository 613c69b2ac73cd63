import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { notificationTransport, passOnHeaders, post } from '../../src/hooks/send.js';
import { readRecords, startServeHooks, tempDir, until } from './helpers.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/**
 * serve-hooks never answers 500, so this proxy stands between the sandbox and serve-hooks: it
 * passes every request through, bytes and headers, and then answers the sandbox 500 for the first
 * `failures` requests whose body contains `marker`, whatever serve-hooks said. For the sandbox that
 * is an abnormal answer; for serve-hooks it is a 200 lost on the way back: the case dedup is for.
 * (The sandbox's seeded tasks also finish and notify; they pass through untouched.)
 */
async function failingProxy(target: string, marker: string, failures: number) {
  const answered: number[] = [];
  const transport = notificationTransport();
  cleanup.push(() => transport.close());
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const { answer } = await post(transport, target + (req.url ?? '/'), body, passOnHeaders(req.headers), {
        retry: 'never',
      });
      const real = answer ?? { status: 502, body: '{}' };
      const ours = body.includes(marker);
      const status = ours && answered.length < failures ? 500 : real.status;
      if (ours) answered.push(status);
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(status === 500 ? '{"error":"proxy"}' : real.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, answered };
}

it('a task the sandbox finishes while the receiver answers 500 twice: one event, retry 2, three requests logged', async () => {
  const key = 'e2e-hook-key';
  const logPath = join(tempDir(), 'events.ndjson');
  const hooks = await startServeHooks({ key: [key], log: logPath });
  cleanup.push(() => hooks.stop());
  const proxy = await failingProxy(hooks.url, '"T-E2E-1"', 2);
  // One minute of the spec's retry interval takes 1 ms here.
  const sb = await startSandbox({ notifyUrl: proxy.url, notifyKey: key, timeScale: 60_000 });
  cleanup.push(() => sb.close());

  sb.simulate.createTask({ id: 'T-E2E-1', calleeCount: 1 });
  sb.simulate.finishTask('T-E2E-1');
  await until(() => proxy.answered.length === 3);
  expect(await hooks.stop()).toBe(0);

  expect(proxy.answered).toEqual([500, 500, 200]);
  const mine = (r: { body?: string }) => r.body?.includes('"T-E2E-1"');
  const logged = readRecords(logPath).filter(mine);
  expect(logged).toHaveLength(3);
  expect(logged.map((r) => [r.type, r.verdict, r.status, r.retry])).toEqual([
    ['task.end', 'verified', 200, 0],
    ['task.end', 'verified', 200, 1],
    ['task.end', 'verified', 200, 2],
  ]);
  const shown = hooks.shown().filter((e) => e.task === 'T-E2E-1');
  expect(shown.filter((e) => e.duplicate === false)).toHaveLength(1); // one event
  expect(shown.at(-1)).toMatchObject({ type: 'task.end', duplicate: true, retry: 2, verdict: 'verified', by: 'key 1' });
});
