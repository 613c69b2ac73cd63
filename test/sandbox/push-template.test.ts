import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { defaultServiceSign } from '../../src/signing/sign.js';
import { SEND_SUCCESS_CODES } from '../../src/limits.js';
import { call, settle } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ pushToken: 'live-tok', signKey: 'sk-1', signSecret: 'ss-1' });
});
afterAll(() => sb.close());

const pushBody = {
  caller_id: '+6281234500001',
  client_name: 'Budi',
  variables: { debt_amount: '1500.00', due: '2025-01-10' },
};

describe('direct call push', () => {
  test('flex URLs and the test token', () => {
    expect(sb.flexUrl).toBe(`${sb.url}/flex`);
    expect(sb.flexTestUrl).toBe(`${sb.url}/flex-test`);
    expect(sb.pushTestToken).toBe('live-tok_test');
  });

  test('live push: HTTP 200, code 200, the answer shape; recorded as live', async () => {
    const r = await call(sb.flexUrl, 'POST', `/api/push/${sb.pushToken}`, { body: pushBody });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      code: 200,
      message: 'success',
      show_err: false,
      body: { status: 'queued', environment: 'live' },
    });
    expect(SEND_SUCCESS_CODES).toContain(r.json.code);
    expect(Number.isInteger(r.json.timestamp)).toBe(true);
    expect(r.json.trace_id).toMatch(/^[0-9a-f]{16}$/);
    const got = sb.state.received.pushes.at(-1)!;
    expect(got).toMatchObject({
      environment: 'live',
      caller_id: pushBody.caller_id,
      client_name: 'Budi',
      variables: pushBody.variables,
      trace_id: r.json.trace_id,
    });
  });

  test('test push goes to its own address with its own token', async () => {
    const r = await call(sb.flexTestUrl, 'POST', `/api/push/${sb.pushTestToken}`, {
      body: { caller_id: 'C-1', variables: {} },
    });
    expect(r.json.code).toBe(200);
    expect(sb.state.received.pushes.at(-1)!.environment).toBe('test');
  });

  test.each([
    ['a wrong token', () => `${sb.flexUrl}/api/push/nope`],
    ['the test token on the live address', () => `${sb.flexUrl}/api/push/${sb.pushTestToken}`],
    ['the live token on the test address', () => `${sb.flexTestUrl}/api/push/${sb.pushToken}`],
  ])('%s: HTTP 404, code 404, the token never echoed, nothing recorded', async (_n, url) => {
    const n = sb.state.received.pushes.length;
    const r = await call(url(), 'POST', '', { body: pushBody });
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ code: 404, show_err: true });
    expect(r.text).not.toContain('live-tok');
    expect(r.text).not.toContain('nope');
    expect(sb.state.received.pushes.length).toBe(n);
  });

  test.each<[string, unknown, RegExp]>([
    ['no caller_id', { variables: {} }, /caller_id is required/],
    ['empty caller_id', { caller_id: ' ', variables: {} }, /caller_id is required/],
    ['no variables', { caller_id: 'x' }, /variables is required/],
    ['variables an array', { caller_id: 'x', variables: [] }, /variables is required/],
    ['client_name a number', { caller_id: 'x', client_name: 3, variables: {} }, /client_name must be a string/],
    ['debt_amount a number', { caller_id: 'x', variables: { debt_amount: 5 } }, /debt_amount must be a string/],
  ])('%s: HTTP 400, code 400', async (_n, body, message) => {
    const r = await call(sb.flexUrl, 'POST', `/api/push/${sb.pushToken}`, { body });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe(400);
    expect(r.json.message).toMatch(message);
  });

  test('a push dropped after its body was read is in the requests, not in the pushes', async () => {
    sb.faults.dropAfterBody = 1;
    const n = sb.state.received.pushes.length;
    expect(await settle(call(sb.flexUrl, 'POST', `/api/push/${sb.pushToken}`, { body: pushBody }))).toBeInstanceOf(
      Error,
    );
    expect(sb.requests.at(-1)!.outcome).toBe('dropped-after-body');
    expect(sb.state.received.pushes.length).toBe(n);
  });

  test('push.received is emitted', async () => {
    const seen = new Promise((resolve) => sb.events.once('push.received', resolve));
    await call(sb.flexUrl, 'POST', `/api/push/${sb.pushToken}`, { body: pushBody });
    expect(await seen).toMatchObject({ caller_id: pushBody.caller_id });
  });
});

