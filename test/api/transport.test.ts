import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Transport, retryAfterMs } from '../../src/api/transport.js';
import { NetworkError } from '../../src/errors.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

let server: Server | undefined;
async function listen(handler: Handler): Promise<{ url: string; count: () => number }> {
  let n = 0;
  server = createServer((req, res) => {
    n += 1;
    const i = n;
    req.resume();
    req.on('end', () => handler(req, res, i));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/x`, count: () => n };
}

afterEach(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

function transport(extra: Partial<ConstructorParameters<typeof Transport>[0]> = {}) {
  const slept: number[] = [];
  const lines: string[] = [];
  const t = new Transport({
    userAgent: 'callctl/test',
    timeoutMs: 2000,
    sleep: async (ms) => void slept.push(ms),
    random: () => 0,
    log: (l) => lines.push(l),
    secrets: () => ['s3cret-token-value'],
    ...extra,
  });
  return { t, slept, lines };
}

describe('Transport', () => {
  it('retries a read through 500s and reports the attempts', async () => {
    const { url, count } = await listen((_q, res, i) => {
      res.statusCode = i < 3 ? 500 : 200;
      res.end('{}');
    });
    const { t, slept } = transport();
    const res = await t.send({ method: 'GET', url, retry: 'idempotent', endpoint: 'GET /x' });
    expect(res.status).toBe(200);
    expect(res.attempts).toBe(3);
    expect(count()).toBe(3);
    // 0.5 s then 1 s (no jitter with random() = 0)
    expect(slept).toEqual([500, 1000]);
    await t.close();
  });

  it('gives up after the retry budget and returns the last answer', async () => {
    const { url, count } = await listen((_q, res) => {
      res.statusCode = 503;
      res.end('{}');
    });
    const { t } = transport();
    const res = await t.send({ method: 'GET', url, retry: 'idempotent', endpoint: 'GET /x' });
    expect(res.status).toBe(503);
    expect(count()).toBe(4);
    await t.close();
  });

  it('honours Retry-After on 429', async () => {
    const { url } = await listen((_q, res, i) => {
      if (i === 1) {
        res.writeHead(429, { 'retry-after': '2' });
        res.end('{}');
      } else res.end('{}');
    });
    const { t, slept } = transport();
    const res = await t.send({ method: 'GET', url, retry: 'idempotent', endpoint: 'GET /x' });
    expect(res.status).toBe(200);
    expect(slept).toEqual([2000]);
    await t.close();
  });

  it('never retries a send once the body may have reached the server', async () => {
    const { url, count } = await listen((req) => req.socket.destroy());
    const { t } = transport();
    const error = await t
      .send({ method: 'POST', url, body: '{"a":1}', retry: 'never', endpoint: 'POST /push' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).details.mayHaveBeenSent).toBe(true);
    expect(count()).toBe(1);
    await t.close();
  });

  it('retries a send whose connection was refused (nothing was sent)', async () => {
    const { t, slept } = transport();
    const error = await t
      .send({ method: 'POST', url: 'http://127.0.0.1:1/push', body: '{}', retry: 'never', endpoint: 'POST /push' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).details.mayHaveBeenSent).toBe(false);
    expect(slept.length).toBe(3);
    expect((error as Error).message).toMatch(/connection refused.*after 4 attempts/);
  });

  it('times out a request that gets no answer', async () => {
    const { url } = await listen(() => undefined);
    const { t } = transport({ timeoutMs: 200, maxRetries: 1 });
    const started = Date.now();
    const error = await t
      .send({ method: 'GET', url, retry: 'idempotent', endpoint: 'GET /x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(/timed out after 0.2 s/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
    await t.close();
  });

  it('redacts secrets in the verbose log', async () => {
    const { url } = await listen((_q, res) => res.end('{"data":{"token":"s3cret-token-value"}}'));
    const { t, lines } = transport();
    await t.send({
      method: 'POST',
      url: `${url}/s3cret-token-value`,
      headers: { authorization: 'Token s3cret-token-value' },
      body: '{"APPKey":"k","APPSecret":"another-secret"}',
      retry: 'idempotent',
      endpoint: 'POST /x',
    });
    const log = lines.join('\n');
    expect(log).toContain('authorization: Token ***');
    expect(log).not.toContain('s3cret-token-value');
    expect(log).not.toContain('another-secret');
    expect(log).toContain('"APPSecret":"***"');
    await t.close();
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
