import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/store/files/event-log.js';
import { recordBody } from '../../src/store/events.js';
import { signNotification } from '../../src/hooks/outgoing.js';
import { sampleBody, type SampleType } from '../../src/hooks/samples.js';
import { notificationTransport } from '../../src/hooks/send.js';
import { addSecret } from '../../src/redact.js';
import {
  post,
  readRecords,
  tempDir,
  logEvents,
  reopenedLog,
  startListener,
  type Listener,
  type ListenerEvent,
  type ListenerOptions,
} from './helpers.js';

const KEYS = ['k3y-ONE', 'k3y-TWO'];
const open: Listener[] = [];

async function listen(options: Partial<ListenerOptions> = {}) {
  const dir = tempDir();
  const logPath = join(dir, 'events.ndjson');
  const log = EventLog.open(logPath);
  const listener = await startListener({ port: 0, keys: KEYS, store: logEvents(log), ...options });
  open.push(listener);
  const events: ListenerEvent[] = [];
  listener.on((e) => events.push(e));
  return { listener, url: listener.url, logPath, events, log };
}

async function signed(type: SampleType, key = KEYS[0], extra: Parameters<typeof signNotification>[2] = {}) {
  const body = sampleBody(type);
  return { json: body, ...(await signNotification(type, body, { key, ...extra })) };
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

describe('listener: malformed requests', () => {
  it('answers each with its code and records it', async () => {
    const { url, logPath } = await listen();
    expect((await post(`${url}/healthz`, '', {}, 'GET')).status).toBe(200);
    const get = await post(`${url}/`, '', {}, 'GET');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect((await post(`${url}/`, '{}', { 'content-type': 'application/json' }, 'PUT')).status).toBe(405);
    expect((await post(`${url}/`, '{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(`${url}/`, '{}', {})).status).toBe(415);
    expect((await post(`${url}/`, 'not json')).status).toBe(400);
    expect((await post(`${url}/`, '')).status).toBe(400);
    expect((await post(`${url}/`, Buffer.alloc(1024 * 1024 + 1, 0x20))).status).toBe(413);
    // Exactly at the cap is fine (and is an unknown event: it is JSON).
    const atCap = Buffer.alloc(1024 * 1024, 0x20);
    atCap.write('{}');
    expect((await post(`${url}/`, atCap)).status).toBe(200);
    expect((await post(`${url}/`, '{}', { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    const answers = readRecords(logPath).map((r) => r.status);
    expect(answers).toEqual([405, 405, 415, 415, 400, 400, 413, 200, 200]);
  });

  it('answers 413 to a chunked body that grows over the cap', async () => {
    const { url } = await listen();
    async function* chunks() {
      for (let i = 0; i < 20; i++) yield Buffer.alloc(64 * 1024, 0x20);
    }
    const { request } = await import('undici');
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Readable.from(chunks()),
    });
    expect(res.statusCode).toBe(413);
    expect((await post(`${url}/healthz`, '', {}, 'GET')).status).toBe(200);
  });

  it('accepts POST only on --path, and never shows or records that path', async () => {
    const { url, logPath, events } = await listen({ path: '/hooks/s3cret-segment' });
    expect((await post(`${url}/other`, '{}')).status).toBe(404);
    expect((await post(`${url}/hooks/s3cret-segment`, '{}')).status).toBe(200);
    const text = JSON.stringify(readRecords(logPath)) + JSON.stringify(events);
    expect(text).not.toContain('s3cret');
    expect(readRecords(logPath).map((r) => r.path)).toEqual(['(other path)', '(--path)']);
  });
});

describe('listener: verification', () => {
  it('verifies task and plan Sign with the key that matches, answers 200 {} as JSON', async () => {
    const { url, logPath } = await listen();
    const task = await signed('task.end', KEYS[1]);
    const res = await post(url, task.body, task.headers);
    expect(res).toMatchObject({ status: 200, body: '{}' });
    expect(res.headers['content-type']).toBe('application/json');
    const plan = await signed('plan.end', KEYS[0]);
    expect((await post(url, plan.body, plan.headers)).status).toBe(200);
    const [t, p] = readRecords(logPath);
    expect(t).toMatchObject({ type: 'task.end', verdict: 'verified', by: 'key 2', status: 200 });
    expect(p).toMatchObject({ type: 'plan.end', verdict: 'verified', by: 'key 1', status: 200 });
  });

  it('answers 401 to a bad or missing Sign and records it rejected; ack mode answers 200', async () => {
    const { url, logPath } = await listen();
    const bad = await signed('task.end', KEYS[0], { tamper: 'sign' });
    expect((await post(url, bad.body, bad.headers)).status).toBe(401);
    const tamperedBody = await signed('plan.end', KEYS[0], { tamper: 'body' });
    expect((await post(url, tamperedBody.body, tamperedBody.headers)).status).toBe(401);
    expect((await post(url, JSON.stringify({ TaskID: 'T-1' }))).status).toBe(401);
    const other = await signed('task.end', 'not-a-configured-key');
    expect((await post(url, other.body, other.headers)).status).toBe(401);
    expect(readRecords(logPath).map((r) => [r.verdict, r.reason])).toEqual([
      ['rejected', 'Sign matches no key'],
      ['rejected', 'Sign matches no key'],
      ['rejected', 'missing Sign'],
      ['rejected', 'Sign matches no key'],
    ]);

    const ack = await listen({ onBadSign: 'ack' });
    expect((await post(ack.url, bad.body, bad.headers)).status).toBe(200);
    expect(readRecords(ack.logPath)[0]).toMatchObject({ verdict: 'rejected', status: 200 });
  });

  it('with --skip-verify and no keys, marks plan and task as skipped', async () => {
    const { url, logPath } = await listen({ keys: [], skipVerify: true });
    const task = await signed('task.end', 'whatever');
    expect((await post(url, task.body, task.headers)).status).toBe(200);
    expect(readRecords(logPath)[0]).toMatchObject({ verdict: 'skipped' });
  });

  it('checks chatbot X-Service-Sign with the secret; without one records unverified; redacts it', async () => {
    const secret = 'chat-secret-123';
    const { url, logPath } = await listen({ chatbotSecret: secret });
    const good = await signed('chatbot.transfer', undefined, { chatbot: { secret } });
    expect((await post(url, good.body, good.headers)).status).toBe(200);
    const bad = await signed('chatbot.session_closed', undefined, { chatbot: { secret }, tamper: 'body' });
    expect((await post(url, bad.body, bad.headers)).status).toBe(401);
    const none = await signed('chatbot.session_closed');
    expect((await post(url, none.body, none.headers)).status).toBe(401);
    const records = readRecords(logPath);
    expect(records.map((r) => r.verdict)).toEqual(['verified', 'rejected', 'rejected']);
    expect(records[0]!.by).toBe('secret');
    expect(records[0]!.headers['x-service-sign']).toBe('***');
    expect(JSON.stringify(records)).not.toContain(good.headers['x-service-sign']);

    const plain = await listen();
    expect((await post(plain.url, good.body, good.headers)).status).toBe(200);
    expect(readRecords(plain.logPath)[0]).toMatchObject({ type: 'chatbot.transfer', verdict: 'unverified' });
  });

  it('checks chatbot X-Service-Sign with an external command reading the body', async () => {
    const command = `node -e "process.stdin.on('data',()=>{}).on('end',()=>console.log('sig-from-command'))"`;
    const { url, logPath } = await listen({ signCommand: command });
    const good = await signed('chatbot.transfer', undefined, { chatbot: { signature: 'sig-from-command' } });
    expect((await post(url, good.body, good.headers)).status).toBe(200);
    const bad = await signed('chatbot.transfer', undefined, { chatbot: { signature: 'sig-other' } });
    expect((await post(url, bad.body, bad.headers)).status).toBe(401);
    expect(readRecords(logPath).map((r) => [r.verdict, r.by])).toEqual([
      ['verified', 'command'],
      ['rejected', undefined],
    ]);
  });

  it('marks the types the spec does not sign as unsigned', async () => {
    const { url, logPath } = await listen();
    for (const type of ['workflow.api_push', 'template.status'] as const) {
      const s = await signed(type);
      expect((await post(url, s.body, s.headers)).status).toBe(200);
    }
    expect(readRecords(logPath).map((r) => [r.type, r.verdict])).toEqual([
      ['workflow.api_push', 'unsigned'],
      ['template.status', 'unsigned'],
    ]);
  });
});

describe('listener: schema, unknown, retries', () => {
  it('warns on a schema problem and still answers 200; --strict answers 400', async () => {
    const body = JSON.stringify({ ...sampleBody('template.status'), status: 'exploded', extra_field: 1 });
    const { url, logPath } = await listen();
    expect((await post(url, body)).status).toBe(200);
    expect(readRecords(logPath)[0]!.warnings).toEqual([expect.stringContaining('status')]);
    const strict = await listen({ strict: true });
    const res = await post(strict.url, body);
    expect(res.status).toBe(400);
    expect(res.body).toContain('status');
    // Unknown fields alone are not a problem (a signed type: --strict refuses unsigned ones).
    const fine = await signed('task.end');
    const extra = JSON.stringify({ ...(JSON.parse(fine.body.toString()) as object), extra_field: 1 });
    expect((await post(strict.url, extra)).status).toBe(200);
  });

  it('records anything unrecognised as unknown, answered 200', async () => {
    const { url, logPath } = await listen();
    expect((await post(url, '{"hello":"world"}')).status).toBe(200);
    expect((await post(url, '[1,2]')).status).toBe(200);
    expect(readRecords(logPath).map((r) => r.type)).toEqual(['unknown', 'unknown']);
  });

  it('treats a repeat as retry n: answered 200, flagged, counted', async () => {
    const { url, logPath, events } = await listen();
    const task = await signed('task.end');
    for (let i = 0; i < 3; i++) expect((await post(url, task.body, task.headers)).status).toBe(200);
    expect(readRecords(logPath).map((r) => [r.duplicate, r.retry])).toEqual([
      [false, 0],
      [true, 1],
      [true, 2],
    ]);
    expect(events.filter((e) => e.kind === 'event').length).toBe(3);
  });

  it('keys template status by msg_id, status and timestamp', async () => {
    const { url, logPath } = await listen();
    const body = sampleBody('template.status');
    await post(url, JSON.stringify(body));
    await post(url, JSON.stringify({ ...body, status: 'read' }));
    await post(url, JSON.stringify({ ...body, variables: { order: 'changed' } }));
    expect(readRecords(logPath).map((r) => r.retry)).toEqual([0, 0, 1]);
  });

  it('does not let a forged plan end hide the genuine one', async () => {
    const { url, logPath } = await listen();
    const body = sampleBody('plan.end');
    const forged = await signNotification('plan.end', { ...body }, { key: 'attacker-key' });
    const genuine = await signNotification('plan.end', { ...body }, { key: KEYS[0] });
    expect((await post(url, forged.body, forged.headers)).status).toBe(401);
    expect((await post(url, genuine.body, genuine.headers)).status).toBe(200);
    expect(readRecords(logPath).map((r) => r.duplicate)).toEqual([false, false]);
  });

  it('remembers events across a restart when a log is kept', async () => {
    const first = await listen();
    const task = await signed('task.end');
    await post(first.url, task.body, task.headers);
    await first.listener.close();
    await first.log.close();
    const store = reopenedLog(first.logPath);
    const second = await startListener({ port: 0, keys: KEYS, store });
    open.push(second);
    expect((await post(second.url, task.body, task.headers)).status).toBe(200);
    await store.close();
    expect(readRecords(first.logPath).map((r) => r.retry)).toEqual([0, 1]);
  });

  it('keeps bytes that are not UTF-8 exactly', async () => {
    const { url, logPath } = await listen();
    const raw = Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    expect((await post(url, raw)).status).toBe(200);
    const [record] = readRecords(logPath);
    expect(record!.encoding).toBe('base64');
    expect(recordBody(record!).equals(raw)).toBe(true);
  });
});

describe('listener: forwarding', () => {
  async function app(statuses: number[]) {
    const got: Array<{ body: Buffer; headers: IncomingHttpHeaders; path: string }> = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req
        .on('data', (c: Buffer) => chunks.push(c))
        .on('end', () => {
          got.push({ body: Buffer.concat(chunks), headers: req.headers, path: req.url ?? '' });
          res.writeHead(statuses.shift() ?? 200, { 'content-type': 'application/json' }).end('{"ok":1}');
        });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/app`, close: () => server.close() };
  }

  it('sends the exact bytes and headers on once, retries a failure, and shows the answers', async () => {
    const local = await app([500]);
    const secret = 'chat-secret-123';
    const { url, events, listener } = await listen({
      forwardTo: local.url,
      chatbotSecret: secret,
      forwardTransport: notificationTransport({ sleep: async () => undefined }),
    });
    const s = await signed('chatbot.transfer', undefined, { chatbot: { secret } });
    await post(url, s.body, s.headers);
    await post(url, s.body, s.headers); // a retry from the service: not sent on again
    await listener.close();
    local.close();
    expect(local.got.length).toBe(2); // the 500, then the retry that got 200
    expect(local.got[1]!.body.equals(s.body)).toBe(true);
    expect(local.got[1]!.headers['x-service-sign']).toBe(s.headers['x-service-sign']);
    const forwards = events.filter((e) => e.kind === 'forward');
    expect(forwards).toEqual([
      expect.objectContaining({ attempt: 1, final: false, status: 500 }),
      expect.objectContaining({ attempt: 2, final: true, status: 200 }),
    ]);
  });

  it('does not send on rejected events', async () => {
    const local = await app([]);
    const { url, listener } = await listen({ forwardTo: local.url });
    const bad = await signed('task.end', KEYS[0], { tamper: 'sign' });
    await post(url, bad.body, bad.headers);
    await listener.close();
    local.close();
    expect(local.got.length).toBe(0);
  });
});

describe('listener: timeouts', () => {
  it('drops a client that does not finish its headers, or its body, in time', async () => {
    const { connect } = await import('node:net');
    const { url } = await listen({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const { port } = new URL(url);
    const slow = async (text: string) => {
      const started = Date.now();
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
      let answer = '';
      socket.on('data', (c: Buffer) => (answer += c.toString()));
      await new Promise((r) => socket.on('close', r));
      return { answer, ms: Date.now() - started };
    };
    const headers = await slow('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n');
    expect(headers.answer).toMatch(/^HTTP\/1.1 408 /);
    expect(headers.ms).toBeLessThan(3_000);
    // A body too slow ends at the request deadline with a 408, whichever check sees it first
    // (Node's own, or serve-hooks' per-socket sweep).
    const body = await slow(
      'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{"a"',
    );
    expect(body.answer).toMatch(/^HTTP\/1.1 408 /);
    expect(body.ms).toBeGreaterThanOrEqual(350);
    expect(body.ms).toBeLessThan(3_000);
  });
});

describe('listener: an accepted event is recorded as it came', () => {
  it('a body that happens to hold a known secret is logged byte for byte, and its identity stays whole across a restart', async () => {
    // A short KEY (the reviewer's "12345") that a TaskID and a phone number contain by chance.
    const key = '12345';
    addSecret(key);
    const { url, logPath, listener } = await listen({ keys: [key] });
    const sent = await signNotification('task.end', { TaskID: 'T-812345', TaskName: 'callee +6281234567801' }, { key });
    expect((await post(`${url}/`, sent.body, sent.headers)).status).toBe(200);
    await listener.close();
    const [record] = readRecords(logPath);
    expect(recordBody(record!).equals(sent.body)).toBe(true);
    expect(record!.key).toContain('T-812345');
    // The service's retry after a restart is known as a retry (identity read back from the log).
    const again = await listen({ keys: [key], store: reopenedLog(logPath, Date.now()) });
    const events: ListenerEvent[] = [];
    again.listener.on((e) => events.push(e));
    expect((await post(`${again.url}/`, sent.body, sent.headers)).status).toBe(200);
    const retry = events.find((e) => e.kind === 'event');
    expect(retry && retry.kind === 'event' && retry.record.duplicate).toBe(true);
  });
});