describe('template unitcast', () => {
  const message = {
    template_id: 1001,
    timestamp: 1736500000,
    channel: 'whatsapp',
    channel_id: 'wa-01',
    user_id: '',
    variable: { date: '2025-01-10', name: 'Budi' },
    custom: JSON.stringify({ reply_url: 'https://example.com/replies' }),
  };
  const send = (body: unknown, headers?: Record<string, string>, raw?: string) => {
    const text = raw ?? JSON.stringify(body);
    return call(sb.url, 'POST', '/api/v1/template/unitcast', {
      raw: text,
      headers: headers ?? { 'x-service-sign-key': 'sk-1', 'x-service-sign': defaultServiceSign(text, 'ss-1') },
    });
  };

  test('a signed message: HTTP 200, code 200, data.task_id; recorded', async () => {
    const r = await send(message);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      code: 200,
      message: 'success',
      data: { task_id: expect.stringMatching(/^tpl-task-/) },
    });
    expect(r.json.request_id).toMatch(/^req-/);
    expect(sb.state.received.templates.at(-1)).toMatchObject({
      task_id: r.json.data.task_id,
      request_id: r.json.request_id,
      reply_url: 'https://example.com/replies',
      user_id: '',
      variable: message.variable,
    });
  });

  test('the signature covers the raw bytes: other spacing, same JSON, is refused', async () => {
    const text = JSON.stringify(message);
    const r = await send(
      undefined,
      { 'x-service-sign-key': 'sk-1', 'x-service-sign': defaultServiceSign(text, 'ss-1') },
      JSON.stringify(message, null, 1),
    );
    expect(r.status).toBe(401);
    expect(r.json.message).toMatch(/does not match/);
  });

  test.each<[string, Record<string, string>, RegExp]>([
    ['no sign key', { 'x-service-sign': 'x' }, /missing X-Service-Sign-Key/],
    ['wrong sign key', { 'x-service-sign-key': 'sk-2', 'x-service-sign': 'x' }, /unknown X-Service-Sign-Key/],
    ['no signature', { 'x-service-sign-key': 'sk-1' }, /missing X-Service-Sign header/],
    ['wrong signature', { 'x-service-sign-key': 'sk-1', 'x-service-sign': 'f'.repeat(64) }, /does not match/],
  ])('%s: HTTP 401, code 401', async (_n, headers, msg) => {
    const n = sb.state.received.templates.length;
    const r = await send(message, headers);
    expect(r.status).toBe(401);
    expect(r.json.code).toBe(401);
    expect(r.json.message).toMatch(msg);
    expect(r.text).not.toContain('ss-1');
    expect(sb.state.received.templates.length).toBe(n);
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    ['template_id a string', { template_id: '1001' }, /template_id/],
    ['template_id not whole', { template_id: 1.5 }, /template_id/],
    ['no timestamp', { timestamp: undefined }, /timestamp/],
    ['empty channel', { channel: '' }, /channel/],
    ['user_id missing', { user_id: undefined }, /user_id/],
    ['variable without name', { variable: { date: 'x' } }, /variable\.name/],
    ['custom not JSON', { custom: 'reply here' }, /custom must be a JSON text/],
    ['custom without reply_url', { custom: '{"x":1}' }, /custom: reply_url/],
  ])('%s: HTTP 400, code 400', async (_n, change, msg) => {
    const r = await send({ ...message, ...change });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe(400);
    expect(r.json.message).toMatch(msg);
  });
});
